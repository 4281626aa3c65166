import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IdTupleSet } from './id-tuple-set.js';

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
}

describe('IdTupleSet', () => {
  it('says whether each tuple is new, as a set of their texts does, for one to three IDs', () => {
    const next = random(23);
    for (const arity of [1, 2, 3]) {
      const set = new IdTupleSet(arity);
      const texts = new Set<string>();
      // Small IDs (many repeats), unbound values (0), and IDs past 2^32 (query-local ones).
      const pick = (): number => {
        const r = next();
        if (r < 0.1) return 0;
        if (r < 0.2) return 2 ** 40 + Math.floor(next() * 5);
        return 1 + Math.floor(next() * 40);
      };
      const width = 5;
      const slots = [4, 1, 3].slice(0, arity);
      const row = new Float64Array(width);
      for (let i = 0; i < 20_000; i++) {
        for (let s = 0; s < width; s++) row[s] = pick();
        const text = slots.map((s) => row[s]).join(' ');
        assert.equal(set.add(row, 0, slots), !texts.has(text), `arity ${arity}, tuple ${text}`);
        texts.add(text);
      }
      assert.equal(set.size, texts.size);
    }
  });

  it('reads a tuple at any offset of a batch, and grows past what it expected', () => {
    const set = new IdTupleSet(2, 1);
    const data = new Float64Array(3 * 10_000);
    for (let r = 0; r < 10_000; r++) {
      data[r * 3] = r;
      data[r * 3 + 2] = r % 7;
    }
    for (let r = 0; r < 10_000; r++) assert.equal(set.add(data, r * 3, [0, 2]), true);
    for (let r = 0; r < 10_000; r++) assert.equal(set.add(data, r * 3, [0, 2]), false);
    assert.equal(set.size, 10_000);
    assert.ok(set.bytes >= 10_000 * 2 * 8);
  });
});
