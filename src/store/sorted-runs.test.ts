import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedRuns, positionsToSort } from './sorted-runs.js';

/** Deterministic pseudo-random IDs from a small range, so that keys tie often. */
function ids(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return 1 + ((x >>> 8) % 7);
  };
}

function referenceOrder(entries: number[][], order: number[]): number[] {
  const numbers = entries.map((_, i) => i);
  // Array.prototype.sort is stable: ties keep the order in which the entries were added.
  return numbers.sort((a, b) => {
    for (const position of order) {
      const d = entries[a][position] - entries[b][position];
      if (d !== 0) return d;
    }
    return 0;
  });
}

/** The entries as inOrder hands them out, chunk after chunk. */
function inOrder(runs: SortedRuns, k: number): number[][] {
  const out: number[][] = [];
  const reader = runs.inOrder(k);
  // A small chunk: reading resumes where the previous read stopped.
  const chunk = new Uint32Array(5 * 4);
  for (let count; (count = reader.read(chunk, 5)) > 0;) {
    for (let i = 0; i < count; i++) out.push(Array.from(chunk.subarray(i * 4, i * 4 + 4)));
  }
  return out;
}

test('entries added in runs of any size come out in each order, ties in the order they were added', () => {
  const orders = [
    [1, 2, 0],
    [2, 0, 1, 3],
  ];
  const runs = new SortedRuns(1 << 20, orders);
  const next = ids(42);
  const added: number[][] = [];
  // Runs of uneven sizes exercise the merges of runs of similar size and the left-over runs.
  for (const size of [5, 300, 1, 64, 64, 700, 3, 0, 20_000, 17]) {
    const target = runs.reserve(size);
    for (let i = 0; i < size; i++) {
      const entry = [next(), next(), next(), next()];
      target.set(entry, runs.count * 4);
      runs.count++;
      added.push(entry);
    }
    runs.sealRun();
  }
  // Entries added after the last seal are included too.
  const target = runs.reserve(1);
  target.set([3, 3, 3, 3], runs.count * 4);
  runs.count++;
  added.push([3, 3, 3, 3]);
  for (let k = 0; k < orders.length; k++) {
    assert.deepEqual(
      inOrder(runs, k),
      referenceOrder(added, orders[k]).map((i) => added[i]),
    );
  }
});

test('after clear the runs start over', () => {
  const runs = new SortedRuns(1024, [[0, 1]]);
  for (const round of [0, 1]) {
    const target = runs.reserve(3);
    target.set([9, round, 0, 0, 1, round, 0, 0, 5, round, 0, 0], 0);
    runs.count = 3;
    runs.sealRun();
    assert.equal(runs.unsealed, 0);
    assert.deepEqual(inOrder(runs, 0), [
      [1, round, 0, 0],
      [5, round, 0, 0],
      [9, round, 0, 0],
    ]);
    runs.clear();
    assert.equal(runs.count, 0);
  }
});

test('runs added in a known order are sorted by fewer positions, with the same result', () => {
  const [S, P, O, G] = [0, 1, 2, 3];
  assert.deepEqual(positionsToSort([S, P, O], [P, O, S]), [P, O]);
  assert.deepEqual(positionsToSort([S, P, O], [O, S, P]), [O]);
  assert.deepEqual(positionsToSort([G, S, P, O], [S, P, O, G]), [S, P, O]);
  assert.deepEqual(positionsToSort([G, S, P, O], [G, O, S, P]), [G, O]);
  assert.deepEqual(positionsToSort([S, P, O], [S, P, O]), []);
  for (const added of [
    [S, P, O],
    [G, S, P, O],
  ]) {
    const orders =
      added.length === 3
        ? [
            [P, O, S],
            [O, S, P],
          ]
        : [
            [G, P, O, S],
            [G, O, S, P],
            [S, P, O, G],
            [P, O, S, G],
            [O, S, P, G],
          ];
    const runs = new SortedRuns(1 << 20, orders, added);
    const next = ids(7);
    const all: number[][] = [];
    for (const size of [40, 300, 1, 2000, 64]) {
      const run = Array.from({ length: size }, () => [next(), next(), next(), added.length === 3 ? 0 : next()]);
      // Each run comes sorted in the given order, as a loader's new quads do.
      const sorted = referenceOrder(run, added).map((i) => run[i]);
      const target = runs.reserve(size);
      for (const entry of sorted) target.set(entry, runs.count++ * 4);
      all.push(...sorted);
      runs.sealRun();
    }
    for (let k = 0; k < orders.length; k++)
      assert.deepEqual(
        inOrder(runs, k),
        referenceOrder(all, orders[k]).map((i) => all[i]),
        `${added} -> ${orders[k]}`,
      );
  }
});
