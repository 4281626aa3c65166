/**
 * Index writes of a bulk add, in key order. A batch is sorted by the index's key order; the keys up
 * to the index's current last key are inserted into the B-tree, every key past it is appended
 * (MDB_APPEND: no search, pages filled completely). Into an empty index, or with keys that grow as
 * a load proceeds (new terms get the highest IDs), most keys are appends.
 *
 * The primary index of a family (SPO, or GSPO for named graphs) is written first with
 * MDB_NOOVERWRITE, which tells which quads are new; only those go to the secondary indexes.
 */
import { lastKey, type IndexLayout } from './index-layout.js';
import type { IdIndexDatabase, PutFlags } from './lmdb-types.js';
import { compareInOrder, sortedQuadOrder, type QuadBatch } from './sorted-keys.js';

const EMPTY_VALUE = Buffer.alloc(0);
const NO_OVERWRITE: PutFlags = { noOverwrite: true };
const APPEND: PutFlags = { append: true };
const MAX_KEY = [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff];

export interface IndexHandle {
  readonly db: IdIndexDatabase;
  readonly order: readonly number[];
  /** Reused key buffer (lmdb-js copies the key on put). */
  readonly key: Uint32Array;
}

export function indexHandle(db: IdIndexDatabase, layout: IndexLayout): IndexHandle {
  return { db, order: layout.order, key: new Uint32Array(layout.order.length) };
}

export function fillKey(index: IndexHandle, s: number, p: number, o: number, g: number): Uint32Array {
  const key = index.key;
  const order = index.order;
  for (let i = 0; i < order.length; i++) {
    const position = order[i];
    key[i] = position === 0 ? s : position === 1 ? p : position === 2 ? o : g;
  }
  return key;
}

/**
 * The index's last key in quad positions (in a fresh array), or undefined when the index is empty:
 * the boundary past which keys can be appended.
 */
function lastQuadOf(index: IndexHandle): Uint32Array | undefined {
  const width = index.order.length;
  for (const _ of index.db.getKeys({ start: MAX_KEY.slice(0, width), end: [0], reverse: true, limit: 1, inclusiveEnd: true })) return lastKey.slice();
  return undefined;
}

/**
 * Writes the batch into a primary index; copies the quads that were not there into `fresh` (flat,
 * from quad number `freshStart` on) and returns how many. Duplicates within the batch count once.
 */
export function writePrimary(index: IndexHandle, batch: QuadBatch, count: number, fresh: Uint32Array, freshStart: number): number {
  if (count === 0) return 0;
  const order = index.order;
  const sorted = sortedQuadOrder(batch, count, order);
  const last = lastQuadOf(index);
  let appending = last === undefined;
  let freshCount = 0;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const at = sorted[i] * 4;
    if (previous >= 0 && compareInOrder(batch, previous, batch, at, order) === 0) continue;
    previous = at;
    const s = batch[at], p = batch[at + 1], o = batch[at + 2], g = batch[at + 3];
    if (!appending && compareInOrder(batch, at, last!, 0, order) > 0) appending = true;
    if (!index.db.putSync(fillKey(index, s, p, o, g), EMPTY_VALUE, appending ? APPEND : NO_OVERWRITE)) continue;
    const to = (freshStart + freshCount) * 4;
    fresh[to] = s;
    fresh[to + 1] = p;
    fresh[to + 2] = o;
    fresh[to + 3] = g;
    freshCount++;
  }
  return freshCount;
}

/** Writes quads known to be absent from the index (the primary said they were new). */
export function writeSecondary(index: IndexHandle, quads: QuadBatch, count: number): void {
  if (count === 0) return;
  const order = index.order;
  const sorted = sortedQuadOrder(quads, count, order);
  const last = lastQuadOf(index);
  let appending = last === undefined;
  for (let i = 0; i < count; i++) {
    const at = sorted[i] * 4;
    if (!appending && compareInOrder(quads, at, last!, 0, order) > 0) appending = true;
    index.db.putSync(fillKey(index, quads[at], quads[at + 1], quads[at + 2], quads[at + 3]), EMPTY_VALUE, appending ? APPEND : undefined);
  }
}

/** New quads of one index family waiting for their secondary index writes. */
export class DeferredQuads {
  private quads = new Uint32Array(4 * 65_536);
  count = 0;

  /** At most `limit` quads are held (the owner writes them out then), plus one batch. */
  constructor(private readonly limit: number) {}

  /** Room for n more quads; returns the array to write them into, from quad number `count` on. */
  reserve(n: number): Uint32Array {
    const needed = (this.count + n) * 4;
    if (needed > this.quads.length) {
      // Doubling, but never far past the limit: this array is most of a bulk load's memory.
      const grown = new Uint32Array(Math.max(needed, Math.min(this.quads.length * 2, (this.limit + n) * 4)));
      grown.set(this.quads.subarray(0, this.count * 4));
      this.quads = grown;
    }
    return this.quads;
  }

  /** Writes the waiting quads into each index, then forgets them. */
  writeTo(indexes: readonly IndexHandle[]): void {
    for (const index of indexes) writeSecondary(index, this.quads, this.count);
    this.count = 0;
  }
}
