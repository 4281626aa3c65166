/**
 * Triple-term patterns with variables inside (`?r rdf:reifies <<( ?s :p ?o )>>`). The store matches
 * a constant triple term like any other term, but a triple term with variables is a pattern of its
 * own. Each such term in a basic graph pattern becomes a fresh variable, bound to the stored triple
 * term, which is then taken apart with the SPARQL 1.2 functions:
 *   isTRIPLE(?t) for every (nested) triple term, sameTerm(SUBJECT(?t), c) for a constant part,
 *   BIND(SUBJECT(?t) AS ?v) for a variable met first there, sameTerm(SUBJECT(?t), ?v) after that.
 * Only BGPs are rewritten: templates (CONSTRUCT, INSERT, DELETE) keep their triple terms, which are
 * instantiated per solution.
 */
import type * as RDF from '@rdfjs/types';
import { factory } from '../rdf/index.js';
import type { Algebra } from '@traqula/algebra-transformations-1-2';

/** Prefix of the fresh variables: not a name a query can write (SPARQL names cannot hold '.'). */
const FRESH = 'tt.';

type Expression = Algebra.Expression;

/** Rewrites every BGP of the algebra (in place where it holds, by returning a new tree otherwise). */
export function rewriteTripleTermPatterns<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item) => rewriteTripleTermPatterns(item)) as T;
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  if (record.termType !== undefined) return node;
  if (record.type === 'bgp') return rewriteBgp(record as unknown as Algebra.Bgp) as T;
  let changed = false;
  const copy: Record<string, unknown> = Object.create(Object.getPrototypeOf(record) as object | null) as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    // Templates stay as written.
    const value = key === 'template' || key === 'delete' || key === 'insert' ? record[key] : rewriteTripleTermPatterns(record[key]);
    if (value !== record[key]) changed = true;
    copy[key] = value;
  }
  return changed ? (copy as T) : node;
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
