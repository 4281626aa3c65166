import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namedNode } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, type QuadStore, type StoreWriter } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { checkStoreConsistency } from './consistency-check.js';
import { CHANGES_PER_CHECKPOINT } from './write-checkpoints.js';

const ex = (name: string) => namedNode(`http://example.org/${name}`);
const QUADS = 5 * CHANGES_PER_CHECKPOINT;

/** Adds QUADS quads, each with a new subject, to `graph`. */
function addMany(w: StoreWriter, graph: number): void {
  const p = w.intern(ex('p'));
  for (let i = 0; i < QUADS; i++) w.add(w.intern(ex(`s${i}`)), p, p, graph);
}

async function snapshot(store: QuadStore): Promise<{ quads: number; terms: number }> {
  const check = await checkStoreConsistency(store.path);
  assert.deepEqual(check.problems, []);
  return { quads: check.quads, terms: check.terms };
}

test('a write transaction calls its checkpoint as it writes, and once more before it commits', async () => {
  const store = openStore({ memory: true });
  try {
    let calls = 0;
    store.write((w) => addMany(w, DEFAULT_GRAPH_ID), { checkpoint: () => calls++ });
    // A quad and its new subject term count as a change each, and the commit adds one call.
    assert.ok(calls >= QUADS / CHANGES_PER_CHECKPOINT + 1, `${calls} checkpoints`);
    assert.ok(calls <= (2 * QUADS + 1) / CHANGES_PER_CHECKPOINT + 1, `${calls} checkpoints`);
  } finally {
    await store.close();
  }
});

test('a checkpoint that throws aborts the transaction half way: adds, new terms and removals are undone', async () => {
  const store = openStore({ memory: true });
  try {
    const graph = store.write((w) => {
      const g = w.intern(ex('g'));
      addMany(w, g);
      return g;
    });
    const before = await snapshot(store);
    const stop = new Error('stop');
    let calls = 0;
    const checkpoint = (): void => {
      if (++calls === 3) throw stop;
    };
    assert.throws(() => store.write((w) => addMany(w, DEFAULT_GRAPH_ID), { checkpoint }), stop);
    calls = 0;
    assert.throws(() => store.write((w) => w.clearGraph(graph), { checkpoint }), stop);
    calls = 0;
    assert.throws(() => store.write((w) => w.dropGraph(graph), { checkpoint }), stop);
    assert.deepEqual(await snapshot(store), before);
    assert.equal(
      store.write((w) => w.add(w.intern(ex('one')), w.intern(ex('p')), w.intern(ex('more')), DEFAULT_GRAPH_ID)),
      true,
    );
    assert.equal((await snapshot(store)).quads, before.quads + 1);
  } finally {
    await store.close();
  }
});

test('a checkpoint that throws just before the commit aborts a transaction that wrote everything', async () => {
  const store = openStore({ memory: true });
  try {
    const before = await snapshot(store);
    const late = new Error('too late');
    let writing = true;
    const checkpoint = (): void => {
      if (!writing) throw late;
    };
    assert.throws(
      () =>
        store.write(
          (w) => {
            w.add(w.intern(ex('s')), w.intern(ex('p')), w.intern(ex('o')), DEFAULT_GRAPH_ID);
            writing = false;
          },
          { checkpoint },
        ),
      late,
    );
    assert.deepEqual(await snapshot(store), before);
  } finally {
    await store.close();
  }
});
