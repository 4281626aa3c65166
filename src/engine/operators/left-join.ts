/**
 * OPTIONAL: each solution of the left side, extended by the right side's compatible solutions
 * that pass the OPTIONAL's filter, or kept as it is when none does. The right side runs on a
 * whole batch of left solutions at once; a hidden provenance slot tells which left solution each
 * right solution extends.
 */
import { type Batch, BatchWriter, pooledCapacity } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { type CompiledExpression, passes } from '../expression/compile-expression.js';
import { Operator, union } from './operator.js';

export class LeftJoin extends Operator {
  readonly maybe: Set<number>;
  readonly certain: ReadonlySet<number>;

  constructor(
    readonly left: Operator,
    readonly right: Operator,
    readonly condition: CompiledExpression | null,
    /** A slot of the provenance tag; no other operator uses it. */
    readonly tagSlot: number,
  ) {
    super();
    this.maybe = union(left.maybe, right.maybe);
    this.certain = left.certain;
    this.estimate = left.estimate;
  }

  describe(): string {
    return this.condition ? 'OPTIONAL with a filter' : 'OPTIONAL';
  }

  override children(): Operator[] {
    return [this.left, this.right, ...(this.condition?.subPlans ?? [])];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const tag = this.tagSlot;
    const pool = ctx.batchPool();
    const out = new BatchWriter(width, pool);
    for (const leftBatch of this.left.execute(input, ctx)) {
      const tagged = pool.take(pooledCapacity(leftBatch.length));
      tagged.length = leftBatch.length;
      tagged.data.set(leftBatch.data.subarray(0, leftBatch.length * width));
      for (let r = 0; r < tagged.length; r++) tagged.data[r * width + tag] = r + 1;
      const matched = new Uint8Array(tagged.length);
      for (const rightBatch of this.right.execute([tagged], ctx)) {
        const data = rightBatch.data;
        for (let r = 0; r < rightBatch.length; r++) {
          const offset = r * width;
          if (this.condition) {
            if (this.condition.usesBnode) ctx.functions.bnodes = new Map();
            if (!passes(this.condition.evaluate, data, offset, ctx)) continue;
          }
          matched[data[offset + tag] - 1] = 1;
          const target = out.target();
          const t = target.appendCopy(rightBatch, r);
          target.data[t * width + tag] = 0;
        }
        if (out.pending) {
          ctx.checkpoint();
          yield* out.drainFull();
        }
      }
      // The right side has run to its end: nothing reads the tagged copy any more.
      pool.release(tagged);
      for (let r = 0; r < leftBatch.length; r++) if (!matched[r]) out.target().appendCopy(leftBatch, r);
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}
