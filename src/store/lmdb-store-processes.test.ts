import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { termFromKey } from '../rdf/terms.js';
import { openStore } from './lmdb-store.js';
import { allQuads, sortedKeys, writeSampleQuads } from './fixtures/sample-quads.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'quiver-processes-test-'));
}

async function runNode(args: string[]): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const [code] = await once(child, 'close');
  assert.equal(code, 0, `child failed: ${err}`);
  return out;
}

test('a store written by another process reads back whole after reopen', async () => {
  const path = temporaryDirectory();
  try {
    const written = JSON.parse(await runNode([fixture('child-writer.js'), path, '500', '3'])) as {
      quads: string[];
      terms: [string, number][];
    };
    const store = openStore({ path, readOnly: true });
    const reader = store.reader();
    assert.deepEqual(sortedKeys(allQuads(reader)), written.quads);
    for (const [key, id] of written.terms) {
      assert.ok(reader.termOf(id).equals(termFromKey(key)), key);
      assert.equal(reader.idOf(termFromKey(key)), id);
    }
    assert.equal(reader.statistics().quadCount, written.quads.length);
    reader.release();
    await store.close();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('a worker thread reads what the main thread commits, each reader in its own snapshot', async () => {
  const path = temporaryDirectory();
  const store = openStore({ path });
  const worker = new Worker(fixture('worker-reader.js'), { workerData: { path } });
  const ask = async (message: string) => {
    worker.postMessage(message);
    const [answer] = await once(worker, 'message');
    return answer;
  };
  try {
    const first = writeSampleQuads(store, 200, 5);
    const seen = await ask('read');
    assert.deepEqual(seen.quads, sortedKeys(first));
    assert.equal(seen.quadCount, first.length);

    assert.equal(await ask('hold'), 'held');
    const second = writeSampleQuads(store, 200, 6);
    const both = store.reader();
    const all = sortedKeys(allQuads(both));
    both.release();
    assert.ok(all.length > first.length);
    assert.deepEqual((await ask('read')).quads, all, 'a new reader sees the new commit');
    const held = await ask('read-held');
    assert.deepEqual(held.quads, sortedKeys(first), 'the reader opened before the commit does not');
    assert.ok(second.length > 0);
    assert.equal(await ask('close'), 'closed');
  } finally {
    await worker.terminate();
    await store.close();
    rmSync(path, { recursive: true, force: true });
  }
});

test('read-only stores refuse writes and missing stores', async () => {
  const path = temporaryDirectory();
  try {
    assert.throws(() => openStore({ path: join(path, 'nothing-here'), readOnly: true }));
    const writable = openStore({ path });
    writeSampleQuads(writable, 10);
    const readOnly = openStore({ path, readOnly: true });
    assert.throws(() => readOnly.write(() => 1), /read-only/);
    await readOnly.close();
    await writable.close();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('a memory store lives in a temporary directory that close removes', async () => {
  const { existsSync } = await import('node:fs');
  const store = openStore({ memory: true });
  assert.ok(store.path.startsWith(tmpdir()));
  assert.ok(existsSync(store.path));
  writeSampleQuads(store, 10);
  await store.close();
  assert.equal(existsSync(store.path), false);
});

test('a store directory may have a dot in its name, and reopens with what was written', async () => {
  const parent = temporaryDirectory();
  try {
    for (const name of ['data.v2', 'store.mdb', '.hidden', 'a.b.c']) {
      const path = join(parent, name);
      const first = openStore({ path });
      writeSampleQuads(first, 10);
      const written = sortedKeys(allQuads(first.reader()));
      await first.close();
      const again = openStore({ path, readOnly: true });
      assert.deepEqual(sortedKeys(allQuads(again.reader())), written, name);
      await again.close();
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
