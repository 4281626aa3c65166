/**
 * The solutions of an operator evaluated on its own, materialized and hashed on some slots: the
 * build side of a hash join (IsolatedJoin) and the right side of MINUS. Seeded with the incoming
 * solution's parameter slots (the active graph of an enclosing GRAPH ?g), and kept per value of
 * them for the rest of the evaluation.
 */
import { Batch } from './batch.js';
import type { ExecContext } from './exec-context.js';
import { RowBuffer, allBound, rowKey } from './row-buffer.js';
import type { Operator } from './operators/operator.js';
import { IdHashIndex } from './id-hash-index.js';

/** A row's share of the hash index: its link in the chain array and, at worst, a map entry of its own. */
const INDEX_ENTRY_BYTES = 64;

/**
 * Rows with equal keys are chained (a map from each key to its first row, an array from each row
 * to the next with its key): no array per key, which cost more than the look-ups on large tables.
 */
export class SolutionTable {
  /** The first row of each key: by ID for one key slot, else by the slots' values joined. */
  private readonly idHeads?: IdHashIndex;
  private readonly heads?: Map<string, number>;
  private readonly chain: Int32Array;

  private constructor(
    readonly rows: RowBuffer,
    private readonly keySlots: number[],
  ) {
    const width = rows.width;
    this.chain = new Int32Array(keySlots.length === 0 ? 0 : rows.length);
    if (keySlots.length === 0) return;
    // From the last row back, so that each chain runs in the rows' order.
    if (keySlots.length === 1) {
      const heads = (this.idHeads = new IdHashIndex(rows.length));
      const slot = keySlots[0];
      for (let i = rows.length - 1; i >= 0; i--) {
        const id = rows.data[i * width + slot];
        if (id === 0) continue;
        this.chain[i] = heads.get(id);
        heads.set(id, i);
      }
      return;
    }
    const heads = (this.heads = new Map());
    for (let i = rows.length - 1; i >= 0; i--) {
      const key = rowKey(rows.data, i * width, keySlots) as string;
      this.chain[i] = heads.get(key) ?? -1;
      heads.set(key, i);
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
      table = SolutionTable.build(op, params, keySlots, data, offset, ctx);
      byParams.set(paramKey, table);
    }
    return table;
  }

  /** The table of `op` for the parameter values of one incoming solution, not cached. */
  static build(op: Operator, params: readonly number[], keySlots: number[], data: Float64Array, offset: number, ctx: ExecContext): SolutionTable {
    const rows = new RowBuffer(ctx.width);
    for (const batch of op.execute([SolutionTable.seed(params, data, offset, ctx)], ctx)) rows.pushBatch(batch, ctx);
    return SolutionTable.of(rows, keySlots, ctx);
  }

  /** The solution `op` is evaluated on: the parameter values of an incoming one. */
  static seed(params: readonly number[], data: Float64Array, offset: number, ctx: ExecContext): Batch {
    const seed = new Batch(ctx.width, 1);
    seed.length = 1;
    for (const s of params) seed.data[s] = data[offset + s];
    return seed;
  }

  /** A table of rows already materialized (they reserved their own memory as they grew). */
  static of(rows: RowBuffer, keySlots: number[], ctx: ExecContext): SolutionTable {
    // The hash index on the rows costs about as much again.
    if (keySlots.length > 0) ctx.reserve(rows.length * INDEX_ENTRY_BYTES);
    return new SolutionTable(rows, keySlots);
  }

  /** The parameter values of an incoming solution, as a key of the tables made for them. */
  static paramKey(params: readonly number[], data: Float64Array, offset: number): string {
    if (params.length === 0) return '';
    return params.map((s) => data[offset + s]).join(',');
  }

  /**
   * Whether the candidates of a solution are the rows with its key: it binds every key slot.
   * Otherwise every row is one.
   */
  keyed(data: Float64Array, offset: number): boolean {
    return this.keySlots.length > 0 && allBound(data, offset, this.keySlots);
  }

  /**
   * The first row that may match a solution, -1 for none; `keyed` is keyed(data, offset). The
   * others follow with after():
   * `for (let i = table.first(data, offset, keyed); i >= 0; i = table.after(i, keyed))`.
   */
  first(data: Float64Array, offset: number, keyed: boolean): number {
    if (!keyed) return this.rows.length > 0 ? 0 : -1;
    if (this.idHeads) return this.idHeads.get(data[offset + this.keySlots[0]]);
    return this.heads!.get(rowKey(data, offset, this.keySlots) as string) ?? -1;
  }

  /** The candidate after row i (-1 at the end). */
  after(i: number, keyed: boolean): number {
    if (keyed) return this.chain[i];
    return i + 1 < this.rows.length ? i + 1 : -1;
  }
}
