import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANY, DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { rangeFor } from './index-layout.js';
import { matches, sortedKeys, writeSampleQuads, type IdQuad } from './fixtures/sample-quads.js';

function distinct(values: TermId[]): TermId[] {
  return [...new Set(values)];
}

test('every pattern shape answers like a brute-force filter', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 1500);
  const reader = store.reader();
  // Each bound value is one that occurs plus one that does not (but is a valid term ID).
  const missing = 99_999;
  const values = (position: number): TermId[] => [ANY, quads[7][position], quads[400][position], missing];
  const graphs = [DEFAULT_GRAPH_ID, ANY, ...distinct(quads.map((q) => q[3]).filter((g) => g !== DEFAULT_GRAPH_ID)), missing];
  let patterns = 0;
  for (const s of values(0))
    for (const p of values(1))
      for (const o of values(2))
        for (const g of graphs) {
          const expected = quads.filter((q) => matches(q, s, p, o, g));
          const label = `pattern ${s} ${p} ${o} ${g}`;
          assert.deepEqual(sortedKeys(reader.scan(s, p, o, g)), sortedKeys(expected), label);
          assert.equal(reader.count(s, p, o, g), expected.length, `count of ${label}`);
          assert.equal(reader.has(s, p, o, g), expected.length > 0, `has of ${label}`);
          patterns++;
        }
  assert.equal(patterns, 4 * 4 * 4 * graphs.length);
  reader.release();
  await store.close();
});

test('every pattern is a single range whose bound positions form the key prefix', () => {
  for (const g of [DEFAULT_GRAPH_ID, 7, ANY])
    for (let mask = 0; mask < 8; mask++) {
      const [s, p, o] = [mask & 1 ? 2 : ANY, mask & 2 ? 3 : ANY, mask & 4 ? 4 : ANY];
      const range = rangeFor(s, p, o, g);
      const bound = [s, p, o, g].filter((x, i) => x !== ANY && !(i === 3 && g === DEFAULT_GRAPH_ID)).length;
      assert.equal(range.boundLength, bound, `${range.index.name} for ${s} ${p} ${o} ${g}`);
    }
});

test('a scan yields one reused array; nested scans do not disturb each other', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 300);
  const reader = store.reader();
  const outer: IdQuad[] = [];
  let inner = 0;
  let previous: unknown;
  for (const q of reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)) {
    if (previous !== undefined) assert.equal(q, previous, 'the same array each step');
    previous = q;
    outer.push([q[0], q[1], q[2], q[3]]);
    for (const r of reader.scan(q[0], ANY, ANY, ANY)) inner += r[0] === q[0] ? 1 : 0;
  }
  assert.deepEqual(sortedKeys(outer), sortedKeys(quads.filter((q) => q[3] === DEFAULT_GRAPH_ID)));
  assert.ok(inner > 0);
  reader.release();
  await store.close();
});

test('a scan stopped early releases its cursor and can start again', async () => {
  const store = openStore({ memory: true });
  writeSampleQuads(store, 300);
  const reader = store.reader();
  const scan = reader.scan(ANY, ANY, ANY, ANY);
  for (let round = 0; round < 3; round++) {
    let n = 0;
    for (const _ of scan) if (++n === 5) break;
    assert.equal(n, 5);
  }
  assert.equal([...scan].length, reader.count(ANY, ANY, ANY, ANY));
  reader.release();
  await store.close();
});
