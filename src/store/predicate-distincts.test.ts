import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { namedNode } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, type QuadStore, type StoreWriter, type TermId } from './quad-store.js';
import { LmdbQuadStore, openStore } from './lmdb-store.js';
import { LmdbStoreWriter } from './lmdb-writer.js';
import { checkStoreConsistency } from './consistency-check.js';
import { allQuads, seededRandom, type IdQuad } from './fixtures/sample-quads.js';
import { encodeCount } from './statistics.js';

/**
 * Skewed quads, as real data has them: per predicate a different number of subjects and of values
 * per subject, so that store-wide distinct counts say nothing about one predicate.
 *   p0: 2,000 subjects, one value each (a label)
 *   p1: 20 subjects, ~100 objects each out of 1,500 (a hub)
 *   p2: 1,500 subjects, one of 4 objects each (a type)
 *   p3: 300 subjects, ~5 objects each, a third of them in a named graph
 */
function skewedQuads(terms: (name: string) => TermId, seed: number, scale = 1): IdQuad[] {
  const random = seededRandom(seed);
  const quads: IdQuad[] = [];
  const [p0, p1, p2, p3] = [0, 1, 2, 3].map((i) => terms(`p${i}`));
  const g = terms('g');
  const node = (i: number) => terms(`n${i}`);
  for (let i = 0; i < 2000 * scale; i++) quads.push([node(i), p0, terms(`label${i}`), DEFAULT_GRAPH_ID]);
  for (let i = 0; i < 20; i++) for (let k = 0; k < 100 * scale; k++) quads.push([node(i), p1, node(Math.floor(random() * 1500)), DEFAULT_GRAPH_ID]);
  for (let i = 0; i < 1500 * scale; i++) quads.push([node(i), p2, terms(`type${i % 4}`), DEFAULT_GRAPH_ID]);
  for (let i = 0; i < 300; i++) for (let k = 0; k < 5; k++) quads.push([node(i), p3, node(Math.floor(random() * 3000)), random() < 0.3 ? g : DEFAULT_GRAPH_ID]);
  return quads;
}

function internAll(w: StoreWriter): (name: string) => TermId {
  return (name) => w.intern(namedNode(`http://example.org/${name}`));
}

/** Per predicate, the exact distinct subjects and objects of the store's quads (all graphs). */
function bruteForce(store: QuadStore): Map<TermId, { count: number; subjects: number; objects: number }> {
  const reader = store.reader();
  try {
    const sets = new Map<TermId, { count: number; subjects: Set<TermId>; objects: Set<TermId> }>();
    for (const [s, p, o] of allQuads(reader)) {
      let entry = sets.get(p);
      if (!entry) sets.set(p, (entry = { count: 0, subjects: new Set(), objects: new Set() }));
      entry.count++;
      entry.subjects.add(s);
      entry.objects.add(o);
    }
    return new Map([...sets].map(([p, e]) => [p, { count: e.count, subjects: e.subjects.size, objects: e.objects.size }]));
  } finally {
    reader.release();
  }
}

/**
 * The statistics' figures against brute force: within the sketch's error (a few percent; 15% is
 * some three standard errors), and, after removals (`upperBound`), at least the true figure less
 * that error, at most the predicate's count.
 */
function assertFigures(store: QuadStore, label: string, upperBound = false): void {
  const reader = store.reader();
  const stats = reader.statistics();
  reader.release();
  const expected = bruteForce(store);
  assert.deepEqual([...(stats.predicateSubjects?.keys() ?? [])].sort(), [...expected.keys()].sort(), `${label}: every predicate has figures`);
  for (const [p, truth] of expected) {
    for (const [what, estimate, actual] of [
      ['subjects', stats.predicateSubjects!.get(p)!, truth.subjects],
      ['objects', stats.predicateObjects!.get(p)!, truth.objects],
    ] as const) {
      const slack = Math.max(1, actual * 0.15);
      const shown = `${label}: predicate ${p} has ${actual} distinct ${what}, estimated ${estimate}`;
      assert.ok(estimate >= actual - slack && estimate <= truth.count, shown);
      if (!upperBound) assert.ok(estimate <= actual + slack, shown);
    }
  }
}

async function assertConsistent(path: string, label: string): Promise<void> {
  assert.deepEqual((await checkStoreConsistency(path)).problems, [], label);
}

