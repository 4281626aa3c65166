import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientGone } from './client-gone.js';

describe('ClientGone, the cancel signal of one request', () => {
  it('calls each listener once at the abort, except those removed before it', () => {
    const gone = new ClientGone();
    const calls: string[] = [];
    const kept = (): number => calls.push('kept');
    const removed = (): number => calls.push('removed');
    gone.addEventListener('abort', kept, { once: true });
    gone.addEventListener('abort', removed, { once: true });
    gone.removeEventListener('abort', removed);
    assert.equal(gone.aborted, false);
    gone.abort();
    gone.abort();
    assert.equal(gone.aborted, true);
    assert.deepEqual(calls, ['kept']);
  });
});
