import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namedNode } from '../rdf/terms.js';
import { ANY, DEFAULT_GRAPH_ID } from './quad-store.js';
import { openStore } from './lmdb-store.js';

const ex = (name: string) => namedNode(`http://example.org/${name}`);

test('named graph lifecycle: create, fill, clear, drop', async () => {
  const store = openStore({ memory: true });
  const [s, p, o, g1, g2] = store.write((w) => ['s', 'p', 'o', 'g1', 'g2'].map((n) => w.intern(ex(n))));
  const graphsNow = () => {
    const reader = store.reader();
    try {
      return reader.namedGraphs().sort();
    } finally {
      reader.release();
    }
  };

  assert.equal(
    store.write((w) => w.createGraph(g1)),
    true,
  );
  assert.equal(
    store.write((w) => w.createGraph(g1)),
    false,
    'exists already',
  );
  assert.deepEqual(graphsNow(), [g1], 'an empty graph exists once created');

  store.write((w) => {
    w.add(s, p, o, g2);
    w.add(o, p, s, g2);
    w.add(s, p, o, DEFAULT_GRAPH_ID);
  });
  assert.deepEqual(graphsNow(), [g1, g2].sort(), 'adding a quad makes its graph exist');

  store.write((w) => w.remove(o, p, s, g2));
  store.write((w) => w.remove(s, p, o, g2));
  assert.deepEqual(graphsNow(), [g1, g2].sort(), 'removing every quad keeps the graph');

  store.write((w) => {
    w.add(s, p, o, g1);
    w.add(s, p, s, g1);
  });
  assert.equal(
    store.write((w) => w.clearGraph(g1)),
    2,
  );
  const afterClear = store.reader();
  assert.ok(afterClear.hasNamedGraph(g1), 'clear keeps the graph');
  assert.equal(afterClear.count(ANY, ANY, ANY, g1), 0);
  assert.equal(afterClear.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID), 1, 'other graphs untouched');
  afterClear.release();

  store.write((w) => w.add(s, p, o, g1));
  assert.equal(
    store.write((w) => w.dropGraph(g1)),
    true,
  );
  assert.equal(
    store.write((w) => w.dropGraph(g1)),
    false,
    'gone already',
  );
  const afterDrop = store.reader();
  assert.equal(afterDrop.hasNamedGraph(g1), false);
  assert.equal(afterDrop.count(ANY, ANY, ANY, g1), 0);
  assert.equal(afterDrop.count(s, ANY, ANY, ANY), 0, 'its quads are gone from every index');
  assert.equal(afterDrop.hasNamedGraph(DEFAULT_GRAPH_ID), false, 'the default graph is not a named graph');
  afterDrop.release();
  assert.deepEqual(graphsNow(), [g2]);

  // Dropping and re-filling in one transaction.
  store.write((w) => {
    w.add(s, p, o, g2);
    assert.equal(w.dropGraph(g2), true);
    assert.equal(w.hasNamedGraph(g2), false);
    w.add(o, p, o, g2);
    assert.ok(w.hasNamedGraph(g2));
  });
  const last = store.reader();
  assert.equal(last.count(ANY, ANY, ANY, g2), 1);
  assert.equal(last.statistics().graphCounts.get(g2), 1);
  last.release();
  await store.close();
});

test('the default graph can be cleared (and "dropped", which clears it)', async () => {
  const store = openStore({ memory: true });
  const [s, p, o, g] = store.write((w) => ['s', 'p', 'o', 'g'].map((n) => w.intern(ex(n))));
  store.write((w) => {
    w.add(s, p, o, DEFAULT_GRAPH_ID);
    w.add(o, p, s, DEFAULT_GRAPH_ID);
    w.add(s, p, o, g);
  });
  assert.equal(
    store.write((w) => w.clearGraph(DEFAULT_GRAPH_ID)),
    2,
  );
  store.write((w) => w.add(s, p, s, DEFAULT_GRAPH_ID));
  assert.equal(
    store.write((w) => w.dropGraph(DEFAULT_GRAPH_ID)),
    true,
  );
  const reader = store.reader();
  assert.equal(reader.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID), 0);
  assert.equal(reader.count(ANY, ANY, ANY, ANY), 1);
  assert.throws(() => store.write((w) => w.createGraph(DEFAULT_GRAPH_ID)), RangeError);
  reader.release();
  await store.close();
});
