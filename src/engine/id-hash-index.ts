/**
 * A hash index from term IDs to row numbers, open addressing over one typed array: the index of a
 * solution table hashed on one slot. A Map costs 0.3-0.5 µs an operation on tables of 10^5 rows
 * (hashing boxed doubles, scattered entries); this costs a few hundredths of that, which is the
 * difference between a hash join on a large table winning or losing against index look-ups.
 * Each bucket holds its ID and value side by side: a probe of a table larger than the processor's
 * caches then misses them once, not once per array. IDs are positive; 0 (unbound) marks an empty
 * bucket.
 */
export class IdHashIndex {
  /** ID, value; ID, value; ... */
  private readonly buckets: Float64Array;
  private readonly mask: number;

  constructor(expectedKeys: number) {
    let capacity = 16;
    while (capacity < expectedKeys * 2) capacity *= 2;
    this.buckets = new Float64Array(capacity * 2);
    this.mask = capacity - 1;
  }

  /** The bytes the index holds. */
  get bytes(): number {
    return this.buckets.byteLength;
  }

  /** The value of an ID, or -1. */
  get(id: number): number {
    const buckets = this.buckets;
    for (let at = idHash(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = buckets[at * 2];
      if (k === id) return buckets[at * 2 + 1];
      if (k === 0) return -1;
    }
  }

  /** Sets the value of an ID (at most expectedKeys distinct IDs). */
  set(id: number, value: number): void {
    const buckets = this.buckets;
    for (let at = idHash(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = buckets[at * 2];
      if (k === id || k === 0) {
        buckets[at * 2] = id;
        buckets[at * 2 + 1] = value;
        return;
      }
    }
  }
}

/** A hash of an ID (IDs can exceed 32 bits: query-local ones do). */
export function idHash(id: number): number {
  const low = id | 0;
  const high = (id / 4294967296) | 0;
  const h = Math.imul(low ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1);
  return h ^ (h >>> 16);
}
