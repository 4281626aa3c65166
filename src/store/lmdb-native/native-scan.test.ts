import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANY, DEFAULT_GRAPH_ID, type TermId } from '../quad-store.js';
import { openStore } from '../lmdb-store.js';
import { matches, sortedKeys, writeSampleQuads } from '../fixtures/sample-quads.js';
import { allowNativeScans, nativeScansAvailable } from './native-scan.js';
import type { LmdbStoreReader } from '../lmdb-reader.js';

/** Whether the reader went through native cursors (it decides at its first read). */
function readsNatively(reader: unknown): boolean {
  return (reader as { native?: unknown }).native != null;
}

test('lmdb-js offers the native cursor functions the reads rely on', () => {
  assert.ok(nativeScansAvailable, 'nativeAddon.Cursor, position, iterate, getAddress');
});

test('native reads and lmdb-js range reads give the same answers to every pattern shape', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 1500);
  const missing = 99_999;
  const values = (position: number): TermId[] => [ANY, quads[3][position], quads[700][position], missing];
  const graphs = [DEFAULT_GRAPH_ID, ANY, ...new Set(quads.map((q) => q[3]).filter((g) => g !== DEFAULT_GRAPH_ID)), missing];
  const answers = (native: boolean): string[] => {
    const previous = allowNativeScans(native);
    const reader = store.reader();
    const out: string[] = [];
    try {
      for (const s of values(0))
        for (const p of values(1))
          for (const o of values(2))
            for (const g of graphs) {
              const expected = quads.filter((q) => matches(q, s, p, o, g));
              const scanned = sortedKeys(reader.scan(s, p, o, g));
              assert.deepEqual(scanned, sortedKeys(expected));
              assert.equal(reader.count(s, p, o, g), expected.length);
              assert.equal(reader.has(s, p, o, g), expected.length > 0);
              out.push(scanned.join(','));
            }
      assert.equal(readsNatively(reader), native);
    } finally {
      reader.release();
      allowNativeScans(previous);
    }
    return out;
  };
  assert.deepEqual(answers(true), answers(false));
  // Fully bound patterns, present and absent, in each graph.
  const reader = store.reader();
  for (const q of quads.slice(0, 200)) {
    assert.ok(reader.has(q[0], q[1], q[2], q[3]));
    assert.equal(reader.has(q[0], q[1], q[2], missing), false);
  }
  reader.release();
  await store.close();
});

test('scans of one index nest, stop early and start again, each on a cursor of its own', async () => {
  const store = openStore({ memory: true });
  const quads = writeSampleQuads(store, 400);
  const reader = store.reader();
  let pairs = 0;
  for (const a of reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)) {
    const subject = a[0];
    let n = 0;
    for (const b of reader.scan(subject, ANY, ANY, DEFAULT_GRAPH_ID)) {
      assert.equal(b[0], subject);
      // A third level on the same index, abandoned after one key.
      for (const c of reader.scan(b[0], b[1], ANY, DEFAULT_GRAPH_ID)) {
        assert.equal(c[1], b[1]);
        break;
      }
      n++;
    }
    assert.equal(n, quads.filter((q) => q[0] === subject && q[3] === DEFAULT_GRAPH_ID).length);
    pairs += n;
  }
  assert.ok(pairs > 0);
  assert.ok(readsNatively(reader));
  reader.release();
  await store.close();
});

test('a reader keeps its snapshot while writes commit, and a released reader refuses to read on', async () => {
  const store = openStore({ memory: true });
  writeSampleQuads(store, 200);
  const before = store.reader() as LmdbStoreReader;
  const countBefore = before.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID) + before.count(ANY, 1, ANY, DEFAULT_GRAPH_ID);
  const firstScan = before.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)[Symbol.iterator]();
  firstScan.next();
  writeSampleQuads(store, 200, 7);
  assert.equal(before.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID) + before.count(ANY, 1, ANY, DEFAULT_GRAPH_ID), countBefore);
  const after = store.reader();
  assert.ok(after.count(ANY, ANY, ANY, ANY) + after.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID) > 0);
  after.release();
  before.release();
  assert.throws(() => firstScan.next(), /released/);
  await store.close();
});

test('cursors handed on from reader to reader read each reader’s own snapshot', async () => {
  const store = openStore({ memory: true });
  writeSampleQuads(store, 100);
  const subjects = (reader: { scan: LmdbStoreReader['scan'] }): string[] => sortedKeys(reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID));
  const counts: number[] = [];
  for (let round = 0; round < 6; round++) {
    // One reader at a time (its cursors go to the next), then two at once (the first goes on
    // reading its snapshot while the second takes the current transaction).
    const first = store.reader() as LmdbStoreReader;
    const seen = subjects(first);
    assert.equal(first.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID), seen.length);
    counts.push(seen.length);
    if (round % 2 === 1) {
      writeSampleQuads(store, 60, 100 + round);
      const second = store.reader() as LmdbStoreReader;
      const newer = subjects(second);
      assert.ok(newer.length >= seen.length);
      assert.deepEqual(subjects(first), seen, 'the first reader keeps its snapshot');
      second.release();
    }
    first.release();
    writeSampleQuads(store, 40, 200 + round);
  }
  assert.ok(counts[5] > counts[0], 'each new reader sees the writes before it');
  const last = store.reader();
  const expected = sortedKeys(last.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID));
  last.release();
  const previous = allowNativeScans(false);
  try {
    const plain = store.reader();
    assert.deepEqual(sortedKeys(plain.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)), expected);
    plain.release();
  } finally {
    allowNativeScans(previous);
  }
  await store.close();
});
