/**
 * An update's time limit (and its cancellation) hold while it writes, not only while its WHERE
 * clause is evaluated: an update stopped half way through inserting or deleting quads leaves the
 * store exactly as it was, dictionary and indexes included, and the next update runs at once.
 *
 * To stop an update in its write phase and nowhere else, the store handed to the engine counts the
 * quads its writer adds and removes, and once a given number went through, the clock jumps an hour
 * ahead (or the cancel flag goes up): the WHERE clause is long evaluated by then, and the write phase
 * is still far from its end.
 */
import { after, afterEach, before, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { clockJumpsAfter, jumpClock, watchedStore, type WriteWatch } from '../../store/fixtures/watched-writes.js';
import { checkStoreConsistency, type StoreCheck } from '../../store/consistency-check.js';
import { runQuery, runUpdate } from '../query-engine.js';
import { CancelledError, TimeoutError } from '../../errors.js';

const PREFIX = 'PREFIX : <http://ex/> ';
/** Subjects with a :k triple: a WHERE over two of them has SIDE² solutions, found in a blink. */
const SIDE = 120;
const ROWS = SIDE * SIDE;
const CROSS = '?a :k ?x . ?b :k ?y';
/** Quads written before the update runs over: well into the write phase, far from its end. */
const WRITES_BEFORE_OVERRUN = 3000;

async function ask(store: QuadStore, query: string): Promise<boolean> {
  const result = await runQuery(store, PREFIX + query);
  assert.equal(result.kind, 'boolean');
  return result.value;
}

/** Quads, terms and soundness of the store, as a fresh read-only handle sees them. */
async function contents(store: QuadStore): Promise<Pick<StoreCheck, 'quads' | 'terms'>> {
  const check = await checkStoreConsistency(store.path);
  assert.deepEqual(check.problems, []);
  return { quads: check.quads, terms: check.terms };
}

/** A one-triple update right after the stopped one: the writer is free, and nothing got in the way. */
async function smallUpdateGoesThrough(store: QuadStore, name: string): Promise<void> {
  const started = performance.now();
  await runUpdate(store, `${PREFIX} INSERT DATA { :${name} :p :o }`, { deadline: Date.now() + 5000 });
  assert.ok(performance.now() - started < 1000, 'a one-triple update took over a second');
  assert.equal(await ask(store, `ASK { :${name} :p :o }`), true);
  await runUpdate(store, `${PREFIX} DELETE DATA { :${name} :p :o }`);
}

describe('an update stopped while it writes is rolled back', () => {
  let store: QuadStore;
  let initial: Pick<StoreCheck, 'quads' | 'terms'>;

  before(async () => {
    store = openStore({ memory: true });
    const subjects = Array.from({ length: SIDE }, (_, i) => `:s${i} :k ${i} .`).join('\n');
    await runUpdate(store, `${PREFIX} INSERT DATA { ${subjects} }`);
    // Quads for the DELETE to remove: one per solution of the cross product.
    await runUpdate(store, `${PREFIX} INSERT { GRAPH :old { ?a :r ?b } } WHERE { ${CROSS} }`);
  });
  /** The store before each test (the small updates' terms stay in the dictionary). */
  beforeEach(async () => {
    initial = await contents(store);
    assert.equal(initial.quads, SIDE + ROWS);
  });
  afterEach(() => mock.restoreAll());
  after(() => store.close());

  test('INSERT … WHERE past its time limit half way through its inserts (new terms too)', async () => {
    const watch = clockJumpsAfter(WRITES_BEFORE_OVERRUN);
    const update = `${PREFIX} INSERT { ?a :new ?b . ?a :label ?label } WHERE { ${CROSS} BIND(CONCAT("pair ", STR(?x), "-", STR(?y)) AS ?label) }`;
    await assert.rejects(runUpdate(watchedStore(store, watch), update, { deadline: Date.now() + 60_000 }), TimeoutError);
    mock.restoreAll();
    assert.ok(watch.adds >= WRITES_BEFORE_OVERRUN && watch.adds < 2 * ROWS, `stopped after ${watch.adds} adds`);
    assert.deepEqual(await contents(store), initial);
    assert.equal(await ask(store, 'ASK { ?a :new ?b }'), false);
    await smallUpdateGoesThrough(store, 'afterInsert');
  });

  test('DELETE WHERE past its time limit half way through its removals', async () => {
    const watch = clockJumpsAfter(WRITES_BEFORE_OVERRUN);
    const update = `${PREFIX} DELETE WHERE { GRAPH :old { ?a :r ?b } }`;
    await assert.rejects(runUpdate(watchedStore(store, watch), update, { deadline: Date.now() + 60_000 }), TimeoutError);
    mock.restoreAll();
    assert.ok(watch.removes >= WRITES_BEFORE_OVERRUN && watch.removes < ROWS, `stopped after ${watch.removes} removes`);
    assert.deepEqual(await contents(store), initial);
    await smallUpdateGoesThrough(store, 'afterDelete');
  });

  test('a request of several operations, the second past the limit: nothing of the first stays either', async () => {
    const watch = clockJumpsAfter(WRITES_BEFORE_OVERRUN);
    const update = `${PREFIX} INSERT DATA { :first :p :o } ; DELETE { GRAPH :old { ?a :r ?b } } INSERT { ?b :swapped ?a } WHERE { GRAPH :old { ?a :r ?b } }`;
    await assert.rejects(runUpdate(watchedStore(store, watch), update, { deadline: Date.now() + 60_000 }), TimeoutError);
    mock.restoreAll();
    assert.ok(watch.adds + watch.removes < 2 * ROWS, 'the update ran to its end');
    assert.deepEqual(await contents(store), initial);
    assert.equal(await ask(store, 'ASK { :first :p :o }'), false);
    await smallUpdateGoesThrough(store, 'afterTwoOperations');
  });

  test('DROP of a large graph past its time limit (the store removes its quads itself)', async () => {
    const watch: WriteWatch = { adds: 0, removes: 0, onGraphRemoval: jumpClock };
    await assert.rejects(runUpdate(watchedStore(store, watch), `${PREFIX} DROP GRAPH :old`, { deadline: Date.now() + 60_000 }), TimeoutError);
    mock.restoreAll();
    assert.deepEqual(await contents(store), initial);
    assert.equal(await ask(store, 'ASK { GRAPH :old { ?a :r ?b } }'), true);
  });

  test('an update cancelled half way through its inserts', async () => {
    let cancelled = false;
    const watch: WriteWatch = { adds: 0, removes: 0, at: { after: WRITES_BEFORE_OVERRUN, then: () => (cancelled = true) } };
    const update = `${PREFIX} INSERT { ?a :new ?b } WHERE { ${CROSS} }`;
    await assert.rejects(runUpdate(watchedStore(store, watch), update, { isCancelled: () => cancelled }), CancelledError);
    assert.ok(watch.adds < ROWS, 'the update ran to its end');
    assert.deepEqual(await contents(store), initial);
    await smallUpdateGoesThrough(store, 'afterCancel');
  });

  test('an update that ends within its limit commits, however many quads it wrote', async () => {
    const watch: WriteWatch = { adds: 0, removes: 0 };
    await runUpdate(watchedStore(store, watch), `${PREFIX} INSERT { ?a :new ?b } WHERE { ${CROSS} }`, { deadline: Date.now() + 60_000 });
    assert.equal(watch.adds, ROWS);
    assert.equal((await contents(store)).quads, initial.quads + ROWS);
    await runUpdate(store, `${PREFIX} DELETE WHERE { ?a :new ?b }`);
    assert.deepEqual((await contents(store)).quads, initial.quads);
  });
});
