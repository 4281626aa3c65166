/**
 * The dictionary: every stored RDF term has a uint32 ID. Two LMDB databases: id -> term key, where
 * the term key is the canonical text of `termKey` (so `"01"^^xsd:integer` and `"1"^^xsd:integer` are
 * different terms, as RDF term equality wants), and term hash -> id.
 *
 * The term -> id side is keyed by a 64-bit hash of the term key, not by the key itself: the text is
 * stored once (id -> term), which halves the dictionary on disk, and every key is 8 bytes, which
 * keeps that B-tree shallow. Two terms with the same hash are both kept (a dupsort database: one
 * hash, several IDs); a look-up confirms each candidate against its stored term.
 */
import { termFromKey, termKey, type Term } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';
import type { KvDatabase } from './lmdb-types.js';
import type { SnapshotReads } from './snapshot-reads.js';
import { sortedQuadOrder } from './sorted-keys.js';
import { hashTermKey } from './term-hash.js';

/** Kept for callers that size test terms around it: every key is hashed now, whatever its length. */
export const HASHED_KEY_THRESHOLD = 255;
const DEFAULT_GRAPH_KEY = 'D';

/** A term -> id key: the 8-byte hash of the term key. */
export type DictionaryKey = Buffer;

export type IdToTermDatabase = KvDatabase<number, Uint8Array>;
export type TermToIdDatabase = KvDatabase<DictionaryKey, Uint8Array>;

/** 64 bits of hash of a term key (term-hash.ts), as the term -> id database's key. */
export function dictionaryKeyOf(key: string): DictionaryKey {
  hashTermKey(key, hashWords);
  const hashed = Buffer.allocUnsafe(8);
  hashed.writeUInt32BE(hashWords[0], 0);
  hashed.writeUInt32BE(hashWords[1], 4);
  return hashed;
}

/** The two words of the last hash. */
const hashWords = new Uint32Array(2);

export function encodeId(id: TermId): Buffer {
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeUInt32BE(id, 0);
  return bytes;
}

function decodeId(bytes: Uint8Array): TermId {
  return ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
}

function decodeText(bytes: Buffer): string {
  return bytes.toString('utf8', 0, bytes.length);
}

/** Read access to the dictionary through one snapshot. */
export class DictionaryReader {
  constructor(
    protected readonly idToTerm: IdToTermDatabase,
    protected readonly termToId: TermToIdDatabase,
    protected readonly reads: SnapshotReads,
  ) {}

  /** The ID of a canonical term key, or undefined. */
  idOfKey(key: string): TermId | undefined {
    if (key === DEFAULT_GRAPH_KEY) return DEFAULT_GRAPH_ID;
    const hashed = dictionaryKeyOf(key);
    // One point read settles the usual miss (a load meeting a new term), cheaper than a cursor.
    if (this.reads.get(this.termToId, hashed) === undefined) return undefined;
    // Candidates first, then their terms: a cursor stays untouched by the reads that confirm.
    const candidates: TermId[] = [];
    for (const value of this.termToId.getValues(hashed, this.reads.options)) candidates.push(decodeId(value));
    return candidates.find((id) => this.keyOfId(id) === key);
  }

  /** The canonical term key of an ID, or undefined when the snapshot has no such ID. */
  keyOfId(id: TermId): string | undefined {
    if (id === DEFAULT_GRAPH_ID) return DEFAULT_GRAPH_KEY;
    const found = this.reads.get(this.idToTerm, id);
    return found === undefined ? undefined : decodeText(found);
  }

  termOfId(id: TermId): Term | undefined {
    const key = this.keyOfId(id);
    return key === undefined ? undefined : termFromKey(key);
  }
}

/** Hash -> id entries held back by a bulk load before they are sorted and written. */
const PENDING_HASHES_LIMIT = 1 << 22;
const APPEND = { append: true };

/** The dictionary inside the write transaction: adds entries. */
export class DictionaryWriter extends DictionaryReader {
  /** (hash word 0, hash word 1, id, 0) per held-back term -> id entry, in the quad batch layout. */
  private pending = new Uint32Array(0);
  private pendingCount = 0;
  private readonly hashKeyBuffer = Buffer.allocUnsafe(8);
  private readonly idBuffer = Buffer.allocUnsafe(4);

