/**
 * A physical operator extends solutions: every row that flows in comes out joined with this
 * operator's compatible solutions (zero or more rows each). A query runs its root operator on the
 * single empty solution. Operators that cannot accept arbitrary incoming bindings are wrapped by
 * the planner in an IsolatedJoin, which evaluates them on their own and joins afterwards.
 */
import type { Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';

export interface PlanStats {
  rows: number;
  timeMs: number;
}

export abstract class Operator {
  /** Slots this operator may bind. */
  abstract readonly maybe: ReadonlySet<number>;
  /** Slots bound in every solution this operator produces. */
  abstract readonly certain: ReadonlySet<number>;
  /** Estimated number of solutions (for join ordering and explain); NaN until the planner sets it. */
  declare estimate: number;

  abstract execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch>;

  /** Details for explain output (the operator's name is its class): the pattern, the join variables. */
  abstract describe(slotNames: readonly string[]): string;

  children(): Operator[] {
    return [];
  }

  /**
   * Whether the operator has a solution compatible with the one at `data[offset]` (what EXISTS
   * asks), for operators that can tell without evaluating; the others leave it undefined and are
   * evaluated until their first solution.
   */
  anyMatch?(data: Float64Array, offset: number, ctx: ExecContext): boolean;
}

// The default lives on the prototype rather than in a field: a field initializer of the base class
// defines the property on every kind of operator, a megamorphic definition that cost more than the
// rest of an operator's construction (planning makes a dozen operators per query).
(Operator.prototype as { estimate: number }).estimate = Number.NaN;

/** Slots as the query names them, for explain output. */
export function slotList(slots: Iterable<number>, slotNames: readonly string[]): string {
  return [...slots].map((s) => slotLabel(s, slotNames)).join(' ');
}

export function slotLabel(slot: number, slotNames: readonly string[]): string {
  const name = slotNames[slot] ?? String(slot);
  return name.startsWith('_:') || name.startsWith('#') ? name : `?${name}`;
}

export function union<T>(...sets: Iterable<T>[]): Set<T> {
  const out = new Set<T>();
  for (const s of sets) for (const x of s) out.add(x);
  return out;
}

export function intersection<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  const out = new Set<T>();
  for (const x of a) if (b.has(x)) out.add(x);
  return out;
}
