import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepQueryGarbageYoung, pretenuringChosenOnCommandLine } from './young-generation.js';

test('any thread that evaluates queries may ask, as often as it likes', () => {
  // Query workers call it at start-up and inline runs before each evaluation: later calls are no-ops.
  assert.doesNotThrow(() => {
    keepQueryGarbageYoung();
    keepQueryGarbageYoung();
  });
});

test('a command line that names the flag, either way and in any spelling, is left to decide', () => {
  for (const argv of [
    ['--no-allocation-site-pretenuring'],
    ['--allocation-site-pretenuring'],
    ['--expose-gc', '--no_allocation_site_pretenuring'],
    ['--allocation-site-pretenuring=false'],
  ])
    assert.equal(pretenuringChosenOnCommandLine(argv), true, argv.join(' '));
  for (const argv of [[], ['--expose-gc'], ['--allocation-site-pretenuring-extra'], ['--max-old-space-size=100']])
    assert.equal(pretenuringChosenOnCommandLine(argv), false, argv.join(' '));
});
