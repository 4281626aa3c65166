/** VALUES: inline solutions, joined into each incoming solution. */
import { BatchWriter, compatible, mergeInto, type Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import type { Term } from '../../rdf/index.js';
import { Operator } from './operator.js';

export class Values extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  /** rows: per solution, per slot of `slots`, a term or undefined (UNDEF). */
  constructor(
    readonly slots: number[],
    readonly rows: (Term | undefined)[][],
  ) {
    super();
    this.maybe = new Set(slots);
    this.certain = new Set(slots.filter((_, i) => rows.every((r) => r[i] !== undefined)));
    this.estimate = rows.length;
  }

  describe(): string {
    return `${this.rows.length} rows`;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    // The table is encoded once per evaluation, as full-width rows.
    const table = new Float64Array(Math.max(1, width) * this.rows.length);
    ctx.reserve(table.byteLength);
    this.rows.forEach((r, i) => r.forEach((t, j) => (table[i * width + this.slots[j]] = t ? ctx.idOf(t) : 0)));
    const out = new BatchWriter(width);
    for (const batch of input) {
      for (let row = 0; row < batch.length; row++) {
        const offset = row * width;
        for (let i = 0; i < this.rows.length; i++) {
          if (!compatible(batch.data, offset, table, i * width, this.slots)) continue;
          const target = out.target();
          const r = target.appendCopy(batch, row);
          mergeInto(target.data, r * width, table, i * width, this.slots);
        }
        if (out.pending) {
          ctx.checkpoint();
          yield* out.drainFull();
        }
      }
    }
    yield* out.flush();
  }
}
