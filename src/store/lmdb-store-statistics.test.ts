import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namedNode } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, type QuadStore, type StoreStatistics, type TermId } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { allQuads, prefixEntryCount, seededRandom, writeSampleQuads, type IdQuad } from './fixtures/sample-quads.js';

function countBy(quads: IdQuad[], position: number): Map<TermId, number> {
  const counts = new Map<TermId, number>();
  for (const q of quads) counts.set(q[position], (counts.get(q[position]) ?? 0) + 1);
  return counts;
}

/** What the statistics must say, computed from a full scan. */
function bruteForceStatistics(store: QuadStore): Omit<StoreStatistics, 'termCount'> {
  const reader = store.reader();
  try {
    const quads = allQuads(reader);
    const graphCounts = new Map<TermId, number>(reader.namedGraphs().map((g) => [g, 0]));
    for (const [g, n] of countBy(quads, 3)) graphCounts.set(g, n);
    graphCounts.set(DEFAULT_GRAPH_ID, graphCounts.get(DEFAULT_GRAPH_ID) ?? 0);
    return {
      quadCount: quads.length,
      defaultGraphCount: graphCounts.get(DEFAULT_GRAPH_ID)!,
      graphCounts,
      predicateCounts: countBy(quads, 1),
      distinctSubjects: countBy(quads, 0).size,
      distinctObjects: countBy(quads, 2).size,
    };
  } finally {
    reader.release();
  }
}

function assertStatistics(store: QuadStore, label: string): StoreStatistics {
  const reader = store.reader();
  const { termCount, predicateSubjects, predicateObjects, ...kept } = reader.statistics();
  reader.release();
  const sorted = (m: ReadonlyMap<TermId, number>) => [...m].sort((a, b) => a[0] - b[0]);
  // Their values are estimates, compared with brute force in predicate-distincts.test.ts.
  assert.deepEqual([...(predicateSubjects?.keys() ?? [])].sort(), [...kept.predicateCounts.keys()].sort(), `${label}: subjects of every predicate`);
  assert.deepEqual([...(predicateObjects?.keys() ?? [])].sort(), [...kept.predicateCounts.keys()].sort(), `${label}: objects of every predicate`);
  const expected = bruteForceStatistics(store);
  assert.deepEqual(
    { ...kept, graphCounts: sorted(kept.graphCounts), predicateCounts: sorted(kept.predicateCounts) },
    { ...expected, graphCounts: sorted(expected.graphCounts), predicateCounts: sorted(expected.predicateCounts) },
    label,
  );
  return { termCount, predicateSubjects, predicateObjects, ...kept };
}

test('statistics follow adds, removes, clears and drops, and survive a reopen', async () => {
  const path = mkdtempSync(join(tmpdir(), 'quiver-statistics-test-'));
  try {
    let store = openStore({ path });
    writeSampleQuads(store, 800, 1);
    assertStatistics(store, 'after adds');

    const random = seededRandom(7);
    store.write((w) => {
      const quads = allQuads(w);
      for (const q of quads) if (random() < 0.3) w.remove(...q);
      // Re-adding some removed quads in the same transaction must not count their terms twice.
      for (const q of quads.slice(0, 40)) w.add(...q);
    });
    assertStatistics(store, 'after removes and re-adds');

    writeSampleQuads(store, 300, 2);
    const reader = store.reader();
    const [g0, g1] = reader.namedGraphs();
    reader.release();
    store.write((w) => w.clearGraph(g0));
    assertStatistics(store, 'after clear');
    store.write((w) => w.dropGraph(g1));
    store.write((w) => w.createGraph(w.intern(namedNode('http://example.org/empty'))));
    store.write((w) => w.clearGraph(DEFAULT_GRAPH_ID));
    const before = assertStatistics(store, 'after drop, create and clearing the default graph');
    assert.equal(before.termCount, 12 + 5 + 4 + 3 + 1 + prefixEntryCount(store), 'every interned term, whether used or not');

    await store.close();
    store = openStore({ path });
    const reopened = store.reader();
    assert.deepEqual(reopened.statistics(), before, 'after reopen');
    reopened.release();
    await store.close();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('distinct subjects and objects count every graph together', async () => {
  const store = openStore({ memory: true });
  const [a, b, p, g] = store.write((w) => ['a', 'b', 'p', 'g'].map((n) => w.intern(namedNode(`http://example.org/${n}`))));
  const stats = () => {
    const reader = store.reader();
    const { distinctSubjects, distinctObjects } = reader.statistics();
    reader.release();
    return [distinctSubjects, distinctObjects];
  };
  store.write((w) => {
    w.add(a, p, b, DEFAULT_GRAPH_ID);
    w.add(a, p, b, g);
  });
  assert.deepEqual(stats(), [1, 1]);
  store.write((w) => w.remove(a, p, b, DEFAULT_GRAPH_ID));
  assert.deepEqual(stats(), [1, 1], 'still in g');
  store.write((w) => {
    w.remove(a, p, b, g);
    w.add(b, p, a, g);
  });
  assert.deepEqual(stats(), [1, 1], 'a and b swapped roles');
  store.write((w) => w.dropGraph(g));
  assert.deepEqual(stats(), [0, 0]);
  await store.close();
});

test('the content version changes with every transaction that changes quads, and only then', async () => {
  const store = openStore({ memory: true });
  try {
    const version = () => {
      const reader = store.reader();
      try {
        return reader.contentVersion?.();
      } finally {
        reader.release();
      }
    };
    assert.equal(version(), undefined, 'a store no write has touched vouches for nothing');
    const [s, p, o] = store.write((w) => [w.intern(namedNode('urn:s')), w.intern(namedNode('urn:p')), w.intern(namedNode('urn:o'))]);
    assert.equal(version(), undefined, 'new terms alone change no quad');
    store.write((w) => w.add(s, p, o, DEFAULT_GRAPH_ID));
    const first = version();
    assert.equal(typeof first, 'number');
    const held = store.reader();
    store.write((w) => {
      assert.equal(w.contentVersion?.(), undefined, 'a writer sees its own changes under any version');
      w.remove(s, p, o, DEFAULT_GRAPH_ID);
      w.add(s, p, o, DEFAULT_GRAPH_ID);
    });
    const second = version();
    assert.notEqual(second, first, 'a remove and re-add leave the counts alone, not the version');
    assert.equal(held.contentVersion?.(), first, 'an older snapshot keeps its version');
    held.release();
    store.write((w) => w.intern(namedNode('urn:other')));
    assert.equal(version(), second);
  } finally {
    await store.close();
  }
});
