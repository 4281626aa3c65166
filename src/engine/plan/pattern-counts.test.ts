import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreReader } from '../../store/quad-store.js';
import { PatternCounts } from './pattern-counts.js';

/** A reader whose counts are its calls so far: a count served from the cache keeps its first figure. */
function countingReader(version: number | undefined): StoreReader & { reads: number } {
  const reader = {
    reads: 0,
    count: () => ++reader.reads,
    contentVersion: () => version,
  };
  return reader as unknown as StoreReader & { reads: number };
}

test('a count read under a content version serves later snapshots of that version', () => {
  const first = countingReader(1001);
  assert.equal(new PatternCounts(first).count(5, 6, 0, 1), 1);
  const second = countingReader(1001);
  assert.equal(new PatternCounts(second).count(5, 6, 0, 1), 1);
  assert.equal(second.reads, 0, 'the second snapshot did not read the index');
  assert.equal(new PatternCounts(second).count(5, 6, 7, 1), 1, 'another pattern is read');
});

test('a new content version, or none, reads the index again', () => {
  new PatternCounts(countingReader(2001)).count(8, 9, 0, 1);
  const changed = countingReader(2002);
  new PatternCounts(changed).count(8, 9, 0, 1);
  assert.equal(changed.reads, 1);
  const unversioned = countingReader(undefined);
  const counts = new PatternCounts(unversioned);
  counts.count(8, 9, 0, 1);
  counts.count(8, 9, 0, 1);
  assert.equal(unversioned.reads, 2, 'inside a write transaction nothing is cached');
});
