/**
 * Ordering a batch of quads by an index's key order, for bulk inserts: B-tree inserts in key order
 * touch each leaf page once, and past the index's last key they can use MDB_APPEND, which fills
 * pages completely instead of splitting them half-full.
 *
 * LSD radix sort of a permutation, 16 bits per pass, last key position first: O(n) per pass with
 * no comparator calls, about 8 passes for a 4-ID key.
 */

/** Quads as a flat array, four IDs (s, p, o, g) per quad. */
export type QuadBatch = Uint32Array;

const DIGIT_BITS = 16;
const BUCKETS = 1 << DIGIT_BITS;

/** The quad numbers of the batch, sorted by the IDs at `order` (quad positions in key order). */
export function sortedQuadOrder(batch: QuadBatch, count: number, order: readonly number[]): Uint32Array {
  let current = new Uint32Array(count);
  for (let i = 0; i < count; i++) current[i] = i;
  let next = new Uint32Array(count);
  const buckets = new Uint32Array(BUCKETS);
  for (let k = order.length - 1; k >= 0; k--) {
    const position = order[k];
    let max = 0;
    for (let i = 0; i < count; i++) max = Math.max(max, batch[i * 4 + position]);
    // IDs below 2^16 (predicates, graphs, small stores) need one pass, not two.
    for (const shift of max < BUCKETS ? [0] : [0, DIGIT_BITS]) {
      buckets.fill(0);
      for (let i = 0; i < count; i++) buckets[(batch[current[i] * 4 + position] >>> shift) & (BUCKETS - 1)]++;
      let sum = 0;
      for (let b = 0; b < BUCKETS; b++) {
        const n = buckets[b];
        buckets[b] = sum;
        sum += n;
      }
      for (let i = 0; i < count; i++) {
        const quad = current[i];
        next[buckets[(batch[quad * 4 + position] >>> shift) & (BUCKETS - 1)]++] = quad;
      }
      [current, next] = [next, current];
    }
  }
  return current;
}

/** Compares two quads of a batch (or a batch quad and a key) in an index's key order. */
export function compareInOrder(a: ArrayLike<number>, aAt: number, b: ArrayLike<number>, bAt: number, order: readonly number[]): number {
  for (const position of order) {
    const d = a[aAt + position] - b[bAt + position];
    if (d !== 0) return d;
  }
  return 0;
}
