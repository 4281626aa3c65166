/**
 * Solution modifiers: ORDER BY, DISTINCT / REDUCED, OFFSET / LIMIT, and projection. They see the
 * whole solution sequence, so the planner only pipelines them at the root of a (sub-)query.
 */
import { Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../context.js';
import { RowBuffer, rowKey } from '../row-buffer.js';
import { type CompiledExpression, valueOrUndefined } from '../expression/compile-expression.js';
import { orderByCompare } from '../functions/index.js';
import type { Term } from '../../rdf/terms.js';
import { Operator, intersection, slotList } from './operator.js';

export interface SortKey {
  expression: CompiledExpression;
  descending: boolean;
}

export class OrderBy extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  constructor(readonly child: Operator, readonly keys: SortKey[]) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.estimate = child.estimate;
  }

  describe(): string {
    return `${this.keys.length} key${this.keys.length === 1 ? '' : 's'}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const rows = new RowBuffer(width);
    for (const b of this.child.execute(input, ctx)) {
      ctx.checkpoint();
      rows.pushBatch(b, ctx);
    }
    const n = rows.length;
    const k = this.keys.length;
    // Sort keys are evaluated once per row, not once per comparison.
    const values: (Term | undefined)[] = new Array(n * k);
    ctx.reserve(n * k * 16);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) values[i * k + j] = valueOrUndefined(this.keys[j].expression.evaluate, rows.data, i * width, ctx);
    }
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => {
      for (let j = 0; j < k; j++) {
        const c = orderByCompare(values[a * k + j], values[b * k + j]);
        if (c !== 0) return this.keys[j].descending ? -c : c;
      }
      return 0;
    });
    const out = new BatchWriter(width);
    for (const i of order) {
      out.target().appendRow(rows.data, i * width);
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}

export class Distinct extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  /** slots: the solution's visible variables (hidden slots of sub-queries do not count). */
  constructor(readonly child: Operator, readonly slots: number[], readonly reduced = false) {
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
    const seen = new Set<number | string>();
    const slots = this.slots.length > 0 ? this.slots : [];
    const out = new BatchWriter(width);
    for (const batch of this.child.execute(input, ctx)) {
      for (let r = 0; r < batch.length; r++) {
        const key = slots.length === 0 ? '' : slots.length === 1 ? batch.data[r * width + slots[0]] : rowKey(batch.data, r * width, slots);
        if (seen.has(key)) continue;
        seen.add(key);
        if ((seen.size & 1023) === 0) ctx.reserve(1024 * 48);
        out.target().appendCopy(batch, r);
      }
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}

export class Slice extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  constructor(readonly child: Operator, readonly offset: number, readonly limit: number | undefined) {
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

  constructor(readonly child: Operator, readonly slots: number[]) {
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
