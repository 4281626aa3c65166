/**
 * Which filters the planner turns into anti-joins and semi-joins (operators/anti-join.ts): the
 * conjuncts FILTER NOT EXISTS { P } and FILTER EXISTS { P } of a group, and OPTIONAL { P } under a
 * conjunct FILTER(!BOUND(?x)) where only P binds ?x.
 *
 * EXISTS substitutes the solution into P (SPARQL 1.1 section 18.6); P evaluated on its own, its
 * solutions then compared with the solution's, is the same only when every variable of P that the
 * solution may bind is one P binds in every solution. A variable P only filters on, binds in an
 * OPTIONAL, a UNION branch or a BIND, or names in a nested EXISTS, would be read from the solution
 * by substitution but be unbound in P on its own: such a P keeps its per-solution evaluation.
 * Variables are compared by name, so a sub-SELECT's own variable that shares a name with the
 * solution's counts too (a fallback, never a wrong answer).
 */
import type { Algebra } from '../../sparql/index.js';
import type { Scope } from './scope.js';

/** An OPTIONAL under FILTER(!BOUND(?x)): the variable, for the planner to try an anti-join. */
export interface LeftJoinUnderUnboundTest extends Algebra.LeftJoin {
  unboundTest: string;
}

/** The EXISTS or NOT EXISTS a conjunct is, if it is one. */
export function existenceOf(expression: Algebra.Expression): Algebra.ExistenceExpression | undefined {
  return expression.subType === 'existence' ? (expression as Algebra.ExistenceExpression) : undefined;
}

/** The variable of a conjunct !BOUND(?x), if it is one. */
export function unboundTestOf(expression: Algebra.Expression): string | undefined {
  if (expression.subType !== 'operator') return undefined;
  const not = expression as Algebra.OperatorExpression;
  if (not.operator !== '!' || not.args.length !== 1) return undefined;
  const bound = not.args[0] as Algebra.Expression;
  if (bound.subType !== 'operator' || (bound as Algebra.OperatorExpression).operator.toLowerCase() !== 'bound') return undefined;
  const argument = (bound as Algebra.OperatorExpression).args[0] as Algebra.Expression | undefined;
  if (argument?.subType !== 'term') return undefined;
  const term = (argument as Algebra.TermExpression).term;
  return term.termType === 'Variable' ? term.value : undefined;
}

/**
 * Whether P, evaluated on its own, may stand for P with a solution substituted: every variable of
 * P that the solution may bind (`outer`) is bound in every solution of P (`certain`), parameter
 * slots (the active graph) aside.
 */
export function independentOfSolution(
  pattern: Algebra.Operation,
  scope: Scope,
  outer: ReadonlySet<number>,
  certain: ReadonlySet<number>,
  params: readonly number[],
): boolean {
  for (const name of variableNames(pattern)) {
    if (!scope.has(name)) continue;
    const slot = scope.slot(name);
    if (outer.has(slot) && !certain.has(slot) && !params.includes(slot)) return false;
  }
  return true;
}

/**
 * The variables named in the patterns of an expression's EXISTS: substitution reads them from the
 * solution, so they count as read by the expression (a group whose FILTER reads a variable it does
 * not bind is evaluated on its own, not with the bindings of the patterns before it).
 */
export function existenceVariables(expression: Algebra.Expression, names = new Set<string>()): Set<string> {
  switch (expression.subType) {
    case 'existence':
      return variableNames((expression as Algebra.ExistenceExpression).input, names);
    case 'operator':
      for (const a of (expression as Algebra.OperatorExpression).args) existenceVariables(a as Algebra.Expression, names);
      return names;
    case 'named':
      for (const a of (expression as Algebra.NamedExpression).args) existenceVariables(a, names);
      return names;
    default:
      return names;
  }
}

/** Every variable named anywhere in the algebra: patterns, expressions, nested EXISTS, VALUES, GRAPH. */
export function variableNames(node: unknown, names = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return names;
  if (Array.isArray(node)) {
    for (const n of node) variableNames(n, names);
    return names;
  }
  const n = node as Record<string, unknown>;
  if (n.termType === 'Variable') names.add(n.value as string);
  else if (n.termType === 'Quad') for (const t of [n.subject, n.predicate, n.object, n.graph]) variableNames(t, names);
  else if (n.termType === undefined) for (const v of Object.values(n)) variableNames(v, names);
  return names;
}
