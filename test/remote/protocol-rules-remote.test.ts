/**
 * The HTTP protocol suite once more, against Quiver in remote mode with Virtuoso behind it (the
 * bar of remote mode): test/http/protocol-rules.test.js run in a child process with
 * QUIVER_TEST_REMOTE=virtuoso. The tests it skips there, and why, are listed in suite-server.ts.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { virtuosoMissing } from './virtuoso.js';

const suite = fileURLToPath(new URL('../http/protocol-rules.test.js', import.meta.url));

it('passes the HTTP protocol suite in remote mode in front of Virtuoso', { skip: virtuosoMissing(), timeout: 300_000 }, () => {
  // Without the parent runner's NODE_TEST_CONTEXT, or the child would report to it instead of stdout.
  const { NODE_TEST_CONTEXT: _parent, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', suite], {
    env: { ...env, QUIVER_TEST_REMOTE: 'virtuoso' },
    encoding: 'utf8',
    timeout: 280_000,
  });
  const summary = (name: string): number => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(run.stdout)?.[1] ?? NaN);
  const failures = run.stdout.split('\n').filter((line) => /^\s*not ok/.test(line) && !/# SKIP/.test(line));
  assert.equal(run.status, 0, `protocol suite in remote mode failed:\n${failures.join('\n')}\n${run.stderr.slice(-2000)}`);
  assert.ok(summary('pass') > 40, `passed: ${summary('pass')}`);
  assert.equal(summary('fail'), 0);
});
