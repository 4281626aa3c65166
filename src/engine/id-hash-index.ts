/**
 * A hash index from term IDs to row numbers, open addressing over typed arrays: the index of a
 * solution table hashed on one slot. A Map costs 0.3-0.5 µs an operation on tables of 10^5 rows
 * (hashing boxed doubles, scattered entries); this costs a few hundredths of that, which is the
 * difference between a hash join on a large table winning or losing against index look-ups.
 * IDs are positive; 0 (unbound) marks an empty bucket.
 */
export class IdHashIndex {
  private readonly keys: Float64Array;
  private readonly values: Int32Array;
  private readonly mask: number;

  constructor(expectedKeys: number) {
    let capacity = 16;
    while (capacity < expectedKeys * 2) capacity *= 2;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** The bytes the index holds. */
  get bytes(): number {
    return this.keys.length * 12;
  }

  /** The value of an ID, or -1. */
  get(id: number): number {
    const keys = this.keys;
    for (let at = bucketOf(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at];
      if (k === id) return this.values[at];
      if (k === 0) return -1;
    }
  }

  /** Sets the value of an ID (at most expectedKeys distinct IDs). */
  set(id: number, value: number): void {
    const keys = this.keys;
    for (let at = bucketOf(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at];
      if (k === id || k === 0) {
        keys[at] = id;
        this.values[at] = value;
        return;
      }
    }
  }
}

/** A hash of an ID (IDs can exceed 32 bits: query-local ones do). */
function bucketOf(id: number): number {
  const low = id | 0;
  const high = (id / 4294967296) | 0;
  const h = Math.imul(low ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1);
  return h ^ (h >>> 16);
}
