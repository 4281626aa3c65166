/**
 * MINUS: drops each incoming solution that is compatible with, and shares a bound variable
 * with, some solution of the right side. The right side is evaluated on its own, once.
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { SolutionTable } from '../solution-table.js';
import { Operator, intersection, slotList } from './operator.js';

export class Minus extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;
  private readonly shared: number[];
  private readonly keySlots: number[];

  constructor(
    readonly left: Operator,
    readonly right: Operator,
    /** Slots the right side is evaluated with (the active graph); they do not count as shared. */
    readonly params: number[] = [],
  ) {
    super();
    this.maybe = left.maybe;
    this.certain = left.certain;
    const notParam = (s: number) => !params.includes(s);
    this.shared = [...intersection(left.maybe, right.maybe)].filter(notParam);
    this.keySlots = [...intersection(left.certain, right.certain)].filter(notParam);
    this.estimate = left.estimate;
  }

  describe(slotNames: readonly string[]): string {
    const keys = this.keySlots.length ? `, hashed on ${slotList(this.keySlots, slotNames)}` : '';
    return `drops the left solutions compatible with a right one${keys}`;
  }

  override children(): Operator[] {
    return [this.left, this.right];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const source = this.left.execute(input, ctx);
    if (this.shared.length === 0) {
      // No variable in common: MINUS removes nothing.
      yield* source;
      return;
    }
    const out = new BatchWriter(width, ctx.batchPool());
    for (const batch of source) {
      for (let r = 0; r < batch.length; r++) {
        const offset = r * width;
        const table = SolutionTable.for(this, this.right, this.params, this.keySlots, batch.data, offset, ctx);
        const keyed = table.keyed(batch.data, offset);
        let removed = false;
        for (let i = table.first(batch.data, offset, keyed); i >= 0 && !removed; i = table.after(i, keyed)) {
          removed = this.excludes(batch.data, offset, table.rows.data, i * width);
        }
        if (!removed) out.target().appendCopy(batch, r);
      }
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }

  /** Compatible, with at least one shared variable bound on both sides. */
  private excludes(a: Float64Array, ai: number, b: Float64Array, bi: number): boolean {
    let overlap = false;
    for (const s of this.shared) {
      const x = a[ai + s];
      const y = b[bi + s];
      if (x === 0 || y === 0) continue;
      if (x !== y) return false;
      overlap = true;
    }
    return overlap;
  }
}
