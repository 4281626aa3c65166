/**
 * Solutions that agree on every slot still needed, merged into one that counts them (eager
 * aggregation). Below a grouping that only counts, a chain of joins multiplies solutions whose
 * variables nothing after reads: issue 23's a17 follows 38,667 reviews of one country's reviewers
 * to 956,763 (review, offer) pairs only to count them per vendor country. Merged on the product
 * once the review is no longer needed, and on the vendor once the offer is not, the chain carries
 * some 10,000 and then a few hundred solutions, each with its count in a hidden weight slot; the
 * Group adds the weights (group.ts). The planner puts a step of this kind where a variable stops
 * being needed and many solutions are expected (plan/counted-rows-rule.ts).
 *
 * A merged solution keeps the first one's values in the slots nobody reads any more, so every slot
 * the steps before bound stays bound. Blocking, as the Group above it is anyway. Where solutions
 * hardly repeat, against the planner's estimate (most are distinct after the first few thousand,
 * and far more than expected), it stops merging and passes the rest on as they come: the weights
 * add up the same either way.
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { hashOf } from '../id-tuple-set.js';
import { RowBuffer } from '../row-buffer.js';
import { Operator, slotList } from './operator.js';

export class CountedRows extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain = new Set<number>();

  constructor(
    /** The slots a solution must agree on to be merged: those still read after this step. */
    readonly keySlots: readonly number[],
    /** Where a solution's count is kept: 0 (never merged) stands for 1. */
    readonly weightSlot: number,
  ) {
    super();
    this.maybe = new Set([weightSlot]);
  }

  describe(slotNames: readonly string[]): string {
    return `solutions alike on ${this.keySlots.length ? slotList([...this.keySlots], slotNames) : 'nothing'} counted as one`;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const merged = new MergedRows(width, this.keySlots, this.weightSlot);
    let seen = 0;
    let merging = true;
    for (const batch of input) {
      if (!merging) {
        yield batch;
        continue;
      }
      ctx.checkpoint();
      for (let r = 0; r < batch.length; r++) merged.add(batch.data, r * width, ctx);
      seen += batch.length;
      if (seen >= SAMPLED_ROWS && merged.length > seen * MOSTLY_DISTINCT && !(merged.length <= this.estimate * MISJUDGED)) {
        merging = false;
        yield* merged.emit(ctx);
      }
    }
    if (merging) yield* merged.emit(ctx);
  }
}

/** Solutions read before deciding whether merging pays. */
const SAMPLED_ROWS = 4096;
/** Merged solutions per solution read above which merging stops... */
const MOSTLY_DISTINCT = 0.75;
/**
 * ...once they are also this many times the merged solutions the planner expects (the estimate):
 * the first few thousand solutions repeat less than all of them do (BSBM 10k's a17: 3,400 products
 * in the first 4,096 reviews, 9,900 in all 38,667).
 */
const MISJUDGED = 4;

/** The merged solutions, and an open-addressing table of their indexes by their key slots. */
class MergedRows {
  readonly rows: RowBuffer;
  private table = new Int32Array(1024).fill(-1);
  private mask = 1023;

  constructor(
    private readonly width: number,
    private readonly keySlots: readonly number[],
    private readonly weightSlot: number,
  ) {
    this.rows = new RowBuffer(width, 256);
  }

  get length(): number {
    return this.rows.length;
  }

  add(data: Float64Array, offset: number, ctx: ExecContext): void {
    const weight = data[offset + this.weightSlot] || 1;
    const keySlots = this.keySlots;
    const width = this.width;
    for (let at = hashOf(data, offset, keySlots) & this.mask; ; at = (at + 1) & this.mask) {
      const index = this.table[at];
      if (index < 0) {
        const row = this.rows.push(data, offset, ctx);
        this.rows.data[row * width + this.weightSlot] = weight;
        this.table[at] = row;
        if (this.rows.length * 2 > this.table.length) this.grow(ctx);
        return;
      }
      const rows = this.rows.data;
      const base = index * width;
      let same = true;
      for (let i = 0; same && i < keySlots.length; i++) same = rows[base + keySlots[i]] === data[offset + keySlots[i]];
      if (same) {
        rows[base + this.weightSlot] += weight;
        return;
      }
    }
  }

  private grow(ctx: ExecContext): void {
    const table = new Int32Array(this.table.length * 2).fill(-1);
    ctx.reserve(table.byteLength - this.table.byteLength);
    const mask = table.length - 1;
    const { data } = this.rows;
    for (let row = 0; row < this.rows.length; row++) {
      let at = hashOf(data, row * this.width, this.keySlots) & mask;
      while (table[at] >= 0) at = (at + 1) & mask;
      table[at] = row;
    }
    this.table = table;
    this.mask = mask;
  }

  *emit(ctx: ExecContext): Iterable<Batch> {
    const out = new BatchWriter(this.width, ctx.batchPool());
    const { data } = this.rows;
    for (let row = 0; row < this.rows.length; row++) {
      out.target().appendRow(data, row * this.width);
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}
