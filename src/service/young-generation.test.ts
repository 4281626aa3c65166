import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepQueryGarbageYoung } from './young-generation.js';

test('any thread that evaluates queries may ask, as often as it likes', () => {
  // Query workers call it at start-up and inline runs before each evaluation: later calls are no-ops.
  assert.doesNotThrow(() => {
    keepQueryGarbageYoung();
    keepQueryGarbageYoung();
  });
});
