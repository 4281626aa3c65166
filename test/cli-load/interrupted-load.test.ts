/**
 * A load killed half way (SIGKILL: no chance to clean up) leaves the store as it was before that
 * file, and the store opens cleanly and takes the next load: a staged load (several committed
 * transactions, undone when the store is next opened) into an empty store and into one with data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { CLI, datasetRows, fixture, removeDirectory, runCli, temporaryDirectory, withStore } from './load-helpers.js';

const STATEMENTS = 400_000;

/** STATEMENTS statements; with `shift`, the same terms in other statements (each predicate moved by it). */
async function writeLargeFile(path: string, shift = 0): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < STATEMENTS; i += 1000) {
    let chunk = '';
    for (let j = i; j < i + 1000; j++) chunk += `<http://example.org/s${j}> <http://example.org/p${(j + shift) % 7}> "value ${j}" .\n`;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
}

test('SIGKILL half way through a file leaves the store as before that file', { timeout: 120_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const large = join(dir, 'large.nt');
    await writeLargeFile(large);
    assert.equal((await runCli(['load', '--store', store, '--quiet', fixture('people.nt')])).code, 0);
    const before = await withStore(store, datasetRows);

    // Killed once the parser has reported progress, well before the file's end.
    const child = spawn(process.execPath, [CLI, 'load', '--store', store, large], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, QUIVER_PROGRESS_INTERVAL_MS: '50' },
    });
    let stderr = '';
    const progressed = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
        const counted = /([\d,]+) statements/.exec(stderr);
        if (counted && Number(counted[1]!.replace(/,/g, '')) > 0) resolve();
      });
    });
    await progressed;
    child.kill('SIGKILL');
    const [, signal] = await once(child, 'close');
    assert.equal(signal, 'SIGKILL');
    assert.doesNotMatch(stderr, new RegExp(`${STATEMENTS.toLocaleString('en-US')} statements \\(`), 'the load finished before the kill');

    await withStore(store, (s) => {
      assert.deepEqual(datasetRows(s).length, before.length);
      assert.equal(s.reader().statistics().quadCount, before.length);
    });
    // And the store takes the same file afterwards.
    const again = await runCli(['load', '--store', store, '--quiet', large]);
    assert.equal(again.code, 0, again.stderr);
    await withStore(store, (s) => assert.equal(datasetRows(s).length, before.length + STATEMENTS));
  } finally {
    removeDirectory(dir);
  }
});

/** Runs `quiver load` on the file and kills it once it reports more than `after` statements. */
async function killLoadAfter(store: string, file: string, after: number, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'load', '--store', store, file], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  const progressed = new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const counts = [...stderr.matchAll(/([\d,]+) statements/g)].map((m) => Number(m[1]!.replace(/,/g, '')));
      if (counts.some((n) => n > after)) resolve();
    });
  });
  await Promise.race([progressed, once(child, 'close')]);
  child.kill('SIGKILL');
  const [, signal] = await once(child, 'close');
  assert.equal(signal, 'SIGKILL', `the load ended before the kill: ${stderr}`);
  return stderr;
}

test('SIGKILL after several committed stages of a load into an empty store leaves it empty', { timeout: 120_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const large = join(dir, 'large.nt');
    await writeLargeFile(large);
    // Stages of 32k statements: by 150k statements several have committed.
    const env = { QUIVER_PROGRESS_INTERVAL_MS: '20', QUIVER_LOAD_STAGE_STATEMENTS: '32768' };
    const stderr = await killLoadAfter(store, large, 150_000, env);
    assert.doesNotMatch(stderr, new RegExp(`${STATEMENTS.toLocaleString('en-US')} statements \\(`), 'the load finished before the kill');

    await withStore(store, (s) => {
      assert.equal(datasetRows(s).length, 0);
      assert.equal(s.reader().statistics().termCount, 0);
    });
    // Empty again, so the next load is staged too, and complete.
    const again = await runCli(['load', '--store', store, '--quiet', large], { env });
    assert.equal(again.code, 0, again.stderr);
    await withStore(store, (s) => {
      assert.equal(datasetRows(s).length, STATEMENTS);
      assert.equal(s.reader().statistics().quadCount, STATEMENTS);
    });
  } finally {
    removeDirectory(dir);
  }
});

test('SIGKILL after several committed stages of a load into a store with data leaves it as before', { timeout: 180_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const [large, relinked] = [join(dir, 'large.nt'), join(dir, 'relinked.nt')];
    await writeLargeFile(large);
    // Statements new to the store whose terms all are in it already: the undo cannot tell them by their IDs.
    await writeLargeFile(relinked, 1);
    const env = { QUIVER_PROGRESS_INTERVAL_MS: '20', QUIVER_LOAD_STAGE_STATEMENTS: '32768' };
    assert.equal((await runCli(['load', '--store', store, '--quiet', large], { env })).code, 0);
    const before = await withStore(store, (s) => ({ rows: datasetRows(s).length, statistics: s.reader().statistics() }));

    await killLoadAfter(store, relinked, 150_000, env);
    await withStore(store, (s) => {
      assert.equal(datasetRows(s).length, before.rows);
      assert.deepEqual(s.reader().statistics(), before.statistics);
    });
    const again = await runCli(['load', '--store', store, '--quiet', relinked], { env });
    assert.equal(again.code, 0, again.stderr);
    await withStore(store, (s) => assert.equal(s.reader().statistics().quadCount, 2 * STATEMENTS));
  } finally {
    removeDirectory(dir);
  }
});

test('a syntax error in a staged load leaves the empty store empty', { timeout: 60_000 }, async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const bad = join(dir, 'bad.nt');
    let text = '';
    for (let i = 0; i < 5000; i++) text += `<http://example.org/s${i}> <http://example.org/p> "v${i}" .\n`;
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(bad);
      out.on('error', reject);
      out.end(text + '<http://example.org/broken> .\n', resolve);
    });
    const result = await runCli(['load', '--store', store, '--quiet', bad], { env: { QUIVER_LOAD_STAGE_STATEMENTS: '1000' } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /bad\.nt:5001/);
    await withStore(store, (s) => assert.equal(s.reader().statistics().termCount, 0));
  } finally {
    removeDirectory(dir);
  }
});
