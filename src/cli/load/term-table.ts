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

const EMPTY = -1;
const INITIAL_TERMS = 1 << 14;

export class TermTable {
  private arena = new Uint8Array(1 << 20);
  private used = 0;
  /** Per local number: where its key starts in the arena (it ends where the next one starts). */
  private starts = new Uint32Array(INITIAL_TERMS + 1);
  private hashes = new Int32Array(INITIAL_TERMS);
  /** Slot -> local number, or EMPTY; twice as many slots as terms at most. */
  private slots = new Int32Array(INITIAL_TERMS * 2).fill(EMPTY);
  private mask = INITIAL_TERMS * 2 - 1;
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
    return this.localWithHash(bytes, start, end, hashBytes(bytes, start, end));
  }

  /** The local number of the key, or -1; `hash` is hashBytes of the key. */
  find(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot];
      if (found === EMPTY) return -1;
      if (this.hashes[found] === hash && this.starts[found + 1] - this.starts[found] === length && this.equals(found, bytes, start, length)) return found;
    }
  }

  /** `local` with the key's hashBytes computed already. */
  localWithHash(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot];
      if (found === EMPTY) {
        const local = this.add(bytes, start, end, hash);
        this.slots[slot] = local;
        if (this.size * 2 > mask) this.rehash();
        return local;
      }
      if (this.hashes[found] === hash && this.starts[found + 1] - this.starts[found] === length && this.equals(found, bytes, start, length)) return found;
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
    this.slots.fill(EMPTY);
  }

  private equals(local: number, bytes: Uint8Array, start: number, length: number): boolean {
    const arena = this.arena;
    const at = this.starts[local];
    for (let i = 0; i < length; i++) if (arena[at + i] !== bytes[start + i]) return false;
    return true;
  }

  private add(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    if (this.used + length > this.arena.length) this.growArena(this.used + length);
    this.arena.set(bytes.subarray(start, end), this.used);
    this.used += length;
    const local = this.size++;
    if (this.size >= this.hashes.length) this.growTerms();
    this.hashes[local] = hash;
    this.starts[local + 1] = this.used;
    return local;
  }

  private growArena(needed: number): void {
    const grown = new Uint8Array(Math.max(needed, Math.min(this.arena.length * 2, this.byteCap)));
    grown.set(this.arena.subarray(0, this.used));
    this.arena = grown;
  }

  private growTerms(): void {
    const hashes = new Int32Array(this.hashes.length * 2);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const starts = new Uint32Array(hashes.length + 1);
    starts.set(this.starts);
    this.starts = starts;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let local = 0; local < this.size; local++) {
      let slot = this.hashes[local] & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = local;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/**
 * A 32-bit hash of bytes[start, end), four bytes per multiply; finished with murmur3's avalanche so
 * that the low bits (the slot) depend on every byte.
 */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x9747b28c ^ (end - start);
  let i = start;
  for (const last = end - 3; i < last; i += 4) {
    const word = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    h = Math.imul(h ^ Math.imul(word, 0xcc9e2d51), 0x1b873593);
    h = (h << 13) | (h >>> 19);
  }
  for (; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
