import { test } from 'node:test';
import assert from 'node:assert/strict';
import { literal, namedNode } from '../rdf/terms.js';
import { ANY, DEFAULT_GRAPH_ID, type StoreWriter } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { allQuads, sortedKeys, writeSampleQuads } from './fixtures/sample-quads.js';

const ex = (name: string) => namedNode(`http://example.org/${name}`);

test('a write that throws leaves nothing behind: quads, terms, graphs, statistics', async () => {
  const store = openStore({ memory: true });
  writeSampleQuads(store, 200);
  const before = store.reader();
  const quadsBefore = sortedKeys(allQuads(before));
  const statsBefore = before.statistics();
  const graphsBefore = before.namedGraphs();
  before.release();

  const failure = new Error('changed my mind');
  assert.throws(
    () =>
      store.write((w) => {
        const s = w.intern(ex('fresh-subject'));
        const p = w.intern(ex('fresh-predicate'));
        const g = w.intern(ex('fresh-graph'));
        w.add(s, p, w.intern(literal('fresh')), DEFAULT_GRAPH_ID);
        w.add(s, p, s, g);
        w.createGraph(w.intern(ex('empty-graph')));
        for (const q of allQuads(w).slice(0, 50)) w.remove(...q);
        w.dropGraph(graphsBefore[0]);
        assert.notDeepEqual(w.statistics(), statsBefore, 'the writer sees its changes');
        throw failure;
      }),
    failure,
  );

  const after = store.reader();
  assert.deepEqual(sortedKeys(allQuads(after)), quadsBefore);
  assert.deepEqual(after.statistics(), statsBefore);
  assert.deepEqual(after.namedGraphs(), graphsBefore);
  assert.equal(after.idOf(ex('fresh-subject')), undefined);
  assert.equal(after.idOf(literal('fresh')), undefined);
  after.release();
  // The IDs the aborted transaction handed out are issued again, to other terms.
  const reused = store.write((w) => w.intern(ex('another')));
  const reader = store.reader();
  assert.ok(reader.termOf(reused).equals(ex('another')));
  assert.equal(reader.statistics().termCount, statsBefore.termCount + 1);
  reader.release();
  await store.close();
});

test('the writer reads its own writes', async () => {
  const store = openStore({ memory: true });
  store.write((w) => {
    const [s, p, o, g] = ['s', 'p', 'o', 'g'].map((n) => w.intern(ex(n)));
    assert.equal(w.idOf(ex('s')), s);
    assert.ok(w.termOf(o).equals(ex('o')));
    assert.equal(w.add(s, p, o, DEFAULT_GRAPH_ID), true);
    assert.equal(w.add(s, p, o, DEFAULT_GRAPH_ID), false, 'already there');
    assert.equal(w.add(s, p, o, g), true);
    assert.ok(w.has(s, p, o, DEFAULT_GRAPH_ID));
    assert.equal(w.count(s, ANY, ANY, ANY), 1);
    assert.deepEqual(sortedKeys(w.scan(ANY, p, ANY, g)), [`${s} ${p} ${o} ${g}`]);
    assert.ok(w.hasNamedGraph(g));
    assert.equal(w.statistics().quadCount, 2);
    assert.equal(w.remove(s, p, o, DEFAULT_GRAPH_ID), true);
    assert.equal(w.remove(s, p, o, DEFAULT_GRAPH_ID), false, 'already gone');
    assert.equal(w.has(s, p, o, DEFAULT_GRAPH_ID), false);
    assert.equal(w.statistics().quadCount, 1);
  });
  await store.close();
});

test('a reader keeps the snapshot it started with, through later commits', async () => {
  const store = openStore({ memory: true });
  const [s, p] = store.write((w) => [w.intern(ex('s')), w.intern(ex('p'))]);
  const addObject = (name: string) => store.write((w) => w.add(s, p, w.intern(ex(name)), DEFAULT_GRAPH_ID));

  addObject('o1');
  const early = store.reader();
  addObject('o2');
  const later = store.reader();
  const scanStartedEarly = early.scan(s, ANY, ANY, DEFAULT_GRAPH_ID)[Symbol.iterator]();
  scanStartedEarly.next();
  await new Promise((resolve) => setTimeout(resolve, 20)); // lmdb-js renews its shared read txn on a new event turn
  addObject('o3');
  store.write((w) => w.remove(s, p, w.intern(ex('o1')), DEFAULT_GRAPH_ID));

  assert.equal(early.count(s, ANY, ANY, DEFAULT_GRAPH_ID), 1);
  assert.equal(early.statistics().quadCount, 1);
  assert.equal(early.idOf(ex('o2')) === undefined || early.count(ANY, ANY, early.idOf(ex('o2'))!, DEFAULT_GRAPH_ID) === 0, true);
  assert.equal(scanStartedEarly.next().done, true, 'a scan begun in the snapshot stays in it');
  assert.equal(later.count(s, ANY, ANY, DEFAULT_GRAPH_ID), 2);
  assert.equal(
    later.has(
      s,
      p,
      store.write((w) => w.intern(ex('o1'))),
      DEFAULT_GRAPH_ID,
    ),
    true,
  );
  const latest = store.reader();
  assert.equal(latest.count(s, ANY, ANY, DEFAULT_GRAPH_ID), 2, 'o2 and o3');
  assert.equal(latest.statistics().quadCount, 2);
  for (const reader of [early, later, latest]) reader.release();
  await store.close();
});

test('a reader used inside a write callback does not see the uncommitted writes', async () => {
  const store = openStore({ memory: true });
  const [s, p] = store.write((w) => [w.intern(ex('s')), w.intern(ex('p'))]);
  const reader = store.reader();
  store.write((w) => {
    const o = w.intern(ex('o'));
    w.add(s, p, o, DEFAULT_GRAPH_ID);
    assert.equal(reader.has(s, p, o, DEFAULT_GRAPH_ID), false);
    assert.equal(reader.count(s, ANY, ANY, DEFAULT_GRAPH_ID), 0);
    assert.equal(reader.idOf(ex('o')), undefined);
    assert.equal(reader.statistics().quadCount, 0);
    const inside = store.reader();
    assert.equal(inside.has(s, p, o, DEFAULT_GRAPH_ID), false, 'a reader opened during the write sees the last commit');
    inside.release();
  });
  assert.equal(reader.statistics().quadCount, 0);
  reader.release();
  await store.close();
});

test('write callbacks must be synchronous and cannot nest; a finished writer refuses use', async () => {
  const store = openStore({ memory: true });
  assert.throws(() => store.write(() => Promise.resolve(1)), TypeError);
  assert.throws(() => store.write(() => store.write(() => 1)), /nest/);
  let kept: StoreWriter | undefined;
  store.write((w) => {
    kept = w;
  });
  assert.throws(() => kept!.intern(ex('late')), /finished/);
  assert.equal(
    store.write(() => 'result'),
    'result',
  );
  const reader = store.reader();
  assert.equal(reader.statistics().quadCount, 0);
  reader.release();
  await store.close();
});

test('noSync stores commit and reopen like any other', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const path = mkdtempSync(join(tmpdir(), 'quiver-nosync-test-'));
  try {
    let store = openStore({ path, noSync: true });
    const written = writeSampleQuads(store, 100);
    await store.close();
    store = openStore({ path });
    const reader = store.reader();
    assert.deepEqual(sortedKeys(allQuads(reader)), sortedKeys(written));
    reader.release();
    await store.close();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});
