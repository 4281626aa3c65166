/**
 * A load into an empty store that nothing else has open is staged (several transactions, see
 * store/staged-load.ts) and has the store to itself: `quiver serve`, another `quiver load` and
 * `quiver dump` are refused meanwhile, naming the loading process. Its claim ends with it, also when it
 * is SIGKILLed: the server then starts, and recovery clears only the dead load's stages.
 * (Loads beside a running server: test/reliability/load-beside-serve.test.ts.)
 *
 * The load reads standard input, which the test keeps open: it waits, staged, for as long as needed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkStoreConsistency } from '../../src/store/consistency-check.js';
import { HOLDERS_DIRECTORY } from '../../src/store/store-lock.js';
import { startServerProcess } from '../reliability/server-process.js';
import { selectRows, update } from '../reliability/sparql-client.js';
import { CLI, removeDirectory, runCli, temporaryDirectory } from './load-helpers.js';

const STAGE = 1000;

function statements(from: number, to: number): string {
  let text = '';
  for (let i = from; i < to; i++) text += `<http://example.org/s${i}> <http://example.org/p> "v${i}" .\n`;
  return text;
}

/** `quiver load -` into the store, fed by the test; resolves once it has reported `after` statements. */
async function startStdinLoad(store: string, first: string, after: number) {
  const child = spawn(process.execPath, [CLI, 'load', '--store', store, '--format', 'ntriples', '-'], {
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, QUIVER_PROGRESS_INTERVAL_MS: '20', QUIVER_LOAD_STAGE_STATEMENTS: String(STAGE) },
  });
  let stderr = '';
  const closed = once(child, 'close');
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const counts = [...stderr.matchAll(/([\d,]+) statements/g)].map((m) => Number(m[1]!.replace(/,/g, '')));
      if (counts.some((n) => n >= after)) resolve();
    });
    void closed.then(() => reject(new Error(`the load ended early: ${stderr}`)));
    child.stdin.write(first);
  });
  return { child, closed, stderr: () => stderr };
}

async function queryCount(origin: string): Promise<number> {
  const rows = await selectRows(origin, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }');
  return Number(rows[0]!['n']!.value);
}

test('a staged load has the store to itself: serve, load and dump are refused until it ends', { timeout: 120_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const load = await startStdinLoad(store, statements(0, 5 * STAGE), 3 * STAGE);
    try {
      const refusal = new RegExp(`being bulk-loaded by process ${load.child.pid}`);
      await assert.rejects(startServerProcess(['--store', store, '--workers', '1']), refusal);
      const other = await runCli(['load', '--store', store, '--format', 'ntriples', '-'], { stdin: statements(0, 1) });
      assert.equal(other.code, 1);
      assert.match(other.stderr, refusal);
      const dump = await runCli(['dump', '--store', store]);
      assert.equal(dump.code, 1);
      assert.match(dump.stderr, refusal);
    } finally {
      load.child.stdin.end(statements(5 * STAGE, 6 * STAGE));
    }
    const [code] = await load.closed;
    assert.equal(code, 0, load.stderr());
    assert.deepEqual(readdirSync(join(store, HOLDERS_DIRECTORY)), [], 'the load gave up its claims');

    const server = await startServerProcess(['--store', store, '--workers', '1']);
    try {
      assert.equal(await queryCount(server.origin), 6 * STAGE);
    } finally {
      await server.stop('SIGTERM');
    }
    assert.deepEqual((await checkStoreConsistency(store)).problems, []);
  } finally {
    removeDirectory(dir);
  }
});

test('a SIGKILLed staged load leaves a stale claim: the server starts, and recovery clears only the load', { timeout: 120_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const load = await startStdinLoad(store, statements(0, 5 * STAGE), 3 * STAGE);
    load.child.kill('SIGKILL');
    await load.closed;
    assert.ok(
      readdirSync(join(store, HOLDERS_DIRECTORY)).some((name) => name.endsWith('.exclusive')),
      'the claim is left behind',
    );

    const server = await startServerProcess(['--store', store, '--workers', '1']);
    try {
      assert.equal(await queryCount(server.origin), 0, 'the dead load is undone');
      await update(server.origin, 'INSERT DATA { <http://example.org/kept> <http://example.org/p> "acknowledged" }');
      // Now the store has data and a server: a load beside it is one transaction.
      const beside = await runCli(['load', '--store', store, '--format', 'ntriples', '-'], { stdin: statements(0, 2 * STAGE) });
      assert.equal(beside.code, 0, beside.stderr);
      assert.equal(await queryCount(server.origin), 2 * STAGE + 1);
    } finally {
      await server.stop('SIGKILL');
    }
    const restarted = await startServerProcess(['--store', store, '--workers', '1']);
    try {
      assert.equal(await queryCount(restarted.origin), 2 * STAGE + 1, 'nothing committed is cleared by a later open');
    } finally {
      await restarted.stop('SIGTERM');
    }
    const check = await checkStoreConsistency(store);
    assert.deepEqual(check.problems, []);
    assert.equal(existsSync(join(store, 'load-runs')), false);
  } finally {
    removeDirectory(dir);
  }
});
