/**
 * Triple-term patterns with variables inside (`?r rdf:reifies <<( ?s :p ?o )>>`). The store matches
 * a constant triple term like any other term, but a triple term with variables is a pattern of its
 * own. Each such term in a basic graph pattern becomes a fresh variable, bound to the stored triple
 * term, which is then taken apart with the SPARQL 1.2 functions:
 *   isTRIPLE(?t) for every (nested) triple term, sameTerm(SUBJECT(?t), c) for a constant part,
 *   BIND(SUBJECT(?t) AS ?v) for a variable met first there, sameTerm(SUBJECT(?t), ?v) after that.
 * A blank node inside a triple term is a variable of the pattern too (SPARQL's blank nodes in
 * patterns are): nested reified triples (`<< << :s :p :o >> :q ?z >>`) put the inner reifier's blank
 * node there. Such a blank node becomes a hidden variable wherever the query pattern names it.
 * A triple term with variables in an expression (`BIND(<<( ?s ?p ?o )>> AS ?t)`) is TRIPLE(?s, ?p, ?o).
 * Only query patterns are rewritten: templates (CONSTRUCT, INSERT, DELETE) keep their triple terms,
 * which are instantiated per solution.
 */
import type * as RDF from '@rdfjs/types';
import { factory } from '../rdf/index.js';
import type { Algebra } from '@traqula/algebra-transformations-1-2';

/** Prefix of the fresh variables: not a name a query can write (SPARQL names cannot hold '.'). */
const FRESH = 'tt.';
/** Prefix of the variables standing for blank nodes met inside triple terms. */
const BLANK = 'tt.b.';

type Expression = Algebra.Expression;
type Pattern = Algebra.Pattern | Algebra.Path;

/** Keys of the algebra holding templates, which stay as written. */
const TEMPLATE_KEYS = new Set(['template', 'delete', 'insert']);

/** Rewrites every BGP and expression of the algebra (by returning a new tree where it changes). */
export function rewriteTripleTermPatterns<T>(node: T): T {
  const blankNodes = new Set<string>();
  collectBlankNodesInTripleTerms(node, blankNodes);
  return rewrite(node, blankNodes);
}

function rewrite<T>(node: T, blankNodes: ReadonlySet<string>): T {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, blankNodes)) as T;
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  if (record.type === 'bgp') return rewriteBgp(withBlankNodesAsVariables(record as unknown as Algebra.Bgp, blankNodes)) as T;
  if (record.type === 'path') return renamePattern(record as unknown as Algebra.Path, blankNodes) as T;
  if (record.type === 'expression' && record.subType === 'term') return tripleExpression(record as unknown as Algebra.TermExpression) as T;
  if (record.termType !== undefined) return node;
  let changed = false;
  const copy: Record<string, unknown> = Object.create(Object.getPrototypeOf(record) as object | null) as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = TEMPLATE_KEYS.has(key) ? record[key] : rewrite(record[key], blankNodes);
    if (value !== record[key]) changed = true;
    copy[key] = value;
  }
  return changed ? (copy as T) : node;
}

/** The labels of the blank nodes inside the triple terms of the query's patterns. */
function collectBlankNodesInTripleTerms(node: unknown, labels: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectBlankNodesInTripleTerms(item, labels);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.type === 'pattern' || record.type === 'path') {
    const pattern = record as unknown as Pattern;
    for (const term of [pattern.subject, pattern.object]) if (term.termType === 'Quad') blankNodesOf(term, labels);
    return;
  }
  if (record.termType !== undefined) return;
  for (const key of Object.keys(record)) if (!TEMPLATE_KEYS.has(key)) collectBlankNodesInTripleTerms(record[key], labels);
}

function blankNodesOf(term: RDF.Term, labels: Set<string>): void {
  if (term.termType === 'BlankNode') labels.add(term.value);
  else if (term.termType === 'Quad') for (const part of [term.subject, term.predicate, term.object]) blankNodesOf(part, labels);
}

function withBlankNodesAsVariables(bgp: Algebra.Bgp, blankNodes: ReadonlySet<string>): Algebra.Bgp {
  if (blankNodes.size === 0) return bgp;
  const patterns = bgp.patterns.map((pattern) => renamePattern(pattern, blankNodes));
  return patterns.every((p, i) => p === bgp.patterns[i]) ? bgp : ({ ...bgp, patterns } as Algebra.Bgp);
}

/** The pattern with the named blank nodes, at any depth of its subject and object, as variables. */
function renamePattern<P extends Pattern>(pattern: P, blankNodes: ReadonlySet<string>): P {
  if (blankNodes.size === 0) return pattern;
  const subject = renameBlankNodes(pattern.subject, blankNodes);
  const object = renameBlankNodes(pattern.object, blankNodes);
  if (subject === pattern.subject && object === pattern.object) return pattern;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(pattern) as object) as P, pattern);
  copy.subject = subject as P['subject'];
  copy.object = object as P['object'];
  return copy;
}

