/**
 * Ordering a batch of quads by an index's key order, for bulk inserts: B-tree inserts in key order
 * touch each leaf page once, and past the index's last key they can use MDB_APPEND, which fills
 * pages completely instead of splitting them half-full.
 *
 * LSD radix sort of a permutation, last key position first, in digits of at most 11 bits so that
 * the bucket counts stay in the L1 cache, and only as many digits as the largest ID of the position
 * needs (predicates and graphs usually take one pass). Each position's IDs are gathered once into a
 * column that travels with the permutation, so the passes read sequentially.
 */

/** Quads as a flat array, four IDs (s, p, o, g) per quad. */
export type QuadBatch = Uint32Array;

const MAX_DIGIT_BITS = 11;

/** Reused between sorts: a load sorts many batches of the same size. */
let scratch: { perm: Uint32Array; permNext: Uint32Array; column: Uint32Array; columnNext: Uint32Array } | undefined;

function scratchFor(count: number): NonNullable<typeof scratch> {
  if (!scratch || scratch.perm.length < count) {
    scratch = { perm: new Uint32Array(count), permNext: new Uint32Array(count), column: new Uint32Array(count), columnNext: new Uint32Array(count) };
  }
  return scratch;
}

/** The quad numbers of the batch, sorted by the IDs at `order` (quad positions in key order); stable. */
export function sortedQuadOrder(batch: QuadBatch, count: number, order: readonly number[]): Uint32Array {
  const buffers = scratchFor(count);
  let perm = buffers.perm.subarray(0, count);
  let permNext = buffers.permNext.subarray(0, count);
  let column = buffers.column.subarray(0, count);
  let columnNext = buffers.columnNext.subarray(0, count);
  for (let i = 0; i < count; i++) perm[i] = i;
  const buckets = new Uint32Array(1 << MAX_DIGIT_BITS);
  for (let k = order.length - 1; k >= 0; k--) {
    const max = gatherColumn(batch, perm, column, count, order[k]);
    const bits = 32 - Math.clz32(max);
    const digits = Math.max(1, Math.ceil(bits / MAX_DIGIT_BITS));
    const digitBits = Math.ceil(bits / digits) || 1;
    const mask = (1 << digitBits) - 1;
    for (let digit = 0, shift = 0; digit < digits; digit++, shift += digitBits) {
      countDigits(column, count, buckets, shift, mask);
      scatter(perm, column, permNext, columnNext, count, buckets, shift, mask);
      [perm, permNext] = [permNext, perm];
      [column, columnNext] = [columnNext, column];
    }
  }
  // A fresh array: the caller keeps it while the scratch buffers serve the next sort.
  return perm.slice();
}

// Each pass is a function of its own: one function with all the loops was compiled by on-stack
// replacement loop after loop, and deoptimized at each next loop (no type feedback there yet), which
// made a process's first sorts of a load 5-10 times slower than the later ones.

/** Copies the IDs at `position` of the quads in permutation order into `column`; returns the largest. */
function gatherColumn(batch: QuadBatch, perm: Uint32Array, column: Uint32Array, count: number, position: number): number {
  let max = 0;
  for (let i = 0; i < count; i++) {
    const id = batch[perm[i] * 4 + position];
    column[i] = id;
    if (id > max) max = id;
  }
  return max;
}

/** Counts the digit values, then turns the counts into each value's first output position. */
function countDigits(column: Uint32Array, count: number, buckets: Uint32Array, shift: number, mask: number): void {
  buckets.fill(0, 0, mask + 1);
  for (let i = 0; i < count; i++) buckets[(column[i] >>> shift) & mask]++;
  let sum = 0;
  for (let b = 0; b <= mask; b++) {
    const n = buckets[b];
    buckets[b] = sum;
    sum += n;
  }
}

function scatter(
  perm: Uint32Array,
  column: Uint32Array,
  permNext: Uint32Array,
  columnNext: Uint32Array,
  count: number,
  buckets: Uint32Array,
  shift: number,
  mask: number,
): void {
  for (let i = 0; i < count; i++) {
    const id = column[i];
    const to = buckets[(id >>> shift) & mask]++;
    permNext[to] = perm[i];
    columnNext[to] = id;
  }
}

/**
 * Runs the sort on a small batch so that its passes are compiled with type feedback before a load's
 * first large batch (a loader calls this while it waits for its parser to start).
 */
export function warmUpSort(): void {
  const quads = 512;
  const batch = new Uint32Array(quads * 4);
  for (let i = 0; i < batch.length; i++) batch[i] = (Math.imul(i + 1, 0x9e3779b1) >>> 8) + 1;
  for (let round = 0; round < 8; round++) sortedQuadOrder(batch, quads, [0, 1, 2, 3]);
}

/** Compares two quads of a batch (or a batch quad and a key) in an index's key order. */
export function compareInOrder(a: ArrayLike<number>, aAt: number, b: ArrayLike<number>, bAt: number, order: readonly number[]): number {
  for (const position of order) {
    const d = a[aAt + position] - b[bAt + position];
    if (d !== 0) return d;
  }
  return 0;
}
