import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOLDERS_DIRECTORY, StoreInUseError, StoreLock, currentProcess, isAlive } from './store-lock.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function withDirectory(fn: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-lock-'));
  return Promise.resolve()
    .then(() => fn(dir))
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** A claim file as another process would have made it. */
function plantClaim(dir: string, owner: { pid: number; start?: string; boot?: string; pidNamespace?: string }, kind: 'shared' | 'exclusive'): string {
  const me = currentProcess();
  const name = [owner.pid, owner.start ?? me.start, owner.boot ?? me.boot, owner.pidNamespace ?? me.pidNamespace, 'planted', kind].join('.');
  mkdirSync(join(dir, HOLDERS_DIRECTORY), { recursive: true });
  writeFileSync(join(dir, HOLDERS_DIRECTORY, name), '');
  return name;
}

function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

test('this process is alive; an exited one, one of another boot or with another start time is not', () => {
  const me = currentProcess();
  assert.ok(isAlive(me));
  assert.equal(isAlive({ ...me, pid: deadPid() }), false);
  assert.equal(isAlive({ ...me, boot: '00000000-0000-0000-0000-000000000000' }), me.boot === '');
  if (me.start !== '') assert.equal(isAlive({ ...me, start: String(Number(me.start) + 1) }), false, 'the pid now names another process');
});

test('claims of processes that are gone are ignored and removed', async () => {
  await withDirectory((dir) => {
    const stale = [plantClaim(dir, { pid: deadPid() }, 'exclusive'), plantClaim(dir, { pid: deadPid() }, 'shared')];
    if (currentProcess().start !== '') stale.push(plantClaim(dir, { pid: process.pid, start: '1' }, 'exclusive'));
    const lock = StoreLock.acquireShared(dir, false);
    assert.equal(lock.tryExclusive(), undefined);
    const left = readdirSync(join(dir, HOLDERS_DIRECTORY));
    for (const name of stale) assert.ok(!left.includes(name), name);
    assert.equal(left.length, 2, 'this handle: shared and exclusive');
    lock.release();
    assert.deepEqual(readdirSync(join(dir, HOLDERS_DIRECTORY)), []);
  });
});

test('a live exclusive claim refuses other opens (after a short wait); a live claim of any kind refuses an exclusive one', async () => {
  await withDirectory(async (dir) => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const exclusive = plantClaim(dir, { pid: child.pid!, start: '' }, 'exclusive');
      const started = Date.now();
      assert.throws(
        () => StoreLock.acquireShared(dir, false),
        (error: Error) => error instanceof StoreInUseError && error.message.includes(`process ${child.pid}`) && error.message.includes(exclusive),
      );
      assert.ok(Date.now() - started >= 400, 'it waited for the claim to go');
      assert.throws(() => StoreLock.acquireShared(dir, true), StoreInUseError);
      rmSync(join(dir, HOLDERS_DIRECTORY, exclusive));

      plantClaim(dir, { pid: child.pid!, start: '' }, 'shared');
      const lock = StoreLock.acquireShared(dir, false);
      assert.deepEqual(lock.tryExclusive(), [child.pid]);
      assert.equal(readdirSync(join(dir, HOLDERS_DIRECTORY)).filter((name) => name.endsWith('.exclusive')).length, 0, 'withdrawn');
      lock.release();
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    // Its claim is stale now.
    const lock = StoreLock.acquireShared(dir, false);
    assert.equal(lock.tryExclusive(), undefined);
    lock.release();
  });
});

test('a claim of another PID namespace cannot be checked and counts as live', async () => {
  if (currentProcess().pidNamespace === '') return;
  await withDirectory((dir) => {
    plantClaim(dir, { pid: deadPid(), pidNamespace: '1' }, 'shared');
    const lock = StoreLock.acquireShared(dir, false);
    assert.equal(lock.tryExclusive()?.length, 1);
    lock.release();
  });
});

test('a read-only claim on a missing store creates nothing', async () => {
  await withDirectory((dir) => {
    const missing = join(dir, 'missing');
    StoreLock.acquireShared(missing, true).release();
    assert.equal(existsSync(missing), false);
  });
});

test('processes racing for shared and exclusive claims never overlap an exclusive one with any other', { timeout: 60_000 }, async () => {
  await withDirectory(async (dir) => {
    mkdirSync(join(dir, 'inside'));
    const children = [1, 2, 3, 4].map((seed) => {
      const child = spawn(process.execPath, [fixture('lock-contender.js'), dir, '300', String(seed * 7919)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stderr.on('data', (chunk) => (err += chunk));
      return once(child, 'close').then(([code]) => {
        assert.equal(code, 0, err);
        return JSON.parse(out) as { shared: number; exclusive: number; withdrew: number; refused: number };
      });
    });
    const counts = await Promise.all(children);
    const exclusive = counts.reduce((sum, c) => sum + c.exclusive, 0);
    const shared = counts.reduce((sum, c) => sum + c.shared, 0);
    assert.ok(exclusive > 0 && shared > 0, JSON.stringify(counts));
    assert.deepEqual(readdirSync(join(dir, HOLDERS_DIRECTORY)), [], 'every claim released');
  });
});
