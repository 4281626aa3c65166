import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RELEASE_GROWTH, releaseGarbageAfterJob, setReleaseGrowth } from './heap-release.js';

const MIB = 2 ** 20;

test('a job that grew the thread by less than the threshold leaves its garbage; one past it collects', () => {
  try {
    setReleaseGrowth(256 * MIB);
    releaseGarbageAfterJob();
    // Typed arrays count: a join table, a DISTINCT's set.
    const held = new Uint8Array(64 * MIB).fill(1);
    assert.equal(releaseGarbageAfterJob(), false);
    setReleaseGrowth(32 * MIB);
    assert.equal(releaseGarbageAfterJob(), true);
    // Measured again after the collection: what the thread still holds is the new baseline.
    assert.equal(releaseGarbageAfterJob(), false);
    assert.equal(held[0], 1);
  } finally {
    setReleaseGrowth(DEFAULT_RELEASE_GROWTH);
  }
});
