/**
 * The parse worker's term map for line formats: term keys as UTF-8 bytes -> local numbers (0, 1, 2,
 * ... in order of first sight). Keys are looked up straight from the bytes of the file, so a term
 * met again costs a hash and a compare, with no string made; the keys live once, in one byte arena
 * (1 byte per ASCII character, where a Map<string, number> cost ~2.5 bytes of heap per character
 * plus the garbage of every looked-up slice). Open addressing with linear probing.
 *
 * The new terms of a batch are contiguous in the arena (see newTermsSince), which is what the worker
 * sends to the loading thread.
 */
import { avalanche } from '../store/index.js';

const EMPTY = -1;
const INITIAL_TERMS = 1 << 14;

/**
 * Bytes to look keys up in, with a DataView over the same memory: hashing and comparing read four
 * bytes per load (a byte at a time, comparing hits was most of the table's time).
 */
export interface KeyBytes {
  bytes: Uint8Array;
  view: DataView;
}

/** A DataView over exactly the memory of `bytes` (same indices). */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class TermTable {
  private arena = new Uint8Array(1 << 20);
  private arenaView = viewOf(this.arena);
  private used = 0;
  /** Per local number: where its key starts in the arena (it ends where the next one starts). */
  private starts = new Uint32Array(INITIAL_TERMS + 1);
  /**
   * Two entries per slot: the key's hash, then its local number or EMPTY. A probe reads one place
   * (a cache miss) where separate slot and hash arrays cost two. At most half the slots are used.
   */
  private slots = emptySlots(INITIAL_TERMS * 2);
  private mask = INITIAL_TERMS * 2 - 1;
  /** The last buffer `local` was given, and its view (the string path reuses one buffer). */
  private lastKey: KeyBytes = { bytes: new Uint8Array(0), view: new DataView(new ArrayBuffer(0)) };
  /** Number of terms. */
  size = 0;

  /**
   * @param byteCap the arena grows by doubling up to this many bytes, then only as needed: the owner
   *   clears the table at about that size, and doubling past it would allocate twice the memory.
   */
  constructor(private readonly byteCap = Infinity) {}

  /** Bytes of the keys held. */
  get bytes(): number {
    return this.used;
  }

  /** The local number of the key bytes[start, end), adding it when new. */
  local(bytes: Uint8Array, start: number, end: number): number {
    if (this.lastKey.bytes !== bytes) this.lastKey = { bytes, view: viewOf(bytes) };
    const key = this.lastKey;
    return this.localWithHash(key, start, end, hashKey(key.view, start, end));
  }

  /** The local number of the key in key.bytes[start, end), or -1; `hash` is its hashKey. */
  find(key: KeyBytes, start: number, end: number, hash: number): number {
    const length = end - start;
    const { slots, starts, mask } = this;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = slots[2 * slot + 1];
      if (found === EMPTY) return -1;
      if (slots[2 * slot] === hash && starts[found + 1] - starts[found] === length && this.equals(found, key.view, start, length)) return found;
    }
  }

  /** `local` with the key's hashKey computed already. */
  localWithHash(key: KeyBytes, start: number, end: number, hash: number): number {
    const length = end - start;
    const { slots, starts, mask } = this;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = slots[2 * slot + 1];
      if (found === EMPTY) {
        const local = this.add(key.bytes, start, end);
        slots[2 * slot] = hash;
        slots[2 * slot + 1] = local;
        if (this.size * 2 > mask) this.rehash();
        return local;
      }
      if (slots[2 * slot] === hash && starts[found + 1] - starts[found] === length && this.equals(found, key.view, start, length)) return found;
    }
  }

  /**
   * The keys of terms `first` to size - 1: a copy of their bytes, and the end of each key in it
   * (its start is the previous key's end, or 0).
   */
  newTermsSince(first: number): { bytes: Uint8Array; ends: Uint32Array } {
    const base = this.starts[first];
    const bytes = this.arena.slice(base, this.used);
    const ends = new Uint32Array(this.size - first);
    for (let local = first; local < this.size; local++) ends[local - first] = this.starts[local + 1] - base;
    return { bytes, ends };
  }

  /** Forgets every term: numbering starts at 0 again. */
  clear(): void {
    this.used = 0;
    this.size = 0;
    this.starts[0] = 0;
    this.slots = emptySlots(this.mask + 1);
  }

  private equals(local: number, view: DataView, start: number, length: number): boolean {
    const arena = this.arenaView;
    const at = this.starts[local];
    let i = 0;
    for (const words = length - 3; i < words; i += 4) if (arena.getInt32(at + i, true) !== view.getInt32(start + i, true)) return false;
    for (; i < length; i++) if (arena.getUint8(at + i) !== view.getUint8(start + i)) return false;
    return true;
  }

  private add(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (this.used + length > this.arena.length) this.growArena(this.used + length);
    copyBytes(bytes, start, end, this.arena, this.used);
    this.used += length;
    const local = this.size++;
    if (this.size >= this.starts.length - 1) this.growTerms();
    this.starts[local + 1] = this.used;
    return local;
  }

  private growArena(needed: number): void {
    const grown = new Uint8Array(Math.max(needed, Math.min(this.arena.length * 2, this.byteCap)));
    grown.set(this.arena.subarray(0, this.used));
    this.arena = grown;
    this.arenaView = viewOf(grown);
  }

  private growTerms(): void {
    const starts = new Uint32Array((this.starts.length - 1) * 2 + 1);
    starts.set(this.starts);
    this.starts = starts;
  }

  private rehash(): void {
    const old = this.slots;
    const slots = emptySlots(old.length);
    const mask = slots.length / 2 - 1;
    for (let i = 1; i < old.length; i += 2) {
      if (old[i] === EMPTY) continue;
      let slot = old[i - 1] & mask;
      while (slots[2 * slot + 1] !== EMPTY) slot = (slot + 1) & mask;
      slots[2 * slot] = old[i - 1];
      slots[2 * slot + 1] = old[i];
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** Room for `count` slots (hash, local), all empty. */
function emptySlots(count: number): Int32Array {
  const slots = new Int32Array(count * 2);
  for (let i = 1; i < slots.length; i += 2) slots[i] = EMPTY;
  return slots;
}

/** target.set(source.subarray(...)) without making a subarray for short keys, the common case. */
export function copyBytes(source: Uint8Array, start: number, end: number, target: Uint8Array, at: number): void {
  if (end - start > 64) {
    target.set(source.subarray(start, end), at);
    return;
  }
  for (let i = start; i < end; i++) target[at++] = source[i];
}

/**
 * A 32-bit hash of view[start, end), four bytes per multiply (little-endian words); finished with
 * murmur3's avalanche so that the low bits (the slot) depend on every byte. Only the worker's
 * in-memory table uses it: nothing stored depends on it.
 */
export function hashKey(view: DataView, start: number, end: number): number {
  let h = 0x9747b28c ^ (end - start);
  let i = start;
  for (const last = end - 3; i < last; i += 4) {
    h = Math.imul(h ^ Math.imul(view.getInt32(i, true), 0xcc9e2d51), 0x1b873593);
    h = (h << 13) | (h >>> 19);
  }
  for (; i < end; i++) h = Math.imul(h ^ view.getUint8(i), 0x01000193);
  // Signed, as the table's Int32Array slots hold it.
  return avalanche(h) | 0;
}

/** hashKey of bytes[start, end) (makes a view: for tests and cold paths). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  return hashKey(viewOf(bytes), start, end);
}
