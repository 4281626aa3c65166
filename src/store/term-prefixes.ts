/**
 * Shared prefixes of stored terms. Most IRIs of a dataset start with one of a few namespaces
 * (`http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/dataFromProducer12/` is 70 bytes of a
 * product's 80), and every typed literal repeats its datatype IRI. The id -> term database keeps
 * such a prefix once, as an entry of its own, and a term that starts with it as the prefix's ID and
 * the rest: 60 of BSBM's 141 bytes per triple were the terms' text, two thirds of it prefixes.
 *
 * Two kinds of stored value are about prefixes, told by their first byte (a term key never starts
 * with either tag, see rdf/terms.ts' termKey; term-dictionary.ts' storedTermKey reads every kind):
 * - PREFIXED_TERM, the prefix's ID (4 bytes, big-endian), then the rest of the term key's UTF-8;
 * - PREFIX_ENTRY, then the prefix's UTF-8: the prefix's own entry, whose term key is the whole
 *   value read as text (hashed into the term -> id database like any term's, so a writer finds it).
 *
 * Only the id -> term side changes: the term -> id side hashes the whole term key as before.
 */
import { hashTermKeyBytes } from './term-hash.js';

export const PREFIXED_TERM = 0x01;
export const PREFIX_ENTRY = 0x02;
/** A prefix ID's 4 bytes after the tag. */
export const PREFIXED_HEADER = 5;
/**
 * Shorter prefixes are not shared: the header takes 5 bytes, and a short prefix (`<urn:`, a
 * language tag's `@en"`) saves too little to be worth an entry.
 */
const MIN_PREFIX_BYTES = 16;

const IRI_TAG = 0x3c; // <
const TYPED_LITERAL_TAG = 0x5e; // ^
const SLASH = 0x2f;
const HASH = 0x23;
const QUOTE = 0x22;

/**
 * Where the shareable prefix of a term key (its UTF-8 bytes) ends, or 0 when it has none: an IRI up
 * to its last `/` or `#`, a typed literal up to the quote after its datatype. The split bytes are
 * ASCII, so a prefix never ends inside a character.
 */
export function prefixEnd(key: Uint8Array): number {
  const length = key.length;
  let end = 0;
  if (key[0] === IRI_TAG) {
    for (let i = length - 1; i > 0; i--) {
      const byte = key[i];
      if (byte === SLASH || byte === HASH) {
        end = i + 1;
        break;
      }
    }
  } else if (key[0] === TYPED_LITERAL_TAG) {
    for (let i = 1; i < length; i++) {
      if (key[i] === QUOTE) {
        end = i + 1;
        break;
      }
    }
  }
  return end >= MIN_PREFIX_BYTES ? end : 0;
}

export function prefixIdOf(value: Uint8Array): number {
  return ((value[1] << 24) | (value[2] << 16) | (value[3] << 8) | value[4]) >>> 0;
}

/** A prefix entry's term key as UTF-8: the tag, then the prefix's bytes. */
export function prefixEntryKey(key: Uint8Array, end: number): Uint8Array {
  const entry = new Uint8Array(end + 1);
  entry[0] = PREFIX_ENTRY;
  entry.set(key.subarray(0, end), 1);
  return entry;
}

/** A prefix's text from its entry's stored value. */
export function prefixTextOfEntry(value: Uint8Array): string {
  if (value[0] !== PREFIX_ENTRY) throw new Error('a prefixed term names an ID that is not a prefix');
  return Buffer.from(value.buffer, value.byteOffset, value.length).toString('utf8', 1, value.length);
}

/** What a PrefixTable holds for a prefix seen once, not in the store: it becomes an entry when seen again. */
export const SEEN_ONCE = -1;
/** Prefixes a table holds at most, and the bytes of their text: a dataset with more keeps the rest whole. */
const MAX_PREFIXES = 1 << 18;
const MAX_PREFIX_POOL = 1 << 24;

/**
 * A writer's prefixes by their bytes: their IDs, or SEEN_ONCE. Open addressing over flat arrays,
 * since every new IRI or typed literal a load meets is looked up here.
 */
export class PrefixTable {
  private slots = new Int32Array(1 << 12);
  private hashes = new Uint32Array(1 << 11);
  private starts = new Uint32Array(1 << 11);
  private lengths = new Uint32Array(1 << 11);
  private values = new Int32Array(1 << 11);
  private pool = new Uint8Array(1 << 16);
  private poolUsed = 0;
  private count = 0;
  private readonly hash = new Uint32Array(2);

  get full(): boolean {
    return this.count >= MAX_PREFIXES || this.poolUsed >= MAX_PREFIX_POOL;
  }

  /** The entry of key[0, end), or -1; it leaves the prefix's hash for `add`. */
  find(key: Uint8Array, end: number): number {
    hashTermKeyBytes(key, 0, end, this.hash);
    const hash = this.hash[1];
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; this.slots[slot] !== 0; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] - 1;
      if (this.hashes[entry] === hash && this.lengths[entry] === end && this.sameBytes(entry, key, end)) return entry;
    }
    return -1;
  }

  valueOf(entry: number): number {
    return this.values[entry];
  }

  setValue(entry: number, value: number): void {
    this.values[entry] = value;
  }

  /** Adds key[0, end) (just looked up with `find`, which hashed it); false when the table is full. */
  add(key: Uint8Array, end: number, value: number): boolean {
    if (this.full) return false;
    if (this.count === this.values.length) this.growEntries();
    if ((this.count + 1) * 2 > this.slots.length) this.growSlots();
    if (this.poolUsed + end > this.pool.length) this.growPool(end);
    const entry = this.count++;
    this.hashes[entry] = this.hash[1];
    this.starts[entry] = this.poolUsed;
    this.lengths[entry] = end;
    this.values[entry] = value;
    this.pool.set(key.subarray(0, end), this.poolUsed);
    this.poolUsed += end;
    this.place(entry);
    return true;
  }

  private sameBytes(entry: number, key: Uint8Array, end: number): boolean {
    const pool = this.pool;
    for (let i = 0, at = this.starts[entry]; i < end; i++, at++) if (pool[at] !== key[i]) return false;
    return true;
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[entry] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private growEntries(): void {
    const size = this.values.length * 2;
    this.hashes = grown(this.hashes, new Uint32Array(size));
    this.starts = grown(this.starts, new Uint32Array(size));
    this.lengths = grown(this.lengths, new Uint32Array(size));
    this.values = grown(this.values, new Int32Array(size));
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.count; entry++) this.place(entry);
  }

  private growPool(needed: number): void {
    let size = this.pool.length * 2;
    while (size < this.poolUsed + needed) size *= 2;
    this.pool = grown(this.pool, new Uint8Array(size));
  }
}

function grown<T extends Uint8Array | Uint32Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
