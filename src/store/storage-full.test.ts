import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { StorageFullError } from '../errors.js';
import { hasRoomToWrite, storageErrorOf } from './storage-full.js';

/** An error as lmdb-js throws it: a plain Error with the errno (or LMDB's code) in `code`. */
function lmdbError(message: string, code: number): Error {
  return Object.assign(new Error(message), { code });
}

describe('storageErrorOf', () => {
  it('reports no space left and a full LMDB map as a full store, whatever the room on the disk now', () => {
    for (const error of [lmdbError('No space left on device', 28), lmdbError('MDB_MAP_FULL: Environment mapsize limit reached', -30792)]) {
      const reported = storageErrorOf(error, tmpdir());
      assert.ok(reported instanceof StorageFullError, String(reported));
      assert.match(reported.message, /full/);
    }
  });

  it('leaves an input/output error on a disk with room as it is: that is a failing disk, not a full one', () => {
    if (!hasRoomToWrite(tmpdir())) return; // this machine's own disk is nearly full: nothing to tell apart
    const error = lmdbError('Input/output error: Attempting to setup locks after open', 5);
    assert.equal(storageErrorOf(error, tmpdir()), error);
  });

  it('leaves every other error as it is', () => {
    const error = new Error('write transactions do not nest');
    assert.equal(storageErrorOf(error, tmpdir()), error);
  });
});