async function withStore(fn: (store: QuadStore, path: string) => Promise<void>): Promise<void> {
  const path = mkdtempSync(join(tmpdir(), 'quiver-predicate-distincts-'));
  const store = openStore({ path });
  try {
    await fn(store, path);
  } finally {
    await store.close();
    rmSync(path, { recursive: true, force: true });
  }
}

test('per-predicate distinct subjects and objects follow adds, removes, clears and drops, in every graph', async () => {
  await withStore(async (store, path) => {
    store.write((w) => {
      for (const q of skewedQuads(internAll(w), 1)) w.add(...q);
    });
    assertFigures(store, 'after adds');
    await assertConsistent(path, 'after adds');

    const random = seededRandom(3);
    store.write((w) => {
      const quads = allQuads(w);
      for (const q of quads) if (random() < 0.4) w.remove(...q);
    });
    assertFigures(store, 'after removes', true);
    await assertConsistent(path, 'after removes');

    store.write((w) => w.dropGraph(internAll(w)('g')));
    store.write((w) => {
      const terms = internAll(w);
      w.add(terms('n1'), terms('p4'), terms('n2'), DEFAULT_GRAPH_ID);
    });
    assertFigures(store, 'after a drop and a new predicate', true);
    await assertConsistent(path, 'after a drop and a new predicate');

    // A predicate that loses every quad starts anew: its old subjects do not linger.
    store.write((w) => {
      const p1 = internAll(w)('p1');
      for (const q of allQuads(w)) if (q[1] === p1) w.remove(...q);
      const terms = internAll(w);
      w.add(terms('x'), p1, terms('y'), DEFAULT_GRAPH_ID);
    });
    const reader = store.reader();
    const p1 = reader.idOf(namedNode('http://example.org/p1'))!;
    assert.equal(reader.statistics().predicateSubjects?.get(p1), 1);
    reader.release();
    await assertConsistent(path, 'after emptying a predicate and adding to it again');
  });
});

test('after removals the figures hold as upper bounds, until the removed quads pass half of those left: then they are rebuilt', async () => {
  await withStore(async (store, path) => {
    store.write((w) => {
      for (const q of skewedQuads(internAll(w), 1)) w.add(...q);
    });
    const subjectsOf = (): number => {
      const reader = store.reader();
      try {
        return reader.statistics().predicateSubjects!.get(reader.idOf(namedNode('http://example.org/p0'))!)!;
      } finally {
        reader.release();
      }
    };
    const first = subjectsOf();
    assert.ok(Math.abs(first - 2000) < 300, `${first}`);
    // p0 has one quad per subject: 200 removed per transaction take 200 subjects away.
    for (let round = 1; round <= 4; round++) {
      store.write((w) => {
        const p0 = internAll(w)('p0');
        const quads = allQuads(w).filter((q) => q[1] === p0);
        for (const q of quads.slice(0, 200)) w.remove(...q);
      });
      const left = 2000 - 200 * round;
      if (round < 4) assert.equal(subjectsOf(), Math.min(first, left), `round ${round}: ${200 * round} removed, ${left} left`);
      else assert.ok(Math.abs(subjectsOf() - left) < left * 0.15, `rebuilt after 800 removed of 2000: ${subjectsOf()} for ${left}`);
      await assertConsistent(path, `round ${round}`);
    }
  });
});

test('a bulk add, a load into a store with data and a staged load give the figures adds do', async () => {
  await withStore(async (store, path) => {
    // Into an empty store (a staged load), then into one with data (addAll, in one transaction).
    const load = (store as LmdbQuadStore).beginStagedLoad();
    assert.ok(load);
    for (const seed of [1, 2]) {
      await load.stage(async (w) => {
        w.addAll(Uint32Array.from(skewedQuads(internAll(w), seed).flat()));
      });
    }
    load.finish();
    assertFigures(store, 'after a staged load');
    await assertConsistent(path, 'after a staged load');
    store.write((w) => {
      assert.ok(w instanceof LmdbStoreWriter);
      const terms = (name: string) => w.intern(namedNode(`http://example.org/more-${name}`));
      const shared = internAll(w);
      // The same predicates, new subjects and objects: the sketches are merged with the stored ones.
      const quads = skewedQuads((name) => (name.startsWith('p') || name === 'g' ? shared(name) : terms(name)), 9, 2);
      w.addAll(Uint32Array.from(quads.flat()));
    });
    assertFigures(store, 'after a load into a store with data');
    await assertConsistent(path, 'after a load into a store with data');

    const one = openStore({ memory: true });
    try {
      one.write((w) => {
        for (const seed of [1, 2]) for (const q of skewedQuads(internAll(w), seed)) w.add(...q);
        const terms = (name: string) => w.intern(namedNode(`http://example.org/more-${name}`));
        const shared = internAll(w);
        for (const q of skewedQuads((name) => (name.startsWith('p') || name === 'g' ? shared(name) : terms(name)), 9, 2)) w.add(...q);
      });
      const [a, b] = [store.reader(), one.reader()];
      assert.deepEqual(a.statistics().predicateSubjects, b.statistics().predicateSubjects, 'the same sketches, whichever way the quads came');
      assert.deepEqual(a.statistics().predicateObjects, b.statistics().predicateObjects);
      a.release();
      b.release();
    } finally {
      await one.close();
    }
  });
});

