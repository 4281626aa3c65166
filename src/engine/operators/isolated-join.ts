/**
 * Joins incoming solutions with an operator evaluated on its own: the SPARQL join of two
 * independently evaluated patterns. Used where passing bindings into the operator would change
 * its meaning (sub-SELECTs with modifiers, FILTER scope, BIND, OPTIONAL on shared variables).
 * The operator's solutions are materialized once (per value of the parameter slots, e.g. the graph
 * of an enclosing GRAPH ?g) and hashed on the slots both sides always bind.
 */
import { Batch, BatchWriter, compatible, mergeInto } from '../batch.js';
import type { ExecContext } from '../context.js';
import { RowBuffer, allBound, rowKey } from '../row-buffer.js';
import { Operator } from './operator.js';

interface Table {
  rows: RowBuffer;
  index: Map<number | string, number[]>;
}

export class IsolatedJoin extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;
  private readonly mergeSlots: number[];

  constructor(
    readonly child: Operator,
    /** Slots whose incoming values the child is evaluated with (the graph of GRAPH ?g). */
    readonly paramSlots: number[],
    /** Slots to hash on: always bound by the child and possibly bound by the input. */
    readonly keySlots: number[],
  ) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.mergeSlots = [...child.maybe];
    this.estimate = child.estimate;
  }

  describe(): string {
    return `HashJoin (isolated${this.keySlots.length ? `, on ${this.keySlots.length} slot(s)` : ', cross'})`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const out = new BatchWriter(width);
    for (const batch of input) {
      ctx.checkpoint();
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        const offset = row * width;
        const table = this.tableFor(data, offset, ctx);
        const candidates =
          this.keySlots.length > 0 && allBound(data, offset, this.keySlots)
            ? table.index.get(rowKey(data, offset, this.keySlots)) ?? []
            : null;
        const count = candidates ? candidates.length : table.rows.length;
        const tdata = table.rows.data;
        for (let i = 0; i < count; i++) {
          const c = candidates ? candidates[i] : i;
          const coffset = c * width;
          if (!compatible(data, offset, tdata, coffset, this.mergeSlots)) continue;
          const target = out.target();
          const r = target.appendCopy(batch, row);
          mergeInto(target.data, r * width, tdata, coffset, this.mergeSlots);
        }
        if (out.pending) {
          ctx.checkpoint();
          yield* out.drainFull();
        }
      }
    }
    yield* out.flush();
  }

  private tableFor(data: Float64Array, offset: number, ctx: ExecContext): Table {
    let byParams = ctx.memo.get(this) as Map<string, Table> | undefined;
    if (!byParams) {
      byParams = new Map();
      ctx.memo.set(this, byParams);
    }
    const paramKey = this.paramSlots.map((s) => data[offset + s]).join(',');
    let table = byParams.get(paramKey);
    if (!table) {
      table = this.materialize(data, offset, ctx);
      byParams.set(paramKey, table);
    }
    return table;
  }

  private materialize(data: Float64Array, offset: number, ctx: ExecContext): Table {
    const width = ctx.width;
    const seed = new Batch(width, 1);
    seed.length = 1;
    for (const s of this.paramSlots) seed.data[s] = data[offset + s];
    const rows = new RowBuffer(width);
    for (const batch of this.child.execute([seed], ctx)) rows.pushBatch(batch, ctx);
    const index = new Map<number | string, number[]>();
    if (this.keySlots.length > 0) {
      for (let i = 0; i < rows.length; i++) {
        const key = rowKey(rows.data, i * width, this.keySlots);
        const list = index.get(key);
        if (list) list.push(i);
        else index.set(key, [i]);
      }
    }
    return { rows, index };
  }
}

