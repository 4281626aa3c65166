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
import type { IdIndexDatabase } from './lmdb-types.js';
import { NativePuts, PUT_APPEND, PUT_NO_OVERWRITE, bigEndianWord } from './lmdb-native/native-put.js';
import { compareInOrder, sortedQuadOrder, type QuadBatch } from './sorted-keys.js';
import { SortedRuns, type EntryReader } from './sorted-runs.js';
import type { SpilledRuns } from './spilled-runs.js';

const MAX_KEY = [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff];

export interface IndexHandle {
  readonly db: IdIndexDatabase;
  readonly order: readonly number[];
  /** Reused key buffer (lmdb-js copies the key on put). */
  readonly key: Uint32Array;
  /** The bulk paths' puts, keys written big-endian into its keyWords. */
  readonly puts: NativePuts;
}

export function indexHandle(db: IdIndexDatabase, layout: IndexLayout): IndexHandle {
  const width = layout.order.length;
  const idsOf = (key: DataView): number[] => Array.from({ length: width }, (_, i) => key.getUint32(i * 4));
  return { db, order: layout.order, key: new Uint32Array(width), puts: new NativePuts(db as never, width * 4, idsOf) };
}

/**
 * Puts the key of the quad at quads[at..at + 4) (empty value) with the given PUT_* flags; false when
 * PUT_NO_OVERWRITE found it there.
 */
function putQuad(index: IndexHandle, quads: QuadBatch, at: number, flags: number): boolean {
  const puts = index.puts;
  const words = puts.keyWords;
  const order = index.order;
  words[0] = bigEndianWord(quads[at + order[0]]);
  words[1] = bigEndianWord(quads[at + order[1]]);
  words[2] = bigEndianWord(quads[at + order[2]]);
  if (order.length === 4) words[3] = bigEndianWord(quads[at + order[3]]);
  return puts.putEmpty(flags);
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
    if (!appending && compareInOrder(batch, at, last!, 0, order) > 0) appending = true;
    if (!putQuad(index, batch, at, appending ? PUT_APPEND : PUT_NO_OVERWRITE)) continue;
    const to = (freshStart + freshCount) * 4;
    fresh[to] = batch[at];
    fresh[to + 1] = batch[at + 1];
    fresh[to + 2] = batch[at + 2];
    fresh[to + 3] = batch[at + 3];
    freshCount++;
  }
  return freshCount;
}

/**
 * New quads of one index family waiting for their secondary index writes, kept sorted for each
 * secondary index as they arrive (sorted-runs.ts). With a SpilledRuns (a staged load), what passes
 * the memory limit goes to run files instead of the indexes, and the runs are merged and appended
 * once at the end (writeSome).
 */
export class DeferredQuads {
  private readonly runs: SortedRuns;
  /** The writing under way (writeSome): its order number, source (memory or run files) and whether it appends yet. */
  private merge: { k: number; source: EntryReader; last: Uint32Array | undefined; appending: boolean } | undefined;
  private nextOrder = 0;

  /**
   * At most `limit` quads are held (the owner writes them out then), plus one batch.
   * @param primaryOrder the key order of the family's primary index (the order quads are added in)
   * @param secondaryOrders the key orders of the indexes `writeTo` will be given, in that order
   * @param spill where to spill runs past the limit (the same orders); none: they are written
   */
  constructor(
    readonly limit: number,
    primaryOrder: readonly number[],
    secondaryOrders: readonly (readonly number[])[],
    private readonly spill?: SpilledRuns,
  ) {
    // The quads come from writePrimary, in the primary index's order.
    this.runs = new SortedRuns(limit, secondaryOrders, primaryOrder);
  }

  get count(): number {
    return this.runs.count;
  }

  set count(count: number) {
    this.runs.count = count;
  }

  /** Whether any quad still waits for its secondary entries, in memory or in run files. */
  get waiting(): boolean {
    return this.runs.count > 0 || (this.spill !== undefined && this.spill.runCount > 0);
  }

  /** Room for n more quads; returns the array to write them into, from quad number `count` on. */
  reserve(n: number): Uint32Array {
    return this.runs.reserve(n);
  }

  /** The quads added since the last call form a run: sorted now, while the parser reads on. */
  sealRun(): void {
    this.runs.sealRun();
  }

  /** At the limit: spills the held quads to a run file where it can, else writes them. */
  relieve(indexes: readonly IndexHandle[]): void {
    if (this.spill) this.spill.spill(this.runs);
    else this.writeTo(indexes);
  }

  /** Writes the waiting quads into each index (given in the constructor's order), then forgets them. */
  writeTo(indexes: readonly IndexHandle[]): void {
    while (!this.writeSome(indexes, Infinity));
  }

  /**
   * Writes up to about `budget` of the waiting quads' entries, one index after the other; true once
   * all are written (and forgotten, the run files deleted). Called again, in the next transaction,
   * it goes on where it stopped: a staged load bounds each transaction's dirty pages this way. The
   * entries come from memory, or, when runs were spilled, from the merge of the run files (what is
   * still in memory is spilled first).
   */
  writeSome(indexes: readonly IndexHandle[], budget: number): boolean {
    const spill = this.spill;
    const spilled = spill !== undefined && spill.runCount > 0;
    if (spilled && this.merge === undefined && this.nextOrder === 0) spill.spill(this.runs);
    let written = 0;
    while (written < budget) {
      if (this.merge === undefined) {
        if (this.nextOrder >= indexes.length) {
          if (spilled) spill.remove();
          this.runs.clear();
          this.nextOrder = 0;
          return true;
        }
        const k = this.nextOrder++;
        const last = lastQuadOf(indexes[k]);
        this.merge = { k, source: spilled ? spill.merged(k) : this.runs.inOrder(k), last, appending: last === undefined };
      }
      const merge = this.merge;
      const count = merge.source.read(mergeChunk, Math.min(MERGE_CHUNK, budget - written));
      if (count === 0) {
        merge.source.close();
        this.merge = undefined;
        continue;
      }
      merge.appending = writeAbsent(indexes[merge.k], mergeChunk, count, merge.last, merge.appending);
      written += count;
    }
    return false;
  }

  /** Closes the run files a merge holds open (the load ended half way); the files stay for the owner to remove. */
  discard(): void {
    this.merge?.source.close();
    this.merge = undefined;
    this.nextOrder = 0;
    this.runs.clear();
  }
}

const MERGE_CHUNK = 1 << 14;
const mergeChunk = new Uint32Array(MERGE_CHUNK * 4);

/**
 * Puts `count` quads (in the index's key order, absent from it) into the index: appended once past
 * `last`, the index's last key when the writing began. Returns whether it is appending now.
 */
function writeAbsent(index: IndexHandle, quads: Uint32Array, count: number, last: Uint32Array | undefined, appending: boolean): boolean {
  const order = index.order;
  for (let at = 0; at < count * 4; at += 4) {
    if (!appending && compareInOrder(quads, at, last!, 0, order) > 0) appending = true;
    putQuad(index, quads, at, appending ? PUT_APPEND : 0);
  }
  return appending;
}
