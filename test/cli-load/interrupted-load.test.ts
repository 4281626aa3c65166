/**
 * A load killed half way (SIGKILL: no chance to clean up) leaves the store as it was before that
 * file, and the store opens cleanly and takes the next load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { CLI, datasetRows, fixture, removeDirectory, runCli, temporaryDirectory, withStore } from './load-helpers.js';

const STATEMENTS = 400_000;

async function writeLargeFile(path: string): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < STATEMENTS; i += 1000) {
    let chunk = '';
    for (let j = i; j < i + 1000; j++) chunk += `<http://example.org/s${j}> <http://example.org/p${j % 7}> "value ${j}" .\n`;
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
    const child = spawn(process.execPath, [CLI, 'load', '--store', store, large], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, QUIVER_PROGRESS_INTERVAL_MS: '50' } });
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
