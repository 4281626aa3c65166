/**
 * Solutions travel between operators in batches: fixed-width rows of term IDs in one typed array,
 * one slot per variable of the query (0 = unbound). No object per solution.
 */
import { UNBOUND } from '../store/index.js';

export const BATCH_SIZE = 1024;
/** Output batches start this small and double up to BATCH_SIZE: most look-ups yield a few rows. */
const FIRST_BATCH_SIZE = 16;

export class Batch {
  readonly data: Float64Array;
  length = 0;

  constructor(
    readonly width: number,
    readonly capacity = BATCH_SIZE,
  ) {
    this.data = rowStorage(Math.max(1, width) * capacity);
  }

  get full(): boolean {
    return this.length >= this.capacity;
  }

  get(row: number, slot: number): number {
    return this.data[row * this.width + slot];
  }

  /** Appends a copy of row `row` of `from` and returns the new row's index. */
  appendCopy(from: Batch, row: number): number {
    const w = this.width;
    const target = this.length++;
    // A loop rather than set(subarray(…)): rows are a few cells, and a subarray is an object per row.
    const source = from.data;
    const data = this.data;
    for (let i = 0, s = row * w, t = target * w; i < w; i++) data[t + i] = source[s + i];
    return target;
  }

  /** Appends a row copied from a flat array (a materialized row). */
  appendRow(values: ArrayLike<number>, offset = 0): number {
    const w = this.width;
    const target = this.length++;
    for (let i = 0; i < w; i++) this.data[target * w + i] = values[offset + i];
    return target;
  }

  set(row: number, slot: number, id: number): void {
    this.data[row * this.width + slot] = id;
  }

  /** Drops the last row (after a failed compatibility check on a row being built). */
  pop(): void {
    this.length--;
  }

  /** A copy of one row as a standalone array. */
  rowCopy(row: number): Float64Array {
    return this.data.slice(row * this.width, row * this.width + this.width);
  }
}

/**
 * Small batches are views into a shared slab rather than arrays of their own: a typed array with its
 * own buffer costs a malloc, a zero-fill and an external-memory record the garbage collector sweeps
 * (about 0.4 µs at 160 cells, against 0.06 µs for a view), and a query makes dozens of small
 * batches. Slab memory is handed out once and never reused, so every view starts zeroed (unbound)
 * and no two batches share cells; a slab is freed when its last view is.
 */
const SLAB_BYTES = 64 * 1024;
/** Larger batches get a buffer of their own: a slab should not be kept alive by one big batch. */
const MAX_SLAB_CELLS = 1024;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabUsed = 0;

