/**
 * Filter push-down, on the algebra. FILTER(A && B) over a group is split into its conjuncts, and a
 * conjunct whose variables are all bound by one basic graph pattern of the group moves into that
 * pattern, where the planner evaluates it right after the scan that binds its last variable.
 *
 * Why that is the same answer: a conjunct reads only variables that the pattern binds in every
 * solution, and joins, OPTIONALs and further filters above it only extend or drop those solutions,
 * never change a bound value. So dropping a solution early drops exactly the solutions it would
 * have been the origin of, which the filter would have dropped at the top. The path down follows
 * only such operators: join operands, the left side of OPTIONAL, MINUS and nested filters, and the
 * branches of a UNION: a filter over a union is the union of the filtered branches, so a conjunct
 * leaves the top only when every branch took it (a branch that cannot, say one that does not bind
 * its variable, leaves it at the top, where the solutions of the others pass it again).
 * Conjuncts with EXISTS stay where they are (EXISTS sees the whole solution of the group) and so do
 * those with BNODE() (its labels are scoped to one solution of the group).
 */
import type { Algebra } from '../../sparql/index.js';

/** A basic graph pattern carrying the conjuncts pushed into it. */
export interface BgpWithFilters extends Algebra.Bgp {
  filters?: Algebra.Expression[];
}

/** The group with the conjuncts pushed down, and the conjuncts that could not be. */
export function pushDownFilter(node: Algebra.Filter): { input: Algebra.Operation; rest: Algebra.Expression[] } {
  const conjuncts = splitConjunction(node.expression);
  const pending = conjuncts.map((expression) => ({ expression, variables: pushableVariables(expression) }));
  const movable = pending.filter((c) => c.variables !== null) as Conjunct[];
  if (movable.length === 0) return { input: node.input, rest: conjuncts };
  const placed = new Set<Conjunct>();
  const input = pushInto(node.input, movable, placed);
  return { input, rest: conjuncts.filter((expression) => !movable.some((c) => c.expression === expression && placed.has(c))) };
}

interface Conjunct {
  expression: Algebra.Expression;
  variables: Set<string>;
}

function pushInto(node: Algebra.Operation, conjuncts: Conjunct[], placed: Set<Conjunct>): Algebra.Operation {
  const open = conjuncts.filter((c) => !placed.has(c));
  if (open.length === 0) return node;
  switch (node.type) {
    case 'bgp': {
      const bgp = node as BgpWithFilters;
      // An empty pattern has no scan to follow: its filter stays a filter.
      if (bgp.patterns.length === 0) return node;
      const bound = patternVariables(bgp.patterns);
      const here = open.filter((c) => [...c.variables].every((v) => bound.has(v)));
      if (here.length === 0) return node;
      for (const c of here) placed.add(c);
      return { ...bgp, filters: [...(bgp.filters ?? []), ...here.map((c) => c.expression)] } as BgpWithFilters;
    }
    case 'join': {
      const join = node as Algebra.Join;
      const inputs = join.input.map((child) => pushInto(child, conjuncts, placed));
      return inputs.every((child, i) => child === join.input[i]) ? node : { ...join, input: inputs };
    }
    case 'leftjoin':
    case 'minus': {
      const pair = node as Algebra.LeftJoin | Algebra.Minus;
      const left = pushInto(pair.input[0], conjuncts, placed);
      return left === pair.input[0] ? node : ({ ...pair, input: [left, pair.input[1]] } as typeof pair);
    }
    case 'union': {
      const union = node as Algebra.Union;
      const takenBy = union.input.map(() => new Set<Conjunct>());
      const inputs = union.input.map((branch, i) => pushInto(branch, open, takenBy[i]!));
      for (const c of open) if (takenBy.every((taken) => taken.has(c))) placed.add(c);
      return inputs.every((branch, i) => branch === union.input[i]) ? node : { ...union, input: inputs };
    }
    case 'filter': {
      const filter = node as Algebra.Filter;
      const input = pushInto(filter.input, conjuncts, placed);
      return input === filter.input ? node : { ...filter, input };
    }
    default:
      return node;
  }
}

function splitConjunction(expression: Algebra.Expression): Algebra.Expression[] {
  if (expression.subType === 'operator' && (expression as Algebra.OperatorExpression).operator === '&&') {
    return (expression as Algebra.OperatorExpression).args.flatMap((a) => splitConjunction(a as Algebra.Expression));
  }
  return [expression];
}

/** The variables an expression reads, or null when it must not move (EXISTS, BNODE). */
function pushableVariables(expression: Algebra.Expression): Set<string> | null {
  const variables = new Set<string>();
  let movable = true;
  const visit = (e: Algebra.Expression): void => {
    switch (e.subType) {
      case 'term': {
        const term = (e as Algebra.TermExpression).term;
        if (term.termType === 'Variable') variables.add(term.value);
        return;
      }
      case 'operator': {
        const op = e as Algebra.OperatorExpression;
        if (op.operator.toLowerCase() === 'bnode') movable = false;
        for (const a of op.args) visit(a as Algebra.Expression);
        return;
      }
      case 'named':
        for (const a of (e as Algebra.NamedExpression).args) visit(a);
        return;
      default:
        movable = false;
    }
  };
  visit(expression);
  return movable ? variables : null;
}

function patternVariables(patterns: Algebra.Pattern[]): Set<string> {
  const variables = new Set<string>();
  for (const p of patterns) {
    for (const t of [p.subject, p.predicate, p.object, p.graph]) if (t.termType === 'Variable') variables.add(t.value);
  }
  return variables;
}
