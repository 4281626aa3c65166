/**
 * Undo of a staged load into a store that already held data (staged-load.ts), after it failed or
 * its process died. A load only adds, so "as before" is: without the quads and terms it added, and
 * with the statistics it started from.
 *
 *  - Terms: the load's new terms have the IDs from the first free ID on (IDs only grow), so they are
 *    the id -> term database's tail; each one's term -> id entry is found by hashing its key.
 *  - Quads: a new quad holds a new term, or holds only old terms. The first kind is found by reading
 *    each family's primary index (every new quad is there from its stage's commit on; secondary
 *    entries come later or not at all) for keys with an ID past the boundary. The second kind
 *    cannot be told from the quads that were there before, so the load logs it (NewQuadLog), in the
 *    same transaction as its primary entry. Each quad found is deleted from all of its family's
 *    indexes at once.
 *  - Statistics: the meta, graph, predicate and sketch databases are small; the load copies them
 *    into one value (snapshotStatistics) before its first write, and the undo puts them back.
 *
 * The undo runs in transactions of bounded size and is idempotent: a process that dies while undoing
 * leaves the load marker in place, and the next open undoes again from the start. Restoring the
 * statistics removes the marker (it is not in the snapshot), so that last transaction is the commit
 * point of the whole undo.
 */
import { DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';
import { DEFAULT_INDEXES, GRAPH_FIRST_INDEXES, GRAPH_LAST_INDEXES, lastKey, type IndexLayout } from './index-layout.js';
import { fillKey, indexHandle, type IndexHandle } from './sorted-index-writes.js';
import { dictionaryKeyOf, encodeId, prefixTexts, storedTermKey } from './term-dictionary.js';
import type { QuadBatch } from './sorted-keys.js';
import type { StoreContext } from './store-context.js';
import type { KvDatabase } from './lmdb-types.js';

/** Meta key of the statistics as they were before the load (snapshotStatistics' encoding). */
export const LOAD_UNDO_STATISTICS = 'loadUndoStatistics';

/** The log of new quads made of old terms: 16-byte keys (s, p, o, g big-endian), empty values. */
export type LoadLogDatabase = KvDatabase<Buffer, Uint8Array>;

/** Quads deleted, or terms removed, per transaction of an undo: bounds its dirty pages. */
const UNDO_PER_TRANSACTION = 1 << 18;
const MAX_KEY = new Uint32Array([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]);
const EMPTY = Buffer.alloc(0);

/** The statistics databases in a fixed order: the tag of each entry in a snapshot. */
function statisticsDatabases(context: StoreContext): (KvDatabase<unknown, Uint8Array> | undefined)[] {
  const dbs = context.dbs;
  return [dbs.meta, dbs.graphs, dbs.predicates, dbs.predicateSketches] as (KvDatabase<unknown, Uint8Array> | undefined)[];
}

/**
 * Every entry of the statistics databases as one value: per entry a tag (which database), the key
 * (UTF-8 for meta's string keys, 4 bytes for the others' uint32 keys) and the value, each with its length.
 */
export function snapshotStatistics(context: StoreContext): Buffer {
  const parts: Buffer[] = [];
  statisticsDatabases(context).forEach((db, tag) => {
    if (!db) return;
    for (const { key, value } of db.getRange({})) {
      const keyBytes = tag === 0 ? Buffer.from(key as string, 'utf8') : uint32Bytes(key as number);
      const header = Buffer.allocUnsafe(9);
      header.writeUInt8(tag, 0);
      header.writeUInt32BE(keyBytes.length, 1);
      header.writeUInt32BE(value.length, 5);
      parts.push(header, keyBytes, Buffer.from(value));
    }
  });
  return Buffer.concat(parts);
}

/** Empties the statistics databases and puts the snapshot's entries back. */
function restoreStatistics(context: StoreContext, snapshot: Buffer): void {
  const dbs = statisticsDatabases(context);
  for (const db of dbs) db?.clearSync();
  let at = 0;
  while (at < snapshot.length) {
    const tag = snapshot.readUInt8(at);
    const keyLength = snapshot.readUInt32BE(at + 1);
    const valueLength = snapshot.readUInt32BE(at + 5);
    const keyBytes = snapshot.subarray(at + 9, at + 9 + keyLength);
    const value = Buffer.from(snapshot.subarray(at + 9 + keyLength, at + 9 + keyLength + valueLength));
    const key = tag === 0 ? keyBytes.toString('utf8') : keyBytes.readUInt32BE(0);
    dbs[tag]?.putSync(key, value);
    at += 9 + keyLength + valueLength;
  }
}

function uint32Bytes(n: number): Buffer {
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeUInt32BE(n, 0);
  return bytes;
}

/**
 * Records, inside each stage's transaction, the load's new quads that hold only terms older than
 * the load: the undo could not tell them from the store's own.
 */
export class NewQuadLog {
  private readonly key = Buffer.alloc(16);

  constructor(
    private readonly db: LoadLogDatabase,
    private readonly firstNewId: TermId,
  ) {}

  /** The quads quads[first..first + count) (flat s, p, o, g), each new in the store. */
  record(quads: QuadBatch, first: number, count: number): void {
    const boundary = this.firstNewId;
    for (let at = first * 4; at < (first + count) * 4; at += 4) {
      if (quads[at] >= boundary || quads[at + 1] >= boundary || quads[at + 2] >= boundary || quads[at + 3] >= boundary) continue;
      for (let i = 0; i < 4; i++) this.key.writeUInt32BE(quads[at + i], i * 4);
      this.db.putSync(this.key, EMPTY);
    }
  }
}

/**
 * Undoes the load whose first new term ID was `firstNewId`, in transactions of `perTransaction`
 * deletions; the last one restores the statistics from the snapshot under LOAD_UNDO_STATISTICS,
 * which also removes the marker.
 */
export function undoLoad(context: StoreContext, firstNewId: TermId, perTransaction = UNDO_PER_TRANSACTION): void {
  const families = [DEFAULT_INDEXES, [...GRAPH_FIRST_INDEXES, ...GRAPH_LAST_INDEXES]].map((layouts) => layouts.map((layout) => handleOf(context, layout)));
  for (const family of families) {
    const scan = new PrimaryScan(family[0], firstNewId);
    while (transaction(context, () => deleteQuads(family, scan.next(perTransaction))));
  }
  const log = context.dbs.loadLog;
  if (log) while (transaction(context, () => deleteLoggedQuads(families, log, perTransaction)));
  while (transaction(context, () => removeNewTerms(context, firstNewId, perTransaction)));
  context.env.transactionSync(() => {
    const snapshot = context.dbs.meta.get(LOAD_UNDO_STATISTICS);
    if (snapshot === undefined) throw new Error('a staged load left no statistics to undo it with');
    restoreStatistics(context, Buffer.from(snapshot));
    log?.clearSync();
  });
  context.termsById.clear();
  context.idsByKey.clear();
}

/** Runs fn in one write transaction; returns what it returned (here: whether to go on). */
function transaction(context: StoreContext, fn: () => boolean): boolean {
  let more = false;
  context.env.transactionSync(() => {
    more = fn();
  });
  return more;
}

function handleOf(context: StoreContext, layout: IndexLayout): IndexHandle {
  return indexHandle(context.index(layout.name), layout);
}

/** A family's primary index read from start to end across transactions, for quads with a new ID. */
class PrimaryScan {
  private from: Uint32Array = new Uint32Array([0]);
  private done = false;

  constructor(
    private readonly primary: IndexHandle,
    private readonly firstNewId: TermId,
  ) {}

  /** Up to `limit` quads (flat s, p, o, g) with a new ID, past the last ones returned; empty at the end. */
  next(limit: number): Uint32Array {
    if (this.done) return new Uint32Array(0);
    const found: number[] = [];
    const boundary = this.firstNewId;
    const width = this.primary.order.length;
    let last: Uint32Array | undefined;
    // Each step decodes its key into lastKey (in quad positions).
    for (const _ of this.primary.db.getKeys({ start: this.from, end: MAX_KEY })) {
      if (lastKey[0] >= boundary || lastKey[1] >= boundary || lastKey[2] >= boundary || (width === 4 && lastKey[3] >= boundary)) {
        found.push(lastKey[0], lastKey[1], lastKey[2], lastKey[3]);
      }
      if (found.length >= limit * 4) {
        last = Uint32Array.from(this.primary.order, (position) => lastKey[position]);
        break;
      }
    }
    if (last === undefined) this.done = true;
    // The keys found are deleted before the next call, so the next read may start at the last one.
    else this.from = last;
    return Uint32Array.from(found);
  }
}

/** Deletes each quad from every index of its family; false when there were none (the end). */
function deleteQuads(family: IndexHandle[], quads: Uint32Array): boolean {
  for (let at = 0; at < quads.length; at += 4) {
    for (const index of family) index.db.removeSync(fillKey(index, quads[at], quads[at + 1], quads[at + 2], quads[at + 3]));
  }
  return quads.length > 0;
}

/** Deletes up to `limit` logged quads from their family's indexes, and from the log; false once the log is empty. */
function deleteLoggedQuads(families: IndexHandle[][], log: LoadLogDatabase, limit: number): boolean {
  const keys = [...log.getKeys({ limit })].map((key) => Buffer.from(key));
  for (const key of keys) {
    const [s, p, o, g] = [0, 4, 8, 12].map((offset) => key.readUInt32BE(offset));
    const family = g === DEFAULT_GRAPH_ID ? families[0] : families[1];
    for (const index of family) index.db.removeSync(fillKey(index, s, p, o, g));
    log.removeSync(key);
  }
  return keys.length > 0;
}

/**
 * Removes up to `limit` of the terms from `firstNewId` on, both directions; false once none are left.
 * From the top down: a shared prefix's ID is below those of the terms stored after it
 * (term-prefixes.ts), so it is there to decode them for as long as they are.
 */
function removeNewTerms(context: StoreContext, firstNewId: TermId, limit: number): boolean {
  const { idToTerm, termToId } = context.dbs;
  const prefixText = prefixTexts((id) => idToTerm.get(id));
  const entries = [...idToTerm.getRange({ start: 0xffffffff, end: firstNewId - 1, reverse: true, limit })].map(({ key, value }) => ({
    id: key,
    value: Buffer.from(value),
  }));
  for (const { id, value } of entries) {
    termToId.removeSync(dictionaryKeyOf(storedTermKey(value, prefixText)), encodeId(id));
    idToTerm.removeSync(id);
  }
  return entries.length > 0;
}
