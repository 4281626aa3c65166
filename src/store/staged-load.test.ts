import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { DEFAULT_GRAPH_ID } from './quad-store.js';
import { LmdbQuadStore, openStore } from './lmdb-store.js';
import { LOAD_MARKER } from './staged-load.js';
import { allQuads, sortedKeys } from './fixtures/sample-quads.js';
import { namedNode } from '../rdf/terms.js';

const term = (i: number) => namedNode(`http://example.org/t${i}`);

async function withDirectory(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-staged-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a staged load into an empty store has the effect of one transaction, statistics included', async () => {
  const staged = openStore({ memory: true }) as LmdbQuadStore;
  const single = openStore({ memory: true });
  try {
    const load = staged.beginStagedLoad();
    assert.ok(load);
    // Three transactions; the same quad in two of them counts once.
    for (const stage of [[0, 1, 2], [2, 3, 4], [0, 1, 2]]) {
      await load.stage(async (w) => {
        const [a, b, c] = stage.map((i) => w.intern(term(i)));
        w.addAll(Uint32Array.of(a, b, c, DEFAULT_GRAPH_ID, c, b, a, a));
      });
    }
    load.finish();
    single.write((w) => {
      for (const stage of [[0, 1, 2], [2, 3, 4]]) {
        const [a, b, c] = stage.map((i) => w.intern(term(i)));
        w.add(a, b, c, DEFAULT_GRAPH_ID);
        w.add(c, b, a, a);
      }
    });
    const [a, b] = [staged.reader(), single.reader()];
    assert.deepEqual(sortedKeys(allQuads(a)), sortedKeys(allQuads(b)));
    assert.deepEqual(a.statistics(), b.statistics());
    a.release();
    b.release();
    // The store is not empty any more: the next load is a single transaction.
    assert.equal(staged.beginStagedLoad(), undefined);
    assert.equal(staged.write(() => 'writable again'), 'writable again');
  } finally {
    await Promise.all([staged.close(), single.close()]);
  }
});

test('an aborted staged load leaves the store empty, even after committed stages', async () => {
  const store = openStore({ memory: true }) as LmdbQuadStore;
  try {
    const load = store.beginStagedLoad()!;
    await load.stage(async (w) => {
      w.addAll(Uint32Array.of(w.intern(term(1)), w.intern(term(2)), w.intern(term(3)), DEFAULT_GRAPH_ID));
    });
    load.abort();
    const reader = store.reader();
    assert.equal(reader.statistics().quadCount, 0);
    assert.equal(reader.statistics().termCount, 0);
    assert.equal(reader.idOf(term(1)), undefined);
    reader.release();
    assert.ok(store.beginStagedLoad(), 'empty again, so a staged load may start');
  } finally {
    await store.close();
  }
});

test('opening a store whose staged load died (its process is gone) clears what that load committed', async () => {
  await withDirectory(async (dir) => {
    const store = openStore({ path: dir }) as LmdbQuadStore;
    const load = store.beginStagedLoad()!;
    await load.stage(async (w) => {
      w.addAll(Uint32Array.of(w.intern(term(1)), w.intern(term(2)), w.intern(term(3)), DEFAULT_GRAPH_ID));
    });
    // As if the process had been killed here: the marker names a process that has exited.
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    await store.close();
    const raw = open({ path: dir, maxDbs: 32 });
    const meta = raw.openDB({ name: 'meta', encoding: 'binary' });
    const owner = JSON.parse(Buffer.from(meta.getBinary(LOAD_MARKER)!).toString('utf8')) as { pid: number; boot: string };
    await meta.put(LOAD_MARKER, Buffer.from(JSON.stringify({ ...owner, pid: deadPid })));
    await raw.close();

    const reopened = openStore({ path: dir });
    try {
      const reader = reopened.reader();
      assert.equal(reader.statistics().quadCount, 0);
      assert.equal(reader.idOf(term(1)), undefined);
      reader.release();
    } finally {
      await reopened.close();
    }
  });
});

test('the marker of a load that is still running is left alone', async () => {
  await withDirectory(async (dir) => {
    const store = openStore({ path: dir }) as LmdbQuadStore;
    const load = store.beginStagedLoad()!;
    await load.stage(async (w) => {
      w.addAll(Uint32Array.of(w.intern(term(1)), w.intern(term(2)), w.intern(term(3)), DEFAULT_GRAPH_ID));
    });
    // Another writable handle opened meanwhile (the loading process is alive): no recovery.
    const other = openStore({ path: dir });
    const reader = other.reader();
    assert.equal(reader.count(0, 0, 0, DEFAULT_GRAPH_ID), 1);
    reader.release();
    await other.close();
    load.finish();
    await store.close();
  });
});