function rowStorage(cells: number): Float64Array {
  if (cells > MAX_SLAB_CELLS) return new Float64Array(cells);
  const bytes = cells * Float64Array.BYTES_PER_ELEMENT;
  if (slabUsed + bytes > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const view = new Float64Array(slab, slabUsed, cells);
  slabUsed += bytes;
  return view;
}

/** A batch that holds no row and never will: full from the start, so a writer replaces it at once. */
const NO_ROWS = new Batch(0, 0);

/**
 * Spare batches of one evaluation, to be used again instead of allocated: most of a query's batch
 * memory went to fresh slabs (zeroed ArrayBuffers, ~0.12 ns a byte, and their garbage). A batch
 * comes back once its consumer has asked for the next one: every operator reads a batch only
 * until then (it copies what it keeps: sorts, groups, hash tables, memos). Per query, so no batch
 * outlives the evaluation that made it. Handed out as it came back, not zeroed (zeroing was ~1.5% of
 * the engine's CPU per BSBM mix): rows past `length` hold stale cells, so a row is written whole when appended.
 */
export class BatchPool {
  private readonly spare = new Map<number, Batch[]>();

  constructor(readonly width: number) {}

  take(capacity: number): Batch {
    const batch = this.spare.get(capacity)?.pop();
    if (batch === undefined) return new Batch(this.width, capacity);
    // Not zeroed: its cells keep an earlier batch's rows until written, and every row is written
    // whole before it is read (appendCopy, appendRow, a copy of a whole batch's rows).
    batch.length = 0;
    return batch;
  }

  /** Takes back a batch no operator reads any more (the caller's word). */
  release(batch: Batch): void {
    if (batch.width !== this.width || batch.capacity === 0 || batch.capacity > MAX_POOLED_CAPACITY) return;
    let spare = this.spare.get(batch.capacity);
    if (spare === undefined) {
      spare = [];
      this.spare.set(batch.capacity, spare);
    }
    if (spare.length < MAX_SPARE_PER_CAPACITY) spare.push(batch);
  }
}

/** A capacity of at least `rows` that pooled batches share (powers of two from FIRST_BATCH_SIZE). */
export function pooledCapacity(rows: number): number {
  let capacity = FIRST_BATCH_SIZE;
  while (capacity < rows) capacity *= 2;
  return capacity;
}

/**
 * Full batches are pooled too: a join that yields a million rows fills a thousand of them, and a
 * new one is a fresh buffer of 10–100 KB to allocate and zero (a quarter of such a query's CPU).
 */
const MAX_POOLED_CAPACITY = BATCH_SIZE;
const MAX_SPARE_PER_CAPACITY = 8;

/** Collects output rows into batches of BATCH_SIZE, handing each full one to the consumer. */
export class BatchWriter {
  /** NO_ROWS until the first row: many writers of a query never receive one. */
  private current: Batch = NO_ROWS;
  private readonly ready: Batch[] = [];

  /** `pool`: where the writer's batches come from and go back to once the consumer is done with them. */
  constructor(
    readonly width: number,
    private readonly pool?: BatchPool,
  ) {}

  /** The batch to append the next row to; grows, then rolls over when full. */
  target(): Batch {
    const current = this.current;
    if (current.full) {
      if (current.capacity < BATCH_SIZE) {
        const grown = this.batch(current.capacity === 0 ? FIRST_BATCH_SIZE : current.capacity * 2);
        grown.data.set(current.data);
        grown.length = current.length;
        this.current = grown;
        if (current !== NO_ROWS) this.pool?.release(current);
      } else {
        this.ready.push(current);
        this.current = this.batch(BATCH_SIZE);
      }
    }
    return this.current;
  }

  private batch(capacity: number): Batch {
    return this.pool ? this.pool.take(capacity) : new Batch(this.width, capacity);
  }

  /** Full batches waiting to be yielded. */
  *drainFull(): Generator<Batch> {
    while (this.ready.length > 0) {
      const batch = this.ready.shift()!;
      yield batch;
      // The consumer asked for the next batch: it is done with this one.
      this.pool?.release(batch);
    }
  }

  /** Every batch still held, the partial one included. */
  *flush(): Generator<Batch> {
    yield* this.drainFull();
    if (this.current.length > 0) {
      const batch = this.current;
      this.current = NO_ROWS;
      yield batch;
      this.pool?.release(batch);
    }
  }

  get pending(): boolean {
    return this.ready.length > 0;
  }
}

/** The single empty solution every query starts from. */
export function unitBatch(width: number): Batch {
  const batch = new Batch(width, 1);
  batch.length = 1;
  return batch;
}

/** Whether two rows agree on every slot bound in both (SPARQL compatibility). */
export function compatible(a: Float64Array, ai: number, b: Float64Array, bi: number, slots: readonly number[]): boolean {
  for (const s of slots) {
    const x = a[ai + s];
    const y = b[bi + s];
    if (x !== UNBOUND && y !== UNBOUND && x !== y) return false;
  }
  return true;
}

/** Writes into row `ti` of `t` every slot bound in row `si` of `s` (the merge of compatible rows). */
export function mergeInto(t: Float64Array, ti: number, s: Float64Array, si: number, slots: readonly number[]): void {
  for (const slot of slots) {
    const v = s[si + slot];
    if (v !== UNBOUND) t[ti + slot] = v;
  }
}
