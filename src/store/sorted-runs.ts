/**
 * Entries held back by a bulk load (quads, or dictionary hashes in the same four-word layout) kept in
 * key order for one or more orders, as they arrive: what the load adds is sealed into runs, each run
 * sorted (radix, sorted-keys.ts) and merged with the previous runs of similar size (a binary-counter
 * merge: at most log2(runs) of them remain). Writing the entries out in order at the end is then a
 * scan, not a sort of everything after the parser has finished: the sorting happens while the
 * loader waits for its parser.
 */
import { sortedQuadOrder, type QuadBatch } from './sorted-keys.js';

/** Four words per entry, as QuadBatch. */
const STRIDE = 4;

export class SortedRuns {
  private stored = new Uint32Array(STRIDE * 65_536);
  /** Per order: entry numbers, each run's sorted in that order. */
  private orderings: Uint32Array[];
  /** Scratch for merging. */
  private mergeBuffer = new Uint32Array(0);
  /** Where each sealed run ends (entry numbers). */
  private runEnds: number[] = [];
  /** Entries held, sealed or not. */
  count = 0;

  /** Per order: the positions a run is sorted by (a prefix of the order, see addedInOrder). */
  private readonly sortPositions: (readonly number[])[];

  /**
   * @param limit the owner writes the entries out at about this many (arrays do not grow far past it)
   * @param orders the key orders (entry positions, most significant first) to keep the entries in
   * @param addedInOrder the order every run is added in, when it is (a loader's new quads come in
   *   its primary index's order): the stable sort of a run then needs fewer positions (see
   *   positionsToSort), e.g. SPO to OSP by O alone
   */
  constructor(
    private readonly limit: number,
    private readonly orders: readonly (readonly number[])[],
    addedInOrder?: readonly number[],
  ) {
    this.orderings = orders.map(() => new Uint32Array(65_536));
    this.sortPositions = orders.map((order) => (addedInOrder ? positionsToSort(addedInOrder, order) : order));
  }

  /** Room for n more entries; returns the array to write them into, from entry number `count` on. */
  reserve(n: number): Uint32Array {
    const needed = (this.count + n) * STRIDE;
    if (needed > this.stored.length) {
      // Doubling, but never far past the limit: this array is most of a bulk load's memory.
      const grown = new Uint32Array(Math.max(needed, Math.min(this.stored.length * 2, (this.limit + n) * STRIDE)));
      grown.set(this.stored.subarray(0, this.count * STRIDE));
      this.stored = grown;
      this.orderings = this.orderings.map((ordering) => {
        const grownOrdering = new Uint32Array(grown.length / STRIDE);
        grownOrdering.set(ordering.subarray(0, this.count));
        return grownOrdering;
      });
    }
    return this.stored;
  }

  /** The entries, four words each, in the order they were added (valid until the next reserve). */
  get entries(): QuadBatch {
    return this.stored;
  }

  /** Entries added since the last run was sealed. */
  get unsealed(): number {
    return this.count - this.sealedCount();
  }

  /** Makes the entries added since the last seal a run, sorted in every order; merges runs of similar size. */
  sealRun(): void {
    const first = this.sealedCount();
    const size = this.count - first;
    if (size === 0) return;
    const run = this.stored.subarray(first * STRIDE, this.count * STRIDE);
    for (let k = 0; k < this.orders.length; k++) {
      placeRun(sortedQuadOrder(run, size, this.sortPositions[k]), this.orderings[k], first, size);
    }
    this.runEnds.push(this.count);
    while (this.runEnds.length >= 2 && this.runSize(this.runEnds.length - 2) <= 2 * this.runSize(this.runEnds.length - 1)) this.mergeLastTwo();
  }

  /**
   * Seals, then returns a reader of every entry in order `k` (valid until the entries change). The
   * last two runs are merged as the reader goes rather than in a pass of their own.
   */
  inOrder(k: number): EntryReader {
    this.sealRun();
    while (this.runEnds.length > 2) this.mergeLastTwo();
    const middle = this.runEnds.length === 2 ? this.runEnds[0] : this.count;
    return new RunMerge(this.stored, this.orderings[k], middle, this.count, this.orders[k]);
  }

  /** Forgets every entry. */
  clear(): void {
    this.count = 0;
    this.runEnds = [];
  }

  private sealedCount(): number {
    return this.runEnds.length === 0 ? 0 : this.runEnds[this.runEnds.length - 1];
  }

  private runSize(run: number): number {
    return this.runEnds[run] - (run === 0 ? 0 : this.runEnds[run - 1]);
  }

  private mergeLastTwo(): void {
    const runs = this.runEnds.length;
    const start = runs === 2 ? 0 : this.runEnds[runs - 3];
    const middle = this.runEnds[runs - 2];
    const end = this.runEnds[runs - 1];
    if (this.mergeBuffer.length < end - start) this.mergeBuffer = new Uint32Array(Math.max(end - start, this.mergeBuffer.length * 2));
    for (let k = 0; k < this.orders.length; k++) {
      mergeAdjacent(this.stored, this.orderings[k], start, middle, end, this.mergeBuffer, this.orders[k]);
    }
    this.runEnds.splice(runs - 2, 1);
  }
}