  /** Records a new term under a fresh ID; the caller has checked that the key is not there. */
  insert(key: string, id: TermId): void {
    // A dupsort put adds this ID beside any other term's under the same hash.
    this.termToId.putSync(dictionaryKeyOf(key), encodeId(id));
    this.appendTerm(key, id);
  }

  /**
   * `insert` for bulk loads: the hash -> id entry waits, and the waiting entries are written in
   * hash order (appended past the last hash), which costs far less than inserts at random places
   * and fills the B-tree's pages. Look-ups write the waiting entries first.
   */
  insertDeferred(key: string, id: TermId): void {
    hashTermKey(key, hashWords);
    this.holdBack(hashWords[0], hashWords[1], id);
    this.appendTerm(key, id);
  }

  /**
   * `insertDeferred` of a key given as its UTF-8 bytes and its hash (hashTermKeyBytes), as the load's
   * parse worker sends them: no string, no hashing on this thread. The bytes are copied by the put.
   */
  insertDeferredBytes(keyBytes: Uint8Array, hashHigh: number, hashLow: number, id: TermId): void {
    this.holdBack(hashHigh, hashLow, id);
    this.idToTerm.putSync(id, keyBytes, APPEND);
  }

  private holdBack(hashHigh: number, hashLow: number, id: TermId): void {
    if ((this.pendingCount + 1) * 4 > this.pending.length) this.growPending();
    const at = this.pendingCount++ * 4;
    this.pending[at] = hashHigh;
    this.pending[at + 1] = hashLow;
    this.pending[at + 2] = id;
    if (this.pendingCount >= PENDING_HASHES_LIMIT) this.writePending();
  }

  override idOfKey(key: string): TermId | undefined {
    this.writePending();
    return super.idOfKey(key);
  }

  /** Writes the held-back hash -> id entries; the writer calls it before commit. */
  writePending(): void {
    const count = this.pendingCount;
    if (count === 0) return;
    this.pendingCount = 0;
    const pending = this.pending;
    const order = sortedQuadOrder(pending, count, HASH_ORDER);
    const last = this.lastHash();
    const key = this.hashKeyBuffer;
    const value = this.idBuffer;
    let previousHigh = last?.[0] ?? -1;
    let previousLow = last?.[1] ?? -1;
    for (let i = 0; i < count; i++) {
      const at = order[i] * 4;
      const high = pending[at], low = pending[at + 1];
      // Appending needs a strictly greater key; an equal hash (a collision) is a dupsort insert.
      const greater = high > previousHigh || (high === previousHigh && low > previousLow);
      key.writeUInt32BE(high, 0);
      key.writeUInt32BE(low, 4);
      value.writeUInt32BE(pending[at + 2], 0);
      this.termToId.putSync(key, value, greater ? APPEND : undefined);
      if (greater) {
        previousHigh = high;
        previousLow = low;
      }
    }
  }

  /** The largest hash in the term -> id database, as two words, or undefined when it is empty. */
  private lastHash(): [number, number] | undefined {
    for (const key of this.termToId.getKeys({ reverse: true, limit: 1 })) return [key.readUInt32BE(0), key.readUInt32BE(4)];
    return undefined;
  }

  private growPending(): void {
    const grown = new Uint32Array(Math.max(4 * 65_536, this.pending.length * 2));
    grown.set(this.pending.subarray(0, this.pendingCount * 4));
    this.pending = grown;
  }

  private appendTerm(key: string, id: TermId): void {
    // IDs are issued in increasing order, so the id -> term B-tree only ever grows at its right edge.
    this.idToTerm.putSync(id, Buffer.from(key, 'utf8'), APPEND);
  }
}

/** Sort order of the pending entries: hash words, then id (dupsort keeps a hash's ids in order). */
const HASH_ORDER = [0, 1, 2];

export function canonicalKey(term: Term): string {
  if (term.termType === 'Variable') throw new TypeError(`a variable (?${term.value}) is not a stored term`);
  return termKey(term);
}
