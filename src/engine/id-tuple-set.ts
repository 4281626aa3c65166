/**
 * A set of tuples of term IDs (the values of a few slots of a solution), open addressing over one
 * typed array: DISTINCT over several variables. A Set of string keys built per solution cost about
 * 0.8 µs a row on BSBM 10k's 219,000 producer-feature pairs (issue 23's a14), most of it making and
 * hashing the strings; this hashes the IDs where they lie. It grows by doubling, at most half full.
 * An unbound value is ID 0, so which buckets are taken is kept apart, in `used`.
 */
export class IdTupleSet {
  private tuples: Float64Array;
  private used: Uint8Array;
  private mask: number;
  private count = 0;

  constructor(
    /** How many IDs a tuple has. */
    readonly arity: number,
    expected = 8,
  ) {
    let capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    this.tuples = new Float64Array(capacity * arity);
    this.used = new Uint8Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The bytes the set holds. */
  get bytes(): number {
    return this.tuples.byteLength + this.used.byteLength;
  }

  /**
   * Adds the tuple of `data[offset + slots[i]]`; true when it was not there. Doubles the table
   * (and so its bytes) when it is half full.
   */
  add(data: Float64Array, offset: number, slots: readonly number[]): boolean {
    const arity = this.arity;
    const tuples = this.tuples;
    const used = this.used;
    for (let at = hashOf(data, offset, slots) & this.mask; ; at = (at + 1) & this.mask) {
      if (used[at] === 0) {
        const base = at * arity;
        for (let i = 0; i < arity; i++) tuples[base + i] = data[offset + slots[i]];
        used[at] = 1;
        if (++this.count * 2 > used.length) this.grow();
        return true;
      }
      if (sameTuple(tuples, at * arity, data, offset, slots)) return false;
    }
  }

  /** Makes room for `expected` tuples at once (no growth by doubling on the way there). */
  reserve(expected: number): void {
    let capacity = this.used.length;
    while (capacity < expected * 2) capacity *= 2;
    if (capacity > this.used.length) this.grow(capacity);
  }

  private grow(capacity = this.used.length * 2): void {
    const arity = this.arity;
    const oldTuples = this.tuples;
    const oldUsed = this.used;
    const tuples = (this.tuples = new Float64Array(capacity * arity));
    const used = (this.used = new Uint8Array(capacity));
    const mask = (this.mask = capacity - 1);
    const identity = Array.from({ length: arity }, (_, i) => i);
    // Plain loops and locals: a subarray per tuple, and the fields read at every step, made growing
    // cost more than all the adds (0.5 µs a tuple).
    for (let at = 0; at < oldUsed.length; at++) {
      if (oldUsed[at] === 0) continue;
      const base = at * arity;
      let to = hashOf(oldTuples, base, identity) & mask;
      while (used[to] !== 0) to = (to + 1) & mask;
      for (let i = 0; i < arity; i++) tuples[to * arity + i] = oldTuples[base + i];
      used[to] = 1;
    }
  }
}

function sameTuple(tuples: Float64Array, base: number, data: Float64Array, offset: number, slots: readonly number[]): boolean {
  for (let i = 0; i < slots.length; i++) if (tuples[base + i] !== data[offset + slots[i]]) return false;
  return true;
}

/** A hash of the IDs at `data[offset + slots[i]]` (which can exceed 32 bits: query-local ones do). */
export function hashOf(data: Float64Array, offset: number, slots: readonly number[]): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < slots.length; i++) {
    const id = data[offset + slots[i]];
    const low = id | 0;
    const high = (id / 4294967296) | 0;
    h = Math.imul(h ^ low, 0x9e3779b1);
    h = Math.imul(h ^ high, 0x85ebca6b);
  }
  // A full finalizer (MurmurHash3's): the table takes the low bits, which a product's low bits alone
  // decide (197,000 distinct pairs of BSBM-like IDs: ~100 → ~70 ms with it, before growth's fix).
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
