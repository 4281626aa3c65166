import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedQuads } from './keyed-quads.js';

/** Where a key's matches start, by a plain search: what find() must give, by binary search or hash. */
function searched(keys: Float64Array, key: number): number {
  let at = 0;
  while (at < keys.length && keys[at] < key) at++;
  return at;
}

function matches(table: KeyedQuads, key: number): number[] {
  const start = table.find(key);
  if (start < 0) return [];
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
