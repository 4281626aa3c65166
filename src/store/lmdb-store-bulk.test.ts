import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_GRAPH_ID } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { LmdbStoreWriter } from './lmdb-writer.js';
import { allQuads, seededRandom, sortedKeys, type IdQuad } from './fixtures/sample-quads.js';
import { sortedQuadOrder } from './sorted-keys.js';
import { namedNode } from '../rdf/terms.js';

function randomQuads(count: number, ids: number[], seed: number): IdQuad[] {
  const random = seededRandom(seed);
  const pick = () => ids[Math.floor(random() * ids.length)];
  return Array.from({ length: count }, (): IdQuad => [pick(), pick(), pick(), random() < 0.5 ? DEFAULT_GRAPH_ID : pick()]);
}

test('radix ordering sorts by the given key positions', () => {
  const random = seededRandom(3);
  const batch = Uint32Array.from({ length: 4000 }, () => Math.floor(random() * 2 ** 32));
  for (let i = 0; i < batch.length; i += 4) batch[i + 1] %= 50; // one narrow column
  const order = [1, 2, 0];
  const sorted = [...sortedQuadOrder(batch, 1000, order)];
  const expected = Array.from({ length: 1000 }, (_, i) => i).sort(
    (a, b) => batch[a * 4 + 1] - batch[b * 4 + 1] || batch[a * 4 + 2] - batch[b * 4 + 2] || batch[a * 4] - batch[b * 4] || a - b,
  );
  assert.deepEqual(sorted, expected);
});

test('addAll has the effect of add on each quad, statistics included', async () => {
  const one = openStore({ memory: true });
  const bulk = openStore({ memory: true });
  const terms = Array.from({ length: 30 }, (_, i) => namedNode(`http://example.org/t${i}`));
  for (const round of [1, 2, 3]) {
    // Round 1 appends into empty indexes; later rounds overlap what is there.
    const ids = one.write((w) => terms.map((t) => w.intern(t)));
    const quads = randomQuads(600, ids, round);
    const added = one.write((w) => quads.filter((q) => w.add(...q)).length);
    const addedInBulk = bulk.write((w) => {
      assert.deepEqual(
        terms.map((t) => w.intern(t)),
        ids,
      );
      assert.ok(w instanceof LmdbStoreWriter);
      return w.addAll(Uint32Array.from(quads.flat()));
    });
    assert.equal(addedInBulk, added, `round ${round}`);
  }
  const [a, b] = [one.reader(), bulk.reader()];
  assert.deepEqual(sortedKeys(allQuads(b)), sortedKeys(allQuads(a)));
  assert.deepEqual(b.statistics(), a.statistics());
  assert.deepEqual(b.namedGraphs().sort(), a.namedGraphs().sort());
  a.release();
  b.release();
  await Promise.all([one.close(), bulk.close()]);
});

test('inside the transaction, every read sees what addAll added, and removing one of those quads leaves no trace', async () => {
  const store = openStore({ memory: true });
  try {
    store.write((w) => {
      assert.ok(w instanceof LmdbStoreWriter);
      const [s, p, o, g] = ['s', 'p', 'o', 'g'].map((name) => w.intern(namedNode(`http://example.org/${name}`)));
      assert.equal(w.addAll(Uint32Array.of(s, p, o, DEFAULT_GRAPH_ID, o, p, s, g, s, p, o, DEFAULT_GRAPH_ID)), 2);
      // By object and by predicate: answered by secondary indexes, whose entries addAll held back.
      assert.equal(w.count(0, 0, o, DEFAULT_GRAPH_ID), 1);
      assert.equal(w.count(0, p, 0, 0), 1);
      assert.ok(w.has(0, 0, s, g));
      assert.ok(w.remove(s, p, o, DEFAULT_GRAPH_ID));
      assert.equal(w.addAll(Uint32Array.of(o, p, o, DEFAULT_GRAPH_ID)), 1);
    });
    const reader = store.reader();
    try {
      assert.equal(reader.count(0, 0, 0, DEFAULT_GRAPH_ID), 1);
      assert.equal([...reader.scan(0, 0, 0, DEFAULT_GRAPH_ID)].length, 1);
      const stats = reader.statistics();
      assert.equal(stats.quadCount, 2);
      assert.equal(stats.distinctSubjects, 1);
      assert.equal(stats.distinctObjects, 2);
    } finally {
      reader.release();
    }
  } finally {
    await store.close();
  }
});
