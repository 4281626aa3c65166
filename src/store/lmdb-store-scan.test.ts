import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANY, DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { rangeFor } from './index-layout.js';
import { namedNode } from '../rdf/terms.js';
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

test('scans of one index opened together, before any steps, each keep their own range', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 600);
  const reader = store.reader();
  const [a, b] = distinct(quads.filter((q) => q[3] === DEFAULT_GRAPH_ID).map((q) => q[0]));
  const first = reader.scan(a, ANY, ANY, DEFAULT_GRAPH_ID)[Symbol.iterator]();
  const second = reader.scan(b, ANY, ANY, DEFAULT_GRAPH_ID)[Symbol.iterator]();
  // Reads of the same index in between must not move either scan.
  assert.ok(reader.count(a, ANY, ANY, DEFAULT_GRAPH_ID) > 0);
  assert.equal(reader.has(b, ANY, ANY, DEFAULT_GRAPH_ID), true);
  const seen: [IdQuad[], IdQuad[]] = [[], []];
  let steps: [IteratorResult<ArrayLike<number>>, IteratorResult<ArrayLike<number>>] = [first.next(), second.next()];
  while (!steps[0].done || !steps[1].done) {
    for (const i of [0, 1] as const) {
      const step = steps[i];
      if (step.done) continue;
      const q = step.value;
      seen[i].push([q[0], q[1], q[2], q[3]]);
    }
    steps = [steps[0].done ? steps[0] : first.next(), steps[1].done ? steps[1] : second.next()];
  }
  assert.deepEqual(sortedKeys(seen[0]), sortedKeys(quads.filter((q) => matches(q, a, ANY, ANY, DEFAULT_GRAPH_ID))));
  assert.deepEqual(sortedKeys(seen[1]), sortedKeys(quads.filter((q) => matches(q, b, ANY, ANY, DEFAULT_GRAPH_ID))));
  assert.equal(first.next().done, true, 'a finished scan stays finished');
  reader.release();
  await store.close();
});

test('a reader scans its snapshot before, inside and after a write callback', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 200);
  const reader = store.reader();
  const expected = sortedKeys(quads.filter((q) => q[3] === DEFAULT_GRAPH_ID));
  const snapshot = () => sortedKeys(reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID));
  assert.deepEqual(snapshot(), expected);
  const [s, p, o] = quads[0];
  store.write((w) => {
    const fresh = w.intern(namedNode('urn:fresh'));
    w.add(s, p, fresh, DEFAULT_GRAPH_ID);
    w.remove(s, p, o, quads[0][3]);
    assert.deepEqual(snapshot(), expected, 'inside the write');
    assert.equal(reader.count(s, p, ANY, DEFAULT_GRAPH_ID), quads.filter((q) => matches(q, s, p, ANY, DEFAULT_GRAPH_ID)).length);
  });
  assert.deepEqual(snapshot(), expected, 'after the commit');
  assert.equal(reader.count(s, p, ANY, DEFAULT_GRAPH_ID), quads.filter((q) => matches(q, s, p, ANY, DEFAULT_GRAPH_ID)).length);
  reader.release();
  const later = store.reader();
  assert.equal(
    later.count(s, p, ANY, DEFAULT_GRAPH_ID),
    quads.filter((q) => matches(q, s, p, ANY, DEFAULT_GRAPH_ID)).length + 1 - (quads[0][3] === DEFAULT_GRAPH_ID ? 1 : 0),
  );
  later.release();
  await store.close();
});

test('a snapshot keeps its content version through later commits, and has none inside a write callback', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 50);
  const reader = store.reader();
  const version = reader.contentVersion?.();
  assert.equal(typeof version, 'number');
  store.write((w) => {
    w.add(w.intern(namedNode('urn:s')), quads[0][1], quads[0][2], DEFAULT_GRAPH_ID);
    assert.equal(reader.contentVersion?.(), undefined, 'no version is vouched for while this thread writes');
  });
  assert.equal(reader.contentVersion?.(), version);
  reader.release();
  const later = store.reader();
  assert.notEqual(later.contentVersion?.(), version);
  later.release();
  await store.close();
});
