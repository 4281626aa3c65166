import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IdHashIndex } from './id-hash-index.js';

describe('IdHashIndex', () => {
  it('gives what a Map gives, for neighbouring IDs, scattered ones and IDs past 2^32', () => {
    const ids = [
      ...Array.from({ length: 3000 }, (_, i) => i + 1),
      ...Array.from({ length: 3000 }, (_, i) => (i + 1) * 65_537),
      ...Array.from({ length: 3000 }, (_, i) => 2 ** 32 + i * 4096),
    ];
    const index = new IdHashIndex(ids.length);
    const expected = new Map<number, number>();
    ids.forEach((id, i) => {
      index.set(id, i);
      expected.set(id, i);
    });
    // Setting an ID again replaces its value.
    index.set(ids[7]!, -5);
    expected.set(ids[7]!, -5);
    for (const [id, value] of expected) assert.equal(index.get(id), value, `ID ${id}`);
    for (const absent of [ids.length + 2 ** 20, 3 * 2 ** 32 + 1, 65_537 * 3001]) assert.equal(index.get(absent), -1);
  });
});
