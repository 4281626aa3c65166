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
import { literal, namedNode, termFromKey, termKey, type NamedNode, type Term } from '../rdf/index.js';
import { DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';
import type { KvDatabase } from './lmdb-types.js';
import type { SnapshotReads } from './snapshot-reads.js';
import { LITTLE_ENDIAN, NativePuts, PUT_APPEND, bigEndianWord } from './lmdb-native/native-put.js';
import { SortedRuns } from './sorted-runs.js';
import { SpilledRuns, loadMemoryEntries, type MergedRuns } from './spilled-runs.js';
import { hashTermKey, hashTermKeyBytes } from './term-hash.js';
import { PREFIXED_HEADER, PREFIXED_TERM, PrefixTable, SEEN_ONCE, prefixEnd, prefixEntryKey, prefixIdOf, prefixTextOfEntry } from './term-prefixes.js';
import { CODED_TERM, codedLiteral, decodedTermBytes } from './term-text-code.js';

/** Kept for callers that size test terms around it: every key is hashed now, whatever its length. */
export const HASHED_KEY_THRESHOLD = 255;
const DEFAULT_GRAPH_KEY = 'D';
/** The default graph's term key as its one UTF-8 byte. */
const DEFAULT_GRAPH_KEY_BYTE = 0x44;

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

/**
 * The term key of a value of the id -> term database, with `prefixText` giving a prefix ID's text.
 * A value is the key's UTF-8 (all of them in stores written before prefixes and codes), a prefixed
 * term or a prefix's entry (term-prefixes.ts), or a coded literal (term-text-code.ts).
 */
export function storedTermKey(value: Uint8Array, prefixText: (id: number) => string): string {
  const length = value.length;
  const bytes = Buffer.from(value.buffer, value.byteOffset, length);
  const tag = bytes[0];
  if (tag === CODED_TERM) {
    const decoded = decodedTermBytes(bytes);
    return Buffer.from(decoded.buffer, decoded.byteOffset, decoded.length).toString('utf8');
  }
  if (tag !== PREFIXED_TERM) return bytes.toString('utf8', 0, length);
  // The rest first: resolving the prefix may read the store, which may reuse the value's buffer.
  const rest = bytes.toString('utf8', PREFIXED_HEADER, length);
  return prefixText(prefixIdOf(bytes)) + rest;
}

/** `prefixText` for storedTermKey over plain reads of the id -> term database, each prefix read once. */
export function prefixTexts(read: (id: number) => Uint8Array | undefined): (id: number) => string {
  const texts = new Map<number, string>();
  return (id) => {
    let text = texts.get(id);
    if (text === undefined) {
      const value = read(id);
      if (value === undefined) throw new RangeError(`a stored term names prefix ${id}, which the store does not have`);
      text = prefixTextOfEntry(value);
      texts.set(id, text);
    }
    return text;
  };
}

/** A prefix's text and UTF-8 bytes (term-prefixes.ts), and how a term with it is made. */
class Prefix {
  readonly bytes: Buffer;
  /** A typed literal prefix's datatype, one object for all its literals. */
  private readonly datatype: NamedNode | undefined;

  constructor(readonly text: string) {
    this.bytes = Buffer.from(text, 'utf8');
    this.datatype = text.startsWith('^') ? namedNode(text.slice(1, -1)) : undefined;
  }

  /** The term whose key is this prefix then `rest`: as termFromKey makes it, without the whole key. */
  termWith(rest: string): Term {
    if (this.datatype) return literal(rest, this.datatype);
    return this.text.startsWith('<') ? namedNode(this.text.slice(1) + rest) : termFromKey(this.text + rest);
  }
}

/** Read access to the dictionary through one snapshot. */
export class DictionaryReader {
  constructor(
    protected readonly idToTerm: IdToTermDatabase,
    protected readonly termToId: TermToIdDatabase,
    protected readonly reads: SnapshotReads,
  ) {}

  /** The prefixes this snapshot has decoded terms with, by ID: a prefix ID names one prefix in a snapshot. */
  private readonly prefixes = new Map<number, Prefix>();

  protected knowsPrefix(id: TermId): boolean {
    return this.prefixes.has(id);
  }

  /** The ID of a canonical term key, or undefined. */
  idOfKey(key: string): TermId | undefined {
    if (key === DEFAULT_GRAPH_KEY) return DEFAULT_GRAPH_ID;
    const hashed = dictionaryKeyOf(key);
    // One point read settles the usual miss (a load meeting a new term), cheaper than a cursor.
    const first = this.reads.get(this.termToId, hashed);
    if (first === undefined) return undefined;
    // It also gives the hash's first candidate, almost always the only one: when its term is the
    // key, that is the answer (a term has one ID), without the range read of every candidate.
    const firstId = decodeId(first);
    if (this.keyOfId(firstId) === key) return firstId;
    // Candidates first, then their terms: a cursor stays untouched by the reads that confirm.
    const candidates: TermId[] = [];
    for (const value of this.termToId.getValues(hashed, this.reads.options)) candidates.push(decodeId(value));
    return candidates.find((id) => this.keyOfId(id) === key);
  }

  /** The canonical term key of an ID, or undefined when the snapshot has no such ID. */
  keyOfId(id: TermId): string | undefined {
    if (id === DEFAULT_GRAPH_ID) return DEFAULT_GRAPH_KEY;
    const found = this.reads.get(this.idToTerm, id);
    return found === undefined ? undefined : storedTermKey(found, (prefixId) => this.prefix(prefixId).text);
  }

  /** A prefix by its ID, read once per snapshot. */
  protected prefix(id: TermId): Prefix {
    let prefix = this.prefixes.get(id);
    if (prefix === undefined) {
      const found = this.reads.get(this.idToTerm, id);
      if (found === undefined) throw new RangeError(`a stored term names prefix ${id}, which the store does not have`);
      prefix = new Prefix(prefixTextOfEntry(found));
      this.prefixes.set(id, prefix);
    }
    return prefix;
  }

  termOfId(id: TermId): Term | undefined {
    if (id === DEFAULT_GRAPH_ID) return termFromKey(DEFAULT_GRAPH_KEY);
    const found = this.reads.get(this.idToTerm, id);
    if (found === undefined) return undefined;
    if (found[0] !== PREFIXED_TERM) return termFromKey(storedTermKey(found, (prefixId) => this.prefix(prefixId).text));
    // The rest first: reading the prefix may reuse the value's buffer.
    const prefixId = prefixIdOf(found);
    const rest = found.toString('utf8', PREFIXED_HEADER, found.length);
    return this.prefix(prefixId).termWith(rest);
  }
}

/**
 * Spilled hash -> id entries a load keeps a look-up table of (8 bytes each, see SpilledLookup): past
 * this many (512 MiB), the spilled entries are written into the database instead, and later ones
 * are inserted as before the spilling existed, which keeps memory bounded at any scale.
 */
const SPILLED_LOOKUP_LIMIT = 1 << 26;
/** Held-back hashes sorted together as one run. */
const PENDING_RUN = 1 << 16;

/** The dictionary inside the write transaction: adds entries. */
export class DictionaryWriter extends DictionaryReader {
  /**
   * (hash word 0, hash word 1, id, 0) per held-back term -> id entry, in the quad batch layout,
   * sorted in runs as they come (a bulk load sorts them while its parser reads on).
   */
  private readonly pendingLimit = loadMemoryEntries();
  private readonly pending = new SortedRuns(this.pendingLimit, [HASH_ORDER]);
  /** A staged load's run files of held-back entries past the limit, and a look-up table of them. */
  private spill: SpilledRuns | undefined;
  private spilledLookup: SpilledLookup[] = [];
  /** The spilled runs' merge under way (writePendingSome), and the last hash written. */
  private merge: { source: MergedRuns; previousHigh: number; previousLow: number } | undefined;
  private readonly idBuffer = new Uint8Array(4);
  /** idBuffer as a word, for bigEndianWord. */
  private readonly idWords = new Uint32Array(this.idBuffer.buffer);
  /** Bulk puts: id -> term keyed by the ID in native byte order (lmdb-js' uint32 keys, MDB_INTEGERKEY). */
  private readonly termPuts = new NativePuts(this.idToTerm as never, 4, (key) => key.getUint32(0, LITTLE_ENDIAN));
  /** Bulk puts: term hash (8 bytes) -> id. */
  private readonly hashPuts = new NativePuts(this.termToId as never, 8, (key) => Buffer.from(key.buffer, key.byteOffset, 8));

  constructor(
    idToTerm: IdToTermDatabase,
    termToId: TermToIdDatabase,
    reads: SnapshotReads,
    /** The next term ID, which the transaction's writer issues. */
    private readonly newId: () => TermId,
  ) {
    super(idToTerm, termToId, reads);
  }

  /** Records a new term under a fresh ID, which it returns; the caller has checked that the key is not there. */
  insert(key: string): TermId {
    const keyBytes = Buffer.from(key, 'utf8');
    const prefixId = this.prefixIdFor(keyBytes);
    const id = this.newId();
    // A dupsort put adds this ID beside any other term's under the same hash.
    this.termToId.putSync(dictionaryKeyOf(key), encodeId(id));
    this.storeTerm(id, keyBytes, prefixId);
    return id;
  }

  /**
   * `insert` for bulk loads: the hash -> id entry waits, and the waiting entries are written in
   * hash order (appended past the last hash), which costs far less than inserts at random places
   * and fills the B-tree's pages. Look-ups write the waiting entries first.
   */
  insertDeferred(key: string): TermId {
    const keyBytes = Buffer.from(key, 'utf8');
    const prefixId = this.prefixIdFor(keyBytes);
    const id = this.newId();
    hashTermKey(key, hashWords);
    this.holdBack(hashWords[0], hashWords[1], id);
    this.storeTerm(id, keyBytes, prefixId);
    return id;
  }

  /**
   * `insertDeferred` of a key given as its UTF-8 bytes and its hash (hashTermKeyBytes), as the load's
   * parse worker sends them: no string, no hashing on this thread. The bytes are copied by the put.
   */
  insertDeferredBytes(keyBytes: Uint8Array, hashHigh: number, hashLow: number, coded?: Uint8Array): TermId {
    const prefixId = this.prefixIdFor(keyBytes);
    const id = this.newId();
    this.holdBack(hashHigh, hashLow, id);
    this.storeTerm(id, keyBytes, prefixId, coded);
    return id;
  }

  /** This transaction's prefixes by their bytes, and the ones it met once (term-prefixes.ts). */
  private readonly prefixTable = new PrefixTable();
  private prefixedValue = new Uint8Array(256);
  /** Where the prefix that prefixIdFor last found ends in its key. */
  private prefixEnd = 0;

  /**
   * The ID of the shareable prefix of a new term's key, or 0 to store the key whole. A prefix gets
   * its entry (and ID, before the term's: an undo removes terms from the top down) the second time
   * a transaction meets it, so that a prefix of one term never costs an entry.
   */
  private prefixIdFor(keyBytes: Uint8Array): TermId {
    const end = prefixEnd(keyBytes);
    if (end === 0) return 0;
    this.prefixEnd = end;
    const table = this.prefixTable;
    const entry = table.find(keyBytes, end);
    if (entry < 0) {
      if (table.full) return 0;
      const stored = this.storedPrefixId(keyBytes, end);
      table.add(keyBytes, end, stored ?? SEEN_ONCE);
      return stored ?? 0;
    }
    const known = table.valueOf(entry);
    if (known !== SEEN_ONCE) return known;
    const prefixKey = hashedPrefixEntryKey(keyBytes, end);
    const id = this.newId();
    this.holdBack(hashWords[0], hashWords[1], id);
    this.storeTerm(id, prefixKey, 0);
    table.setValue(entry, id);
    return id;
  }

  /**
   * The ID of a prefix's entry in the store from an earlier transaction, if it has one: their hash
   * entries are written (this transaction's own prefixes are all in its table, and a staged load's
   * writer lives through all its transactions), so the held-back ones need no search.
   */
  private storedPrefixId(keyBytes: Uint8Array, end: number): TermId | undefined {
    const prefixKey = hashedPrefixEntryKey(keyBytes, end);
    return this.writtenIdOfKeyBytes(prefixKey, hashWords[0], hashWords[1]);
  }

  /**
   * Puts the id -> term entry: the key whole, after its prefix's ID, or coded (`coded`, when the
   * caller has coded a plain literal already: codedPlainLiteral).
   */
  private storeTerm(id: TermId, keyBytes: Uint8Array, prefixId: TermId, coded?: Uint8Array): void {
    const value = prefixId !== 0 ? this.prefixed(prefixId, keyBytes, this.prefixEnd) : (coded ?? codedLiteral(keyBytes) ?? keyBytes);
    // IDs are issued in increasing order, so the id -> term B-tree only ever grows at its right
    // edge. lmdb-js' uint32 keys are in the platform's byte order.
    this.termPuts.keyWords[0] = id;
    this.termPuts.putBytes(value, PUT_APPEND);
  }

  /** The stored value of a key after a prefix of `end` bytes, in a buffer reused by the next call. */
  private prefixed(prefixId: TermId, keyBytes: Uint8Array, end: number): Uint8Array {
    const length = PREFIXED_HEADER + keyBytes.length - end;
    if (this.prefixedValue.length < length) this.prefixedValue = new Uint8Array(Math.max(length, this.prefixedValue.length * 2));
    const value = this.prefixedValue;
    value[0] = PREFIXED_TERM;
    value[1] = prefixId >>> 24;
    value[2] = (prefixId >>> 16) & 0xff;
    value[3] = (prefixId >>> 8) & 0xff;
    value[4] = prefixId & 0xff;
    value.set(keyBytes.subarray(end), PREFIXED_HEADER);
    return value.subarray(0, length);
  }

  private holdBack(hashHigh: number, hashLow: number, id: TermId): void {
    const pending = this.pending;
    const entries = pending.reserve(1);
    const entry = pending.count++;
    const at = entry * 4;
    entries[at] = hashHigh;
    entries[at + 1] = hashLow;
    entries[at + 2] = id;
    if (this.pendingIndex !== undefined) this.indexPending(entry);
    if (pending.count >= this.pendingLimit) this.relievePending();
    else if (pending.unsealed >= PENDING_RUN) pending.sealRun();
  }

  /**
   * Lets held-back entries past the memory limit go to run files in `directory` (a staged load into
   * an empty store) instead of into the database, where they would be inserted mid-tree.
   */
  spillTo(directory: string): void {
    this.spill = new SpilledRuns(directory, 'term2id', [HASH_ORDER]);
  }

  private relievePending(): void {
    const spilled = this.spilledLookup.reduce((sum, lookup) => sum + lookup.size, 0);
    if (this.spill === undefined || spilled + this.pending.count > SPILLED_LOOKUP_LIMIT) {
      this.writePending();
      return;
    }
    const lookup = new SpilledLookup(this.pending.count);
    this.spill.spill(this.pending, (entries, count) => lookup.add(entries, count));
    this.spilledLookup.push(lookup);
    this.pendingIndex = undefined;
  }

  /**
   * The ID of a term key given as its UTF-8 bytes and its dictionary hash, or undefined. Unlike
   * idOfKey it leaves the held-back entries held back (they are searched in memory): a bulk load
   * whose parser forgot which keys it sent looks up each key it sends again, and writing the held-back
   * entries out at every look-up would insert them at random places instead of appending them in
   * hash order (half-empty pages, and pages copied again by every transaction of a staged load).
   */
  idOfKeyBytes(keyBytes: Uint8Array, hashHigh: number, hashLow: number): TermId | undefined {
    if (keyBytes.length === 1 && keyBytes[0] === DEFAULT_GRAPH_KEY_BYTE) return DEFAULT_GRAPH_ID;
    const held = this.heldBackIdOf(keyBytes, hashHigh, hashLow);
    if (held !== undefined) return held;
    for (const lookup of this.spilledLookup) {
      const spilled = lookup.find(hashHigh, (id) => this.hasKeyBytes(id, keyBytes));
      if (spilled !== undefined) return spilled;
    }
    return this.writtenIdOfKeyBytes(keyBytes, hashHigh, hashLow);
  }

  /** idOfKeyBytes among the hash -> id entries written to the database, not the held-back ones. */
  private writtenIdOfKeyBytes(keyBytes: Uint8Array, hashHigh: number, hashLow: number): TermId | undefined {
    const hashed = Buffer.allocUnsafe(8);
    hashed.writeUInt32BE(hashHigh, 0);
    hashed.writeUInt32BE(hashLow, 4);
    if (this.reads.get(this.termToId, hashed) === undefined) return undefined;
    const candidates: TermId[] = [];
    for (const value of this.termToId.getValues(hashed, this.reads.options)) candidates.push(decodeId(value));
    return candidates.find((id) => this.hasKeyBytes(id, keyBytes));
  }

  /** Held-back entries by hash (open addressing on the low word), built at the first idOfKeyBytes. */
  private pendingIndex: Int32Array | undefined;

  private heldBackIdOf(keyBytes: Uint8Array, hashHigh: number, hashLow: number): TermId | undefined {
    if (this.pending.count === 0) return undefined;
    if (this.pendingIndex === undefined) this.buildPendingIndex();
    const slots = this.pendingIndex!;
    const mask = slots.length - 1;
    const entries = this.pending.entries;
    for (let slot = hashLow & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const at = (slots[slot] - 1) * 4;
      if (entries[at] === hashHigh && entries[at + 1] === hashLow && this.hasKeyBytes(entries[at + 2], keyBytes)) return entries[at + 2];
    }
    return undefined;
  }

  private buildPendingIndex(): void {
    let size = 1 << 16;
    while (size < this.pending.count * 2 + 2) size *= 2;
    this.pendingIndex = new Int32Array(size);
    for (let entry = 0; entry < this.pending.count; entry++) this.indexPending(entry);
  }

  private indexPending(entry: number): void {
    const slots = this.pendingIndex!;
    if ((entry + 1) * 2 > slots.length) {
      this.pendingIndex = undefined;
      this.buildPendingIndex();
      return;
    }
    const mask = slots.length - 1;
    let slot = this.pending.entries[entry * 4 + 1] & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = entry + 1;
  }

  /** Whether the ID's stored term key is these UTF-8 bytes. */
  private hasKeyBytes(id: TermId, keyBytes: Uint8Array): boolean {
    let found = this.reads.get(this.idToTerm, id);
    if (found === undefined) return false;
    if (found[0] === CODED_TERM) {
      const decoded = decodedTermBytes(found);
      return decoded.length === keyBytes.length && Buffer.compare(decoded, keyBytes) === 0;
    }
    // The read may be lmdb-js' shared buffer, longer than the value: its `length` is the value's.
    if (found[0] !== PREFIXED_TERM) return found.length === keyBytes.length && found.compare(keyBytes, 0, keyBytes.length, 0, found.length) === 0;
    const prefixId = prefixIdOf(found);
    if (!this.knowsPrefix(prefixId)) {
      this.prefix(prefixId);
      found = this.reads.get(this.idToTerm, id)!;
    }
    const prefix = this.prefix(prefixId).bytes;
    const end = prefix.length;
    if (keyBytes.length !== end + found.length - PREFIXED_HEADER) return false;
    return prefix.compare(keyBytes, 0, end) === 0 && found.compare(keyBytes, end, keyBytes.length, PREFIXED_HEADER, found.length) === 0;
  }

  override idOfKey(key: string): TermId | undefined {
    this.writePending();
    return super.idOfKey(key);
  }

  /** Writes the held-back hash -> id entries; the writer calls it before commit. */
  writePending(): void {
    if (this.spill !== undefined && (this.spill.runCount > 0 || this.merge !== undefined)) {
      while (!this.writePendingSome(Infinity));
      return;
    }
    if (this.pending.count === 0) return;
    const last = this.lastHash();
    const state = { previousHigh: last?.[0] ?? -1, previousLow: last?.[1] ?? -1 };
    const reader = this.pending.inOrder(0);
    for (let count; (count = reader.read(mergeChunk, MERGE_CHUNK)) > 0;) this.putHashes(mergeChunk, count, state);
    this.pending.clear();
    this.pendingIndex = undefined;
  }

  /**
   * Writes up to `budget` held-back entries from the merge of the spilled runs (what is in memory is
   * spilled first); true once all are written and the run files deleted. Called again, in the next
   * transaction, it goes on where it stopped (a staged load bounds its transactions this way).
   */
  writePendingSome(budget: number): boolean {
    const spill = this.spill;
    if (spill === undefined || (spill.runCount === 0 && this.merge === undefined)) {
      this.writePending();
      return true;
    }
    if (this.merge === undefined) {
      spill.spill(this.pending);
      const last = this.lastHash();
      this.merge = { source: spill.merged(0), previousHigh: last?.[0] ?? -1, previousLow: last?.[1] ?? -1 };
      this.pendingIndex = undefined;
    }
    const merge = this.merge;
    let written = 0;
    while (written < budget) {
      const count = merge.source.read(mergeChunk, Math.min(MERGE_CHUNK, budget - written));
      if (count === 0) {
        merge.source.close();
        this.merge = undefined;
        spill.remove();
        this.spilledLookup = [];
        return true;
      }
      this.putHashes(mergeChunk, count, merge);
      written += count;
    }
    return false;
  }

  /** Closes the run files a merge holds open (the load ended half way). */
  discardPending(): void {
    this.merge?.source.close();
    this.merge = undefined;
    this.pending.clear();
    this.pendingIndex = undefined;
    this.spilledLookup = [];
  }

  /** Puts hash -> id entries given in hash order, appending past `state`'s last hash (which it advances). */
  private putHashes(entries: Uint32Array, count: number, state: { previousHigh: number; previousLow: number }): void {
    const key = this.hashPuts.keyWords;
    const value = this.idBuffer;
    const valueWords = this.idWords;
    for (let at = 0; at < count * 4; at += 4) {
      const high = entries[at],
        low = entries[at + 1];
      // Appending needs a strictly greater key; an equal hash (a collision) is a dupsort insert.
      const greater = high > state.previousHigh || (high === state.previousHigh && low > state.previousLow);
      key[0] = bigEndianWord(high);
      key[1] = bigEndianWord(low);
      valueWords[0] = bigEndianWord(entries[at + 2]);
      this.hashPuts.putBytes(value, greater ? PUT_APPEND : 0);
      if (greater) {
        state.previousHigh = high;
        state.previousLow = low;
      }
    }
  }

  /** The largest hash in the term -> id database, as two words, or undefined when it is empty. */
  private lastHash(): [number, number] | undefined {
    for (const key of this.termToId.getKeys({ reverse: true, limit: 1 })) return [key.readUInt32BE(0), key.readUInt32BE(4)];
    return undefined;
  }
}

/** The term key of the entry of key[0, end) as a prefix (prefixEntryKey), its hash left in hashWords. */
function hashedPrefixEntryKey(key: Uint8Array, end: number): Uint8Array {
  const prefixKey = prefixEntryKey(key, end);
  hashTermKeyBytes(prefixKey, 0, prefixKey.length, hashWords);
  return prefixKey;
}

/**
 * Sort order of the pending entries: the hash words. Entries are held back in ID order and the sort
 * and merges are stable, so the IDs of one hash stay in order without sorting by them too.
 */
const HASH_ORDER = [0, 1];

const MERGE_CHUNK = 1 << 14;
const mergeChunk = new Uint32Array(MERGE_CHUNK * 4);

/**
 * The look-up side of one spilled run of hash -> id entries: the hashes' high words (sorted, as the
 * run is) and the IDs, 8 bytes per entry. A load whose parser re-sends keys looks each one up; a
 * candidate is confirmed against its stored term, so the low word is not needed.
 */
class SpilledLookup {
  private readonly highs: Uint32Array;
  private readonly ids: Uint32Array;
  size = 0;

  constructor(capacity: number) {
    this.highs = new Uint32Array(capacity);
    this.ids = new Uint32Array(capacity);
  }

  add(entries: Uint32Array, count: number): void {
    for (let at = 0; at < count * 4; at += 4) {
      this.highs[this.size] = entries[at];
      this.ids[this.size++] = entries[at + 2];
    }
  }

  /** The first ID under this high word that `matches` accepts. */
  find(high: number, matches: (id: TermId) => boolean): TermId | undefined {
    const highs = this.highs;
    let low = 0;
    let top = this.size;
    while (low < top) {
      const middle = (low + top) >>> 1;
      if (highs[middle] < high) low = middle + 1;
      else top = middle;
    }
    for (let i = low; i < this.size && highs[i] === high; i++) if (matches(this.ids[i])) return this.ids[i];
    return undefined;
  }
}

export function canonicalKey(term: Term): string {
  if (term.termType === 'Variable') throw new TypeError(`a variable (?${term.value}) is not a stored term`);
  return termKey(term);
}
