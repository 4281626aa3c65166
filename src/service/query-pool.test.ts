import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickIdleWorker } from './query-pool.js';

const worker = (name: string, idle: boolean, settling: boolean) => ({ name, idle, settling });

test('the next query goes to the first idle worker that has settled after its last job', () => {
  // The same worker again while it has settled: a lone client keeps its warm caches.
  assert.equal(pickIdleWorker([worker('a', true, false), worker('b', true, false)])?.name, 'a');
  // Another one while the first may still be collecting its last job's garbage.
  assert.equal(pickIdleWorker([worker('a', true, true), worker('b', true, false)])?.name, 'b');
  assert.equal(pickIdleWorker([worker('a', false, false), worker('b', true, true), worker('c', true, false)])?.name, 'c');
});

test('a settling worker takes the query when no other is idle, and a busy one never does', () => {
  assert.equal(pickIdleWorker([worker('a', false, false), worker('b', true, true)])?.name, 'b');
  assert.equal(pickIdleWorker([worker('a', false, true), worker('b', false, false)]), undefined);
  assert.equal(pickIdleWorker([]), undefined);
});
