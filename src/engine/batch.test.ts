import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Batch, BatchPool, BatchWriter, BATCH_SIZE, pooledCapacity } from './batch.js';

test('batches start unbound and never share cells, small or large', () => {
  const batches = [new Batch(3, 16), new Batch(3, 16), new Batch(3, BATCH_SIZE), new Batch(5, 2)];
  for (const batch of batches) assert.ok(batch.data.every((v) => v === 0));
  batches.forEach((batch, i) => batch.data.fill(i + 1));
  batches.forEach((batch, i) =>
    assert.ok(
      batch.data.every((v) => v === i + 1),
      `batch ${i} kept its own cells`,
    ),
  );
});

test('a writer copies rows into batches that grow, then roll over', () => {
  const source = new Batch(2, 1);
  source.length = 1;
  source.set(0, 0, 7);
  source.set(0, 1, 9);
  const writer = new BatchWriter(2);
  for (let i = 0; i < BATCH_SIZE + 3; i++) writer.target().appendCopy(source, 0);
  const out = [...writer.flush()];
  assert.deepEqual(
    out.map((b) => b.length),
    [BATCH_SIZE, 3],
  );
  assert.deepEqual([...out[1].data.subarray(0, 6)], [7, 9, 7, 9, 7, 9]);
});

test('a pooled writer gets a batch back only once its consumer asked for the next one, and hands it out empty', () => {
  const pool = new BatchPool(2);
  const source = new Batch(2, 1);
  source.length = 1;
  source.set(0, 0, 7);
  source.set(0, 1, 9);
  const writer = new BatchWriter(2, pool);
  for (let i = 0; i < 5; i++) writer.target().appendCopy(source, 0);
  const batches = writer.flush()[Symbol.iterator]();
  const first = batches.next().value as Batch;
  assert.equal(first.length, 5);
  // Still being read: another writer of the same pool gets other cells.
  const other = pool.take(first.capacity);
  assert.notEqual(other, first);
  assert.equal(first.get(4, 1), 9);
  assert.ok(batches.next().done);
  // Now it is back, empty (its cells are not zeroed: an appended row is written whole).
  const again = pool.take(first.capacity);
  assert.equal(again, first);
  assert.equal(again.length, 0);
  const row = again.appendCopy(other, 0);
  assert.deepEqual([...again.data.subarray(row * 2, row * 2 + 2)], [0, 0]);
});

test('a consumer that stops early keeps the batch it holds (nothing goes back to the pool)', () => {
  const pool = new BatchPool(1);
  const writer = new BatchWriter(1, pool);
  const source = new Batch(1, 1);
  source.length = 1;
  source.set(0, 0, 3);
  writer.target().appendCopy(source, 0);
  let held: Batch | undefined;
  for (const batch of writer.flush()) {
    held = batch;
    break;
  }
  assert.notEqual(pool.take(held!.capacity), held);
  assert.equal(held!.get(0, 0), 3);
  assert.equal(pooledCapacity(1), 16);
  assert.equal(pooledCapacity(17), 32);
});
