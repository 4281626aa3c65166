/**
 * Graph Store writes obey the update time limit and cancellation while they write: stopped half way
 * through their adds (or through the removal of the graph they replace or delete), they leave the
 * store exactly as it was. The writer is watched (store/fixtures/watched-writes.ts) so that the
 * stop falls in the write phase, after the document was parsed.
 */
import { after, afterEach, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import { checkStoreConsistency } from '../store/consistency-check.js';
import { clockJumpsAfter, jumpClock, watchedStore, type WriteWatch } from '../store/fixtures/watched-writes.js';
import { runUpdate } from '../engine/query-engine.js';
import { runGraphStoreWrite } from './graph-store-writes.js';
import type { GraphStoreMessage } from './worker-messages.js';
import { CancelledError, TimeoutError } from '../errors.js';

const EX = 'http://example.org/';
const OLD = 5000;
const NEW = 20_000;
const WRITES_BEFORE_STOP = 3000;

function triples(count: number, predicate: string): string {
  return Array.from({ length: count }, (_, i) => `<${EX}s${i}> <${EX}${predicate}> "${i}" .`).join('\n');
}

function message(operation: GraphStoreMessage['operation'], text = ''): GraphStoreMessage {
  const documents = operation === 'delete' ? [] : [{ text, contentType: 'application/n-triples' }];
  return { type: 'graphStore', jobId: 1, operation, graph: `${EX}g`, documents, deadline: Date.now() + 60_000 };
}

async function contents(store: QuadStore): Promise<{ quads: number; terms: number }> {
  const check = await checkStoreConsistency(store.path);
  assert.deepEqual(check.problems, []);
  return { quads: check.quads, terms: check.terms };
}

describe('a Graph Store write stopped while it writes is rolled back', () => {
  let store: QuadStore;
  let initial: { quads: number; terms: number };
  const notCancelled = (): boolean => false;

  before(async () => {
    store = openStore({ memory: true });
    await runGraphStoreWrite(store, message('put', triples(OLD, 'old')), notCancelled);
    initial = await contents(store);
    assert.equal(initial.quads, OLD);
  });
  afterEach(() => mock.restoreAll());
  after(() => store.close());

  test('PUT over an existing graph, past the time limit half way through its adds', async () => {
    const watch = clockJumpsAfter(WRITES_BEFORE_STOP);
    await assert.rejects(runGraphStoreWrite(watchedStore(store, watch), message('put', triples(NEW, 'new')), notCancelled), TimeoutError);
    mock.restoreAll();
    assert.ok(watch.adds >= WRITES_BEFORE_STOP && watch.adds < NEW, `stopped after ${watch.adds} adds`);
    assert.deepEqual(await contents(store), initial);
  });

  test('POST, cancelled half way through its adds', async () => {
    let cancelled = false;
    const watch: WriteWatch = { adds: 0, removes: 0, at: { after: WRITES_BEFORE_STOP, then: () => (cancelled = true) } };
    await assert.rejects(
      runGraphStoreWrite(watchedStore(store, watch), message('post', triples(NEW, 'new')), () => cancelled),
      CancelledError,
    );
    assert.ok(watch.adds < NEW, 'the POST ran to its end');
    assert.deepEqual(await contents(store), initial);
  });

  test('DELETE of a graph, past the time limit as its quads are removed', async () => {
    const watch: WriteWatch = { adds: 0, removes: 0, onGraphRemoval: jumpClock };
    await assert.rejects(runGraphStoreWrite(watchedStore(store, watch), message('delete'), notCancelled), TimeoutError);
    mock.restoreAll();
    assert.deepEqual(await contents(store), initial);
    // The writer is free: the next write goes through.
    await runUpdate(store, `INSERT DATA { <${EX}next> <${EX}p> <${EX}o> }`);
    assert.equal((await contents(store)).quads, OLD + 1);
  });
});
