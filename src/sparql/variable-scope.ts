/**
 * The scope rules of SPARQL (1.1 section 18.2.1, "Variable Scope"; the 1.2 draft's grammar notes)
 * that Traqula's 1.2 parser leaves unchecked, applied to its syntax tree after the parse:
 *   - a VALUES clause names each variable once;
 *   - the variable of a SELECT expression (expr AS ?v) is not already in scope: in a grouped query
 *     the group keys are what is in scope (GROUP BY ?v and GROUP BY (expr AS ?v)), else the
 *     variables the WHERE pattern binds.
 * Traqula already rejects a variable used twice in the SELECT clause and a BIND to a bound variable.
 */
import { SparqlSyntaxError } from '../errors.js';

type Node = Record<string, unknown>;

/** Throws a SparqlSyntaxError for the first scope rule the request (query or update) breaks. */
export function checkVariableScope(ast: unknown): void {
  visit(ast, (node) => {
    if (node.type === 'pattern' && node.subType === 'values') checkValuesVariables(node);
    if (node.type === 'query' && node.subType === 'select') checkSelectExpressions(node);
    // INSERT DATA and DELETE DATA hold no patterns, and may hold millions of triples.
    return node.subType !== 'insertdata' && node.subType !== 'deletedata';
  });
}

/** Calls action on every object of the tree, going inside those for which it answers true. */
function visit(node: unknown, action: (node: Node) => boolean | void): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, action);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Node;
  if (action(record) === false) return;
  for (const key of Object.keys(record)) if (key !== 'loc') visit(record[key], action);
}

function checkValuesVariables(values: Node): void {
  const seen = new Set<string>();
  for (const variable of (values.variables as Node[] | undefined) ?? []) {
    const name = variableName(variable);
    if (name === undefined) continue;
    if (seen.has(name)) throw new SparqlSyntaxError(`variable ?${name} is named twice in a VALUES clause`);
    seen.add(name);
  }
}

function checkSelectExpressions(query: Node): void {
  const assigned = ((query.variables as Node[] | undefined) ?? []).filter((item) => item.subType === 'bind');
  if (assigned.length === 0) return;
  const modifiers = (query.solutionModifiers ?? {}) as Node;
  const inScope = isGrouped(assigned, modifiers) ? groupKeys(modifiers.group as Node | undefined) : boundBy(query.where);
  for (const item of assigned) {
    const name = variableName(item.variable);
    if (name !== undefined && inScope.has(name)) {
      throw new SparqlSyntaxError(`the variable ?${name} of a SELECT expression (… AS ?${name}) is already in scope`);
    }
  }
}

/** GROUP BY, or an aggregate in SELECT, HAVING or ORDER BY (one implicit group). */
function isGrouped(selectExpressions: Node[], modifiers: Node): boolean {
  const expressions = selectExpressions.map((item) => item.expression);
  return modifiers.group !== undefined || [expressions, modifiers.having, modifiers.order].some(hasAggregate);
}

/** Whether an expression holds an aggregate, not looking into the patterns of EXISTS. */
function hasAggregate(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasAggregate);
  if (node === null || typeof node !== 'object') return false;
  const record = node as Node;
  if (record.type === 'expression' && record.subType === 'aggregate') return true;
  if (record.type === 'pattern' || record.type === 'query') return false;
  return Object.keys(record).some((key) => key !== 'loc' && hasAggregate(record[key]));
}

/** GROUP BY ?v and GROUP BY (expr AS ?v) put ?v in scope; GROUP BY (expr) puts nothing. */
function groupKeys(group: Node | undefined): Set<string> {
  const keys = new Set<string>();
  for (const grouping of (group?.groupings as Node[] | undefined) ?? []) {
    const name = variableName(grouping) ?? variableName(grouping.variable);
    if (name !== undefined) keys.add(name);
  }
  return keys;
}

/** The variables a graph pattern binds (in scope after it), as section 18.2.1 defines them. */
function boundBy(pattern: unknown, bound = new Set<string>()): Set<string> {
  if (Array.isArray(pattern)) {
    for (const item of pattern) boundBy(item, bound);
    return bound;
  }
  if (pattern === null || typeof pattern !== 'object') return bound;
  const node = pattern as Node;
  if (node.type === 'query') {
    for (const name of projectedBy(node)) bound.add(name);
    return bound;
  }
  switch (node.subType) {
    case 'bgp':
      return variablesIn(node.triples, bound);
    case 'filter':
    case 'minus':
      return bound;
    case 'bind':
    case 'values':
      return variablesIn(node.subType === 'bind' ? node.variable : node.variables, bound);
    default: {
      // Group, OPTIONAL, UNION, GRAPH, SERVICE: the name (when a variable) and the inner patterns.
      const name = variableName(node.name);
      if (name !== undefined) bound.add(name);
      return boundBy(node.patterns, bound);
    }
  }
}

/** The variables a sub-SELECT hands to the pattern around it. */
function projectedBy(query: Node): Set<string> {
  const items = (query.variables as Node[] | undefined) ?? [];
  if (items.some((item) => item.type === 'wildcard')) return variablesIn((query.values as Node | undefined)?.variables, boundBy(query.where));
  const projected = new Set<string>();
  for (const item of items) {
    const name = variableName(item) ?? variableName(item.variable);
    if (name !== undefined) projected.add(name);
  }
  return projected;
}

/** Every variable written anywhere inside (triples, paths, triple terms, annotations). */
function variablesIn(node: unknown, found: Set<string>): Set<string> {
  visit(node, (item) => {
    const name = variableName(item);
    if (name !== undefined) found.add(name);
  });
  return found;
}

function variableName(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Node;
  return record.type === 'term' && record.subType === 'variable' && typeof record.value === 'string' ? record.value : undefined;
}
