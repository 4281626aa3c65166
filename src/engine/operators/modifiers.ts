/**
 * Solution modifiers: ORDER BY, DISTINCT / REDUCED, OFFSET / LIMIT, and projection. They see the
 * whole solution sequence, so the planner only pipelines them at the root of a (sub-)query.
 */
import { IdTupleSet } from '../id-tuple-set.js';
import { Batch, BATCH_SIZE, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { RowBuffer } from '../row-buffer.js';
import { type CompiledExpression, valueOrUndefined } from '../expression/compile-expression.js';
import { orderByCompare } from '../functions/index.js';
import type { Term } from '../../rdf/index.js';
import { termBytes } from '../../rdf/index.js';
import { Operator, intersection, slotList } from './operator.js';

export interface SortKey {
  expression: CompiledExpression;
  descending: boolean;
}

export class OrderBy extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  /**
   * limit: only the first `limit` solutions are wanted (ORDER BY under OFFSET / LIMIT). Then only
   * the best rows so far are kept, never the whole input: a bounded top-k instead of a full sort.
   */
  constructor(
    readonly child: Operator,
    readonly keys: SortKey[],
    readonly limit?: number,
  ) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.estimate = limit === undefined ? child.estimate : Math.min(child.estimate, limit);
  }

  describe(): string {
    const keys = `${this.keys.length} key${this.keys.length === 1 ? '' : 's'}`;
    return this.limit === undefined ? keys : `${keys}, top ${this.limit}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    return this.limit === undefined ? this.sortAll(input, ctx) : this.topK(input, ctx, this.limit);
  }

  private *sortAll(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const rows = new RowBuffer(width);
    for (const b of this.child.execute(input, ctx)) {
      ctx.checkpoint();
      rows.pushBatch(b, ctx);
    }
    const n = rows.length;
    const k = this.keys.length;
    // Sort keys are evaluated once per row, not once per comparison; the keys are terms of their
    // own (a computed key, a term beyond the store's term cache), the order and the sort's merge
    // space an array slot and a half per row.
    const values: (Term | undefined)[] = new Array(n * k);
    ctx.reserve(n * (k + 1.5) * 8);
    let keyBytes = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) {
        const value = valueOrUndefined(this.keys[j].expression.evaluate, rows.data, i * width, ctx);
        values[i * k + j] = value;
        // A key the row before also had is the same object (a cached term): counted once.
        if (i === 0 || value !== values[(i - 1) * k + j]) keyBytes += termBytes(value);
      }
      if ((i & 1023) === 1023) keyBytes = reserveNow(ctx, keyBytes);
    }
    reserveNow(ctx, keyBytes);
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => this.compareKeys(values, a * k, values, b * k));
    yield* this.emit(rows.data, order, ctx);
  }

  /**
   * Keeps at most 2 × limit candidate rows: when they fill up, the best `limit` (stable: ties keep
   * the earlier row, as the full sort does) stay, and the worst of those becomes the bar a new row
   * must beat to be kept at all.
   */
  private *topK(input: Iterable<Batch>, ctx: ExecContext, limit: number): Iterable<Batch> {
    if (limit <= 0) return;
    const width = ctx.width;
    const k = this.keys.length;
    const capacity = 2 * limit;
    let rows = new RowBuffer(width, Math.min(capacity, 64));
    let values: (Term | undefined)[] = [];
    const row: (Term | undefined)[] = new Array(k);
    let bar: (Term | undefined)[] | undefined;
    // The candidates' keys: reserved as they come, given back when candidates are dropped.
    let heldKeyBytes = 0;
    for (const b of this.child.execute(input, ctx)) {
      ctx.checkpoint();
      for (let r = 0; r < b.length; r++) {
        for (let j = 0; j < k; j++) row[j] = valueOrUndefined(this.keys[j].expression.evaluate, b.data, r * width, ctx);
        if (bar && this.compareKeys(row, 0, bar, 0) >= 0) continue;
        rows.push(b.data, r * width, ctx);
        const bytes = keysBytes(row, 0, k);
        ctx.reserve(bytes);
        heldKeyBytes += bytes;
        for (let j = 0; j < k; j++) values.push(row[j]);
        if (rows.length >= capacity) {
          const best = this.sortedIndexes(values, rows.length).slice(0, limit);
          ({ rows, values } = keepRows(rows, values, best, k, ctx));
          bar = values.slice((limit - 1) * k, limit * k);
          const kept = keysBytes(values, 0, values.length);
          ctx.release(heldKeyBytes - kept);
          heldKeyBytes = kept;
        }
      }
    }
    const order = this.sortedIndexes(values, rows.length).slice(0, limit);
    yield* this.emit(rows.data, order, ctx);
  }

  /** Row indexes in sort order; ties stay in arrival order (Array.prototype.sort is stable). */
  private sortedIndexes(values: (Term | undefined)[], n: number): number[] {
    const k = this.keys.length;
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => this.compareKeys(values, a * k, values, b * k));
    return order;
  }

  private compareKeys(left: (Term | undefined)[], at: number, right: (Term | undefined)[], bt: number): number {
    for (let j = 0; j < this.keys.length; j++) {
      const c = orderByCompare(left[at + j], right[bt + j]);
      if (c !== 0) return this.keys[j].descending ? -c : c;
    }
    return 0;
  }

  private *emit(data: Float64Array, order: number[], ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const out = new BatchWriter(width);
    for (const i of order) {
      out.target().appendRow(data, i * width);
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}

/** Reserves what has been counted so far; returns the new count (0). */
function reserveNow(ctx: ExecContext, bytes: number): number {
  if (bytes > 0) ctx.reserve(bytes);
  return 0;
}

/** The memory of sort keys values[from..to): their array slots and their terms. */
function keysBytes(values: readonly (Term | undefined)[], from: number, to: number): number {
  let bytes = 0;
  for (let i = from; i < to; i++) bytes += 8 + termBytes(values[i]);
  return bytes;
}

/** The chosen rows (and their sort values), in the given order, as a new buffer. */
function keepRows(
  rows: RowBuffer,
  values: (Term | undefined)[],
  chosen: number[],
  k: number,
  ctx: ExecContext,
): { rows: RowBuffer; values: (Term | undefined)[] } {
  const kept = new RowBuffer(rows.width, Math.max(1, chosen.length * 2));
  const keptValues: (Term | undefined)[] = [];
  for (const i of chosen) {
    kept.push(rows.data, i * rows.width, ctx);
    for (let j = 0; j < k; j++) keptValues.push(values[i * k + j]);
  }
  return { rows: kept, values: keptValues };
}

export class Distinct extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  /** slots: the solution's visible variables (hidden slots of sub-queries do not count). */
  constructor(
    readonly child: Operator,
    readonly slots: number[],
    readonly reduced = false,
  ) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.estimate = child.estimate;
  }

  describe(): string {
    return this.reduced ? 'REDUCED' : 'DISTINCT';
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const slots = this.slots;
    // No visible variable: every solution is the empty one, and the first stands for all.
    let emptySeen = false;
    const seen = new IdTupleSet(Math.max(1, slots.length));
    // Sized for the solutions expected, within a bound, once a first batch's worth were distinct:
    // growing by doubling rehashes every tuple again at each step (a third of a14's DISTINCT over
    // 212,000 pairs), but a query of a few rows (most of BSBM Explore's) should not zero a table
    // sized for an estimate.
    let sized = false;
    let reserved = 0;
    const out = new BatchWriter(width, ctx.batchPool());
    for (const batch of this.child.execute(input, ctx)) {
      for (let r = 0; r < batch.length; r++) {
        if (slots.length === 0) {
          if (emptySeen) continue;
          emptySeen = true;
        } else if (!seen.add(batch.data, r * width, slots)) continue;
        out.target().appendCopy(batch, r);
      }
      if (!sized && seen.size >= BATCH_SIZE) {
        sized = true;
        if (Number.isFinite(this.child.estimate)) seen.reserve(Math.min(this.child.estimate, PRESIZED_TUPLES));
      }
      if (seen.bytes > reserved) {
        ctx.reserve(seen.bytes - reserved);
        reserved = seen.bytes;
      }
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}

/** The most tuples a DISTINCT's set is sized for at once (2^18: 4 MiB a slot). */
const PRESIZED_TUPLES = 2 ** 18;

export class Slice extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  constructor(
    readonly child: Operator,
    readonly offset: number,
    readonly limit: number | undefined,
  ) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.estimate = Math.min(child.estimate, limit ?? Infinity);
  }

  describe(): string {
    return `offset ${this.offset}${this.limit !== undefined ? `, limit ${this.limit}` : ''}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    let skip = this.offset;
    let remaining = this.limit ?? Infinity;
    if (remaining <= 0) return;
    for (const batch of this.child.execute(input, ctx)) {
      if (skip >= batch.length) {
        skip -= batch.length;
        continue;
      }
      const take = Math.min(batch.length - skip, remaining);
      if (skip === 0 && take === batch.length) {
        yield batch;
      } else {
        const part = new Batch(ctx.width, take);
        for (let r = skip; r < skip + take; r++) part.appendCopy(batch, r);
        yield part;
      }
      skip = 0;
      remaining -= take;
      // Returning closes every generator and index cursor below: evaluation stops here.
      if (remaining <= 0) return;
    }
  }
}

/** Projection of a (sub-)query: what it binds, for the operators around it, is only its projected variables. */
export class Project extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(
    readonly child: Operator,
    readonly slots: number[],
  ) {
    super();
    const visible = new Set(slots);
    this.maybe = intersection(child.maybe, visible);
    this.certain = intersection(child.certain, visible);
    this.estimate = child.estimate;
  }

  describe(slotNames: readonly string[]): string {
    return slotList(this.slots, slotNames);
  }

  override children(): Operator[] {
    return [this.child];
  }

  execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    return this.child.execute(input, ctx);
  }
}
