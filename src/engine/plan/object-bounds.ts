/**
 * Bounds on a pattern's object that the filters of its basic graph pattern imply: a conjunct
 * `?o < E` (or <=, >, >=, either way round) whose E is plain arithmetic over variables bound before
 * the pattern. The pattern scan may then read only the quads whose object lies in range
 * (numeric-objects.ts); the filter itself stays in the plan, so this only ever saves work.
 *
 * E must be deterministic — the scan evaluates it apart from the filter, and both must agree —
 * hence the allow-list of term, arithmetic and sign expressions (no RAND, no EXISTS, no BNODE).
 */
import type { Algebra } from '../../sparql/index.js';
import { ARITHMETIC } from '../expression/compile-expression.js';

export interface ObjectBoundExpression {
  /** The variable being bounded. */
  variable: string;
  /** true: the variable lies below the bound (`?o < E`, `E > ?o`); false: above. */
  upper: boolean;
  bound: Algebra.Expression;
}

const FLIPPED: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** The bounds each conjunct states on a variable; conjuncts of other shapes state none. */
export function objectBoundsOf(conjuncts: readonly Algebra.Expression[]): ObjectBoundExpression[] {
  const found: ObjectBoundExpression[] = [];
  for (const conjunct of conjuncts) {
    if (conjunct.subType !== 'operator') continue;
    const { operator, args } = conjunct as Algebra.OperatorExpression;
    if (!(operator in FLIPPED) || args.length !== 2) continue;
    const [left, right] = args;
    const leftVar = variableOf(left);
    const rightVar = variableOf(right);
    if (leftVar !== undefined && isPlainArithmetic(right) && !mentions(right, leftVar)) {
      found.push({ variable: leftVar, upper: operator.startsWith('<'), bound: right });
    } else if (rightVar !== undefined && isPlainArithmetic(left) && !mentions(left, rightVar)) {
      found.push({ variable: rightVar, upper: FLIPPED[operator].startsWith('<'), bound: left });
    }
  }
  return found;
}

function variableOf(expression: Algebra.Expression): string | undefined {
  if (expression.subType !== 'term') return undefined;
  const term = (expression as Algebra.TermExpression).term;
  return term.termType === 'Variable' ? term.value : undefined;
}

function isPlainArithmetic(expression: Algebra.Expression): boolean {
  if (expression.subType === 'term') return (expression as Algebra.TermExpression).term.termType !== 'BlankNode';
  if (expression.subType !== 'operator') return false;
  const { operator, args } = expression as Algebra.OperatorExpression;
  return ARITHMETIC.has(operator.toLowerCase()) && args.every(isPlainArithmetic);
}

function mentions(expression: Algebra.Expression, variable: string): boolean {
  if (expression.subType === 'term') return variableOf(expression) === variable;
  return ((expression as Algebra.OperatorExpression).args ?? []).some((a) => mentions(a, variable));
}
