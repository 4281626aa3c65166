/**
 * The conjuncts of a basic graph pattern's filters that equate two of its variables:
 * `?a = ?b`, `?b = ?a`, `sameTerm(?a, ?b)`. The planner turns each into a join (equality-bind.ts):
 * the pattern that binds the second variable looks up the first one's term.
 */
import type { Algebra } from '../../sparql/index.js';

export interface VariableEquality {
  a: string;
  b: string;
  /** sameTerm rather than `=`: term identity for every kind of term. */
  sameTerm: boolean;
}

/** An equality of two slots, in the form the join order and the plan take it. */
export interface SlotEquality {
  a: number;
  b: number;
  sameTerm: boolean;
}

export function variableEqualities(conjuncts: readonly Algebra.Expression[]): VariableEquality[] {
  const found: VariableEquality[] = [];
  for (const conjunct of conjuncts) {
    if (conjunct.subType !== 'operator') continue;
    const { operator, args } = conjunct as Algebra.OperatorExpression;
    const op = operator.toLowerCase();
    if ((op !== '=' && op !== 'sameterm') || args.length !== 2) continue;
    const [a, b] = args.map(variableName);
    if (a !== undefined && b !== undefined && a !== b) found.push({ a, b, sameTerm: op === 'sameterm' });
  }
  return found;
}

function variableName(expression: Algebra.Expression): string | undefined {
  if (expression.subType !== 'term') return undefined;
  const term = (expression as Algebra.TermExpression).term;
  return term.termType === 'Variable' ? term.value : undefined;
}

/** Adds `slot` and the slots equated with it, through chains of equalities (?a = ?b && ?b = ?c). */
export function addWithEqualPartners(bound: Set<number>, slot: number, equalities: readonly SlotEquality[]): void {
  const pending = [slot];
  while (pending.length > 0) {
    const s = pending.pop()!;
    if (bound.has(s) && s !== slot) continue;
    bound.add(s);
    for (const e of equalities) {
      if (e.a === s && !bound.has(e.b)) pending.push(e.b);
      else if (e.b === s && !bound.has(e.a)) pending.push(e.a);
    }
  }
}
