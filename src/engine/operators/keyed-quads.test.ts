import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachedKeyedQuads, KeyedQuads, keyedQuadsFor, OrderedProbes, setJoinTableCacheBytes, sortByKey } from './keyed-quads.js';
import { ExecContext } from '../exec-context.js';
import type { StoreReader } from '../../store/index.js';

/** Where a key's matches start, by a plain search: what find() must give, by binary search or hash. */
function searched(keys: Float64Array, key: number): number {
  let at = 0;
  while (at < keys.length && keys[at] < key) at++;
  return at;
}

function matches(table: KeyedQuads, key: number): number[] {
  const start = table.find(key);
  if (start < 0) return [];
  assert.ok(table.found > 0, `key ${key} found with no quads`);
  return Array.from({ length: table.found }, (_, i) => start + i);
}

describe('KeyedQuads', () => {
  for (const size of [10, 4095, 4096, 50_000]) {
    it(`finds every key's matches and none for absent keys (${size} quads)`, () => {
      // Keys with runs of equal values and gaps between them.
      const keys = Float64Array.from({ length: size }, (_, i) => 2 * Math.floor(i / 3) + 1);
      const table = new KeyedQuads(keys, new Float64Array(size), 1);
      for (const key of [1, 3, keys[size - 1], keys[Math.floor(size / 2)]]) {
        const start = searched(keys, key);
        assert.deepEqual(
          matches(table, key),
          [start, start + 1, start + 2].filter((i) => i < size && keys[i] === key),
        );
      }
      for (const absent of [0, 2, keys[size - 1] + 1, 2 ** 40]) assert.deepEqual(matches(table, absent), []);
    });
  }
});

describe('sortByKey', () => {
  it('orders quads by key as a stable comparison sort does, values along, over the whole range of term IDs', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const [size, distinct, writes] of [
      [0, 1, 1],
      [1, 1, 2],
      [1000, 10, 1],
      [70_000, 70_000, 2],
    ]) {
      // Keys that differ only in their low bits, only in their high bits, and near 2^32.
      const pool = Array.from({ length: distinct }, (_, i) => [i + 1, ((i % 65_535) + 1) * 65_536, 2 ** 32 - 1 - i][i % 3]);
      const keys = Float64Array.from({ length: size }, () => pool[Math.floor(random() * distinct)]);
      // Each quad's values name the quad, so that the expected order is checked on them too.
      const values = Float64Array.from({ length: size * writes }, (_, i) => Math.floor(i / writes) * 10 + (i % writes));
      const order = Array.from(keys.keys()).sort((a, b) => keys[a] - keys[b]);
      const expectedKeys = order.map((i) => keys[i]);
      const expectedValues = order.flatMap((i) => Array.from(values.subarray(i * writes, (i + 1) * writes)));
      sortByKey(keys, values, writes);
      assert.deepEqual(Array.from(keys), expectedKeys);
      assert.deepEqual(Array.from(values), expectedValues);
    }
  });
});

describe('OrderedProbes', () => {
  /** Probe sequences: in key order (with repeats and absent keys), reversed, shuffled, mixed. */
  function sequences(keys: Float64Array): Record<string, number[]> {
    const max = keys[keys.length - 1];
    const ascending = Array.from({ length: max + 3 }, (_, k) => k);
    const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const next = random(7);
    const shuffled = ascending
      .map((k) => [next(), k])
      .sort((a, b) => a[0] - b[0])
      .map(([, k]) => k);
    return {
      ascending,
      'each key twice': ascending.flatMap((k) => [k, k]),
      'every fifth key': ascending.filter((k) => k % 5 === 0),
      descending: [...ascending].reverse(),
      shuffled,
      'ascending, then shuffled, then ascending': [...ascending, ...shuffled, ...ascending],
      'runs of ascending keys': ascending.map((k) => (k % 100) * 50 + Math.floor(k / 100)),
    };
  }

  for (const size of [10, 5000]) {
    it(`finds what the table finds, whatever the order of the probes (${size} quads)`, () => {
      const keys = Float64Array.from({ length: size }, (_, i) => 2 * Math.floor(i / 3) + 1);
      const table = new KeyedQuads(keys, new Float64Array(size), 1);
      for (const [name, probes] of Object.entries(sequences(keys))) {
        const ordered = new OrderedProbes(table);
        for (const key of probes) {
          const start = ordered.find(key);
          const got = start < 0 ? [] : Array.from({ length: table.found }, (_, i) => start + i);
          assert.deepEqual(got, matches(table, key), `${name}: key ${key}`);
        }
      }
    });
  }
});

describe('the join tables a thread keeps', () => {
  /** A snapshot whose every predicate has 1,000 quads (a table of 16,000 bytes, no hash index). */
  const QUADS = 1000;
  const reader = {
    contentVersion: () => 1,
    scan: function* (_s: number, p: number) {
      for (let i = 1; i <= QUADS; i++) yield [i, p, 5000 + i, 0];
    },
  } as unknown as StoreReader;
  const ctx = new ExecContext(reader, { defaultGraphs: [0], namedGraphs: null });
  const table = (p: number) => keyedQuadsFor(reader, [0, p, 0, 0], 0, [2], ctx);
  const kept = (p: number) => cachedKeyedQuads(reader, [0, p, 0, 0], 0, [2]) !== undefined;
  after(() => setJoinTableCacheBytes(256 * 2 ** 20));

  it('are kept within the bytes set, the oldest dropped first', () => {
    setJoinTableCacheBytes(4 * QUADS * 16);
    for (const p of [1, 2, 3, 4, 5]) table(p);
    assert.equal(kept(5), true);
    assert.equal(kept(1), false);
  });

  it('are kept longer when used again', () => {
    setJoinTableCacheBytes(4 * QUADS * 16);
    for (const p of [1, 2, 3, 1, 4, 5]) table(p);
    assert.equal(kept(2), false);
    assert.equal(kept(1), true);
  });

  it('are not kept when one would take more than half of the bytes', () => {
    setJoinTableCacheBytes(QUADS * 16);
    table(1);
    assert.equal(kept(1), false);
  });
});
