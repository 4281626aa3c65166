/**
 * The solutions of an operator evaluated on its own, materialized and hashed on some slots: the
 * build side of a hash join (IsolatedJoin) and the right side of MINUS. Seeded with the incoming
 * solution's parameter slots (the active graph of an enclosing GRAPH ?g), and kept per value of
 * them for the rest of the evaluation.
 */
import { Batch } from './batch.js';
import type { ExecContext } from './context.js';
import { RowBuffer, allBound, rowKey } from './row-buffer.js';
import type { Operator } from './operators/operator.js';

/** A row's share of the hash index: its slot in a bucket array and, at worst, a map entry and a bucket array of its own. */
const INDEX_ENTRY_BYTES = 96;

export class SolutionTable {
  private readonly index = new Map<number | string, number[]>();

  private constructor(
    readonly rows: RowBuffer,
    private readonly keySlots: number[],
  ) {
    const width = rows.width;
    if (keySlots.length === 0) return;
    for (let i = 0; i < rows.length; i++) {
      const key = rowKey(rows.data, i * width, keySlots);
      const list = this.index.get(key);
      if (list) list.push(i);
      else this.index.set(key, [i]);
    }
  }

  /**
   * The table of `op` for the parameter values of one incoming solution, evaluated at most once
   * per evaluation and parameter values (cached on the context, keyed by the owner).
   */
  static for(owner: object, op: Operator, params: number[], keySlots: number[], data: Float64Array, offset: number, ctx: ExecContext): SolutionTable {
    let byParams = ctx.memo.get(owner) as Map<string, SolutionTable> | undefined;
    if (!byParams) {
      byParams = new Map();
      ctx.memo.set(owner, byParams);
    }
    const paramKey = SolutionTable.paramKey(params, data, offset);
    let table = byParams.get(paramKey);
    if (!table) {
      table = SolutionTable.build(op, params, keySlots, data, offset, ctx, Infinity)!;
      byParams.set(paramKey, table);
    }
    return table;
  }

  /**
   * The table of `op` for the parameter values of one incoming solution, not cached; undefined
   * (and its memory given back) when `op` has more than `maxRows` solutions.
   */
  static build(op: Operator, params: readonly number[], keySlots: number[], data: Float64Array, offset: number, ctx: ExecContext, maxRows: number): SolutionTable | undefined {
    const seed = new Batch(ctx.width, 1);
    seed.length = 1;
    for (const s of params) seed.data[s] = data[offset + s];
    const rows = new RowBuffer(ctx.width);
    // The buffer reserves memory as it grows beyond its first allocation.
    const unreserved = rows.data.length;
    for (const batch of op.execute([seed], ctx)) {
      rows.pushBatch(batch, ctx);
      if (rows.length > maxRows) {
        // Leaving the loop closes op's iterators.
        ctx.release((rows.data.length - unreserved) * 8);
        return undefined;
      }
    }
    // The rows reserved their own memory; the hash index on them costs about as much again.
    if (keySlots.length > 0) ctx.reserve(rows.length * INDEX_ENTRY_BYTES);
    return new SolutionTable(rows, keySlots);
  }

  /** The parameter values of an incoming solution, as a key of the tables made for them. */
  static paramKey(params: readonly number[], data: Float64Array, offset: number): string {
    return params.map((s) => data[offset + s]).join(',');
  }

  /**
   * Row indexes that may match a solution: those with its key when it binds every key slot,
   * else null (meaning every row is a candidate).
   */
  candidates(data: Float64Array, offset: number): number[] | null {
    if (this.keySlots.length === 0 || !allBound(data, offset, this.keySlots)) return null;
    return this.index.get(rowKey(data, offset, this.keySlots)) ?? [];
  }
}
