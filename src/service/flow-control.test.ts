import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acknowledgeBatch, createControlBlock, recordBatchSent, requestCancel, resetControl, waitForCredit } from './flow-control.js';
import { BatchStream } from './batch-stream.js';
import { CancelledError, TimeoutError } from '../errors.js';

test('a producer may run only `window` batches ahead of its consumer', () => {
  const control = createControlBlock();
  const far = Date.now() + 60_000;
  waitForCredit(control, 2, far);
  recordBatchSent(control);
  waitForCredit(control, 2, far);
  recordBatchSent(control);
  // Two unacknowledged: the producer would block; with a near deadline it gives up instead.
  const started = Date.now();
  assert.throws(() => waitForCredit(control, 2, Date.now() + 60), TimeoutError);
  assert.ok(Date.now() - started >= 50);
  acknowledgeBatch(control);
  waitForCredit(control, 2, far);
});

test('cancellation wakes a waiting producer', () => {
  const control = createControlBlock();
  recordBatchSent(control);
  requestCancel(control);
  assert.throws(() => waitForCredit(control, 1, Date.now() + 60_000), CancelledError);
  resetControl(control);
  waitForCredit(control, 1, Date.now() + 60_000);
});

test('a batch stream acknowledges what the consumer pulls, and reports an early stop', async () => {
  let pulled = 0;
  let abandoned = 0;
  const stream = new BatchStream<number>({ onPull: () => pulled++, onAbandon: () => abandoned++ });
  stream.push([1, 2]);
  stream.push([3]);
  for await (const batch of stream) {
    assert.deepEqual(batch, [1, 2]);
    break;
  }
  assert.equal(pulled, 1);
  assert.equal(abandoned, 1);
});

test('a batch stream delivers what arrived before an error, then throws it', async () => {
  const stream = new BatchStream<number>({ onPull: () => undefined, onAbandon: () => undefined });
  stream.push([1]);
  stream.fail(new TimeoutError());
  const seen: number[][] = [];
  await assert.rejects(async () => {
    for await (const batch of stream) seen.push(batch);
  }, TimeoutError);
  assert.deepEqual(seen, [[1]]);
});