/**
 * Compares the entry at xs[x] with the one at ys[y] in an order of four positions (see
 * fourPositions); negative, zero or positive.
 */
export function compareEntries(xs: Uint32Array, x: number, ys: Uint32Array, y: number, o0: number, o1: number, o2: number, o3: number): number {
  let d = xs[x + o0] - ys[y + o0];
  if (d === 0) {
    d = xs[x + o1] - ys[y + o1];
    if (d === 0) {
      d = xs[x + o2] - ys[y + o2];
      if (d === 0) d = xs[x + o3] - ys[y + o3];
    }
  }
  return d;
}

/** An order of up to four positions as exactly four, the last repeated (a repeated position compares equal). */
export function fourPositions(order: readonly number[]): [number, number, number, number] {
  const o1 = order.length > 1 ? order[1] : order[0];
  const o2 = order.length > 2 ? order[2] : o1;
  return [order[0], o1, o2, order.length > 3 ? order[3] : o2];
}

/**
 * Copies a run's sorted entry numbers (counted from the run's first) into the ordering, from
 * `first` on. A function of its own: compiled while sealRun's loop ran, sealRun was thrown away at
 * its first merge, run after run.
 */
function placeRun(sorted: Uint32Array, ordering: Uint32Array, first: number, size: number): void {
  for (let i = 0; i < size; i++) ordering[first + i] = sorted[i] + first;
}

/**
 * The shortest prefix of `order` that a stable sort of entries already in order `given` needs to
 * put them in `order`: entries equal on that prefix are in `given`'s order of the other positions,
 * which must then be the rest of `order`. From SPO, POS needs P and O (S already ties them in
 * order), OSP needs O alone.
 */
export function positionsToSort(given: readonly number[], order: readonly number[]): readonly number[] {
  for (let m = 0; m < order.length; m++) {
    const sorted = order.slice(0, m);
    const rest = given.filter((position) => !sorted.includes(position));
    if (rest.length === order.length - m && rest.every((position, i) => position === order[m + i])) return sorted;
  }
  return order;
}

/** Entries in key order, read a chunk at a time (SortedRuns.inOrder, or spilled run files). */
export interface EntryReader {
  /**
   * Copies up to `max` next entries (four words each) into `out`; returns how many (0: the end).
   * Copying them out of place first helps the caller: the scattered reads of a copying loop
   * overlap, whereas the caller's work between two entries would make each wait for memory alone.
   */
  read(out: Uint32Array, max: number): number;
  /** Releases what the reader holds open (run files). */
  close(): void;
}

/** The merge of the sorted ranges [0, middle) and [middle, end) of `ordering` (ties: first range first). */
class RunMerge implements EntryReader {
  private i = 0;
  private j: number;
  private readonly o0: number;
  private readonly o1: number;
  private readonly o2: number;
  private readonly o3: number;

  constructor(
    private readonly entries: QuadBatch,
    private readonly ordering: Uint32Array,
    private readonly middle: number,
    private readonly end: number,
    order: readonly number[],
  ) {
    this.j = middle;
    [this.o0, this.o1, this.o2, this.o3] = fourPositions(order);
  }

  read(out: Uint32Array, max: number): number {
    const { entries, ordering, middle, end, o0, o1, o2, o3 } = this;
    let i = this.i;
    let j = this.j;
    let count = 0;
    const limit = Math.min(max, out.length / STRIDE);
    while (count < limit && (i < middle || j < end)) {
      let from: number;
      if (j >= end || (i < middle && compareEntries(entries, ordering[i] * STRIDE, entries, ordering[j] * STRIDE, o0, o1, o2, o3) <= 0))
        from = ordering[i++] * STRIDE;
      else from = ordering[j++] * STRIDE;
      const to = count * STRIDE;
      out[to] = entries[from];
      out[to + 1] = entries[from + 1];
      out[to + 2] = entries[from + 2];
      out[to + 3] = entries[from + 3];
      count++;
    }
    this.i = i;
    this.j = j;
    return count;
  }

  close(): void {}
}

/**
 * Merges the sorted ranges [start, middle) and [middle, end) of `ordering` (entry numbers) into one
 * sorted range, through `buffer`. Ties keep the first range's entry first (stable).
 */
function mergeAdjacent(
  entries: QuadBatch,
  ordering: Uint32Array,
  start: number,
  middle: number,
  end: number,
  buffer: Uint32Array,
  order: readonly number[],
): void {
  const [o0, o1, o2, o3] = fourPositions(order);
  let i = start;
  let j = middle;
  let out = 0;
  while (i < middle && j < end) {
    const a = ordering[i];
    const b = ordering[j];
    if (compareEntries(entries, a * STRIDE, entries, b * STRIDE, o0, o1, o2, o3) <= 0) {
      buffer[out++] = a;
      i++;
    } else {
      buffer[out++] = b;
      j++;
    }
  }
  // What is left of the second range is already in place; the first range's rest goes before it.
  if (i < middle) ordering.copyWithin(start + out, i, middle);
  ordering.set(buffer.subarray(0, out), start);
}
