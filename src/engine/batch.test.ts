import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Batch, BatchWriter, BATCH_SIZE } from './batch.js';

test('batches start unbound and never share cells, small or large', () => {
  const batches = [new Batch(3, 16), new Batch(3, 16), new Batch(3, BATCH_SIZE), new Batch(5, 2)];
  for (const batch of batches) assert.ok(batch.data.every((v) => v === 0));
  batches.forEach((batch, i) => batch.data.fill(i + 1));
  batches.forEach((batch, i) => assert.ok(batch.data.every((v) => v === i + 1), `batch ${i} kept its own cells`));
});

test('a writer copies rows into batches that grow, then roll over', () => {
  const source = new Batch(2, 1);
  source.length = 1;
  source.set(0, 0, 7);
  source.set(0, 1, 9);
  const writer = new BatchWriter(2);
  for (let i = 0; i < BATCH_SIZE + 3; i++) writer.target().appendCopy(source, 0);
  const out = [...writer.flush()];
  assert.deepEqual(out.map((b) => b.length), [BATCH_SIZE, 3]);
  assert.deepEqual([...out[1].data.subarray(0, 6)], [7, 9, 7, 9, 7, 9]);
});