test('a store written before the figures opens as it is; its predicates keep no figures, new ones get them', async () => {
  const path = mkdtempSync(join(tmpdir(), 'quiver-predicate-distincts-old-'));
  try {
    let store = openStore({ path });
    store.write((w) => {
      for (const q of skewedQuads(internAll(w), 1)) w.add(...q);
    });
    await store.close();
    // What an older version leaves: count-only entries, no sketches database.
    const raw = open({ path, maxDbs: 32 });
    const predicates = raw.openDB({ name: 'predicates', encoding: 'binary', keyEncoding: 'uint32' });
    const sketches = raw.openDB({ name: 'predicateSketches', encoding: 'binary', keyEncoding: 'uint32' });
    raw.transactionSync(() => {
      for (const { key, value } of [...predicates.getRange({})]) predicates.putSync(key, encodeCount(Buffer.from(value as Uint8Array).readDoubleBE(0)));
      sketches.dropSync();
    });
    await raw.close();
    await assertConsistent(path, 'an older store');

    const readOnly = openStore({ path, readOnly: true });
    const old = readOnly.reader();
    assert.equal(old.statistics().predicateSubjects?.size, 0, 'read-only: no figures, no error');
    old.release();
    await readOnly.close();

    store = openStore({ path });
    store.write((w) => {
      const terms = internAll(w);
      w.add(terms('a'), terms('p0'), terms('b'), DEFAULT_GRAPH_ID);
      w.add(terms('a'), terms('q'), terms('b'), DEFAULT_GRAPH_ID);
    });
    const reader = store.reader();
    const stats = reader.statistics();
    const [p0, q] = ['p0', 'q'].map((n) => reader.idOf(namedNode(`http://example.org/${n}`))!);
    reader.release();
    assert.equal(stats.predicateSubjects?.has(p0), false, 'an old predicate: its sketches would miss its old quads');
    assert.equal(stats.predicateCounts.get(p0), 2001);
    assert.equal(stats.predicateSubjects?.get(q), 1, 'a new predicate has them from its first quad');
    await store.close();
    await assertConsistent(path, 'an older store written to');
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('the consistency check finds sketches that miss quads and figures that are not their estimates', async () => {
  await withStore(async (store, path) => {
    store.write((w) => {
      for (const q of skewedQuads(internAll(w), 1)) w.add(...q);
    });
    await store.close();
    const raw = open({ path, maxDbs: 32 });
    const predicates = raw.openDB({ name: 'predicates', encoding: 'binary', keyEncoding: 'uint32' });
    const sketches = raw.openDB({ name: 'predicateSketches', encoding: 'binary', keyEncoding: 'uint32' });
    const [first, second] = [...predicates.getRange({})];
    raw.transactionSync(() => {
      const wrong = Buffer.from(first.value as Uint8Array);
      wrong.writeDoubleBE(12345, 8);
      predicates.putSync(first.key, wrong);
      // An empty sketch pair (sparse, no registers set) misses every subject and object.
      sketches.putSync(second.key, Buffer.from([1, 0, 0, 0, 0]));
    });
    await raw.close();
    const problems = (await checkStoreConsistency(path, 100)).problems.join('\n');
    assert.match(problems, /the distinct subjects of predicate .* is 12345/);
    assert.match(problems, /the subject sketch of predicate .* misses subjects/);
    assert.match(problems, /the object sketch of predicate .* misses objects/);
  });
});