function renameBlankNodes(term: RDF.Term, blankNodes: ReadonlySet<string>): RDF.Term {
  if (term.termType === 'BlankNode') return blankNodes.has(term.value) ? factory.variable(`${BLANK}${term.value}`) : term;
  if (term.termType !== 'Quad') return term;
  const subject = renameBlankNodes(term.subject, blankNodes);
  const predicate = renameBlankNodes(term.predicate, blankNodes);
  const object = renameBlankNodes(term.object, blankNodes);
  if (subject === term.subject && predicate === term.predicate && object === term.object) return term;
  return factory.quad(subject as RDF.Quad_Subject, predicate as RDF.Quad_Predicate, object as RDF.Quad_Object);
}

/** A triple term with variables written as an expression is TRIPLE() of its parts. */
function tripleExpression(expression: Algebra.TermExpression): Expression {
  const term = expression.term;
  if (!isPatternTerm(term)) return expression;
  const part = (t: RDF.Term): Expression => (isPatternTerm(t) ? tripleExpression(termExpression(t) as Algebra.TermExpression) : termExpression(t));
  return call('triple', [part(term.subject), part(term.predicate), part(term.object)]);
}

function hasVariable(term: RDF.Term): boolean {
  if (term.termType === 'Variable') return true;
  return term.termType === 'Quad' && (hasVariable(term.subject) || hasVariable(term.predicate) || hasVariable(term.object));
}

function isPatternTerm(term: RDF.Term): term is RDF.BaseQuad {
  return term.termType === 'Quad' && hasVariable(term);
}

function rewriteBgp(bgp: Algebra.Bgp): Algebra.Operation {
  if (!bgp.patterns.some((p) => isPatternTerm(p.subject) || isPatternTerm(p.object))) return bgp;
  let counter = 0;
  const pending: { variable: RDF.Variable; term: RDF.BaseQuad }[] = [];
  const patterns = bgp.patterns.map((pattern) => {
    const replace = (term: RDF.Term): RDF.Term => {
      if (!isPatternTerm(term)) return term;
      const variable = factory.variable(`${FRESH}${counter++}`);
      pending.push({ variable, term });
      return variable;
    };
    const copy = Object.assign(Object.create(Object.getPrototypeOf(pattern) as object) as Algebra.Pattern, pattern);
    copy.subject = replace(pattern.subject) as typeof pattern.subject;
    copy.object = replace(pattern.object) as typeof pattern.object;
    return copy;
  });
  const bound = new Set<string>();
  for (const p of patterns) for (const t of [p.subject, p.predicate, p.object, p.graph]) if (t.termType === 'Variable') bound.add(t.value);
  const tests: Expression[] = [];
  const binds: { variable: RDF.Variable; expression: Expression }[] = [];
  const takeApart = (whole: Expression, term: RDF.BaseQuad) => {
    tests.push(call('istriple', [whole]));
    for (const part of ['subject', 'predicate', 'object'] as const) {
      const component = term[part];
      const value = call(part, [whole]);
      if (isPatternTerm(component)) takeApart(value, component);
      else if (component.termType === 'Variable' && !bound.has(component.value)) {
        bound.add(component.value);
        binds.push({ variable: component, expression: value });
      } else tests.push(call('sameterm', [value, termExpression(component)]));
    }
  };
  for (const { variable, term } of pending) takeApart(termExpression(variable), term);
  // The type tests first, so no part is taken from what is not a triple term; each bound
  // variable's sameTerm tests come after its BIND.
  let operation: Algebra.Operation = { ...bgp, patterns } as Algebra.Bgp;
  const typeTests = tests.filter((t) => (t as Algebra.OperatorExpression).operator === 'istriple');
  const sameTerms = tests.filter((t) => (t as Algebra.OperatorExpression).operator !== 'istriple');
  operation = filter(operation, typeTests);
  for (const { variable, expression } of binds) operation = { type: 'extend', input: operation, variable, expression } as unknown as Algebra.Extend;
  return filter(operation, sameTerms);
}

function filter(input: Algebra.Operation, tests: Expression[]): Algebra.Operation {
  if (tests.length === 0) return input;
  const expression = tests.reduce((a, b) => call('&&', [a, b]));
  return { type: 'filter', input, expression } as unknown as Algebra.Filter;
}

function call(operator: string, args: Expression[]): Expression {
  return { type: 'expression', subType: 'operator', operator, args } as unknown as Expression;
}

function termExpression(term: RDF.Term): Expression {
  return { type: 'expression', subType: 'term', term } as unknown as Expression;
}
