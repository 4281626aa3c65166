import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryAdmission } from './memory-admission.js';
import { CancelledError, TimeoutError } from '../errors.js';

const MIB = 2 ** 20;

describe('the process memory budget (--max-memory)', () => {
  it('admits work while its reservation fits beside what the process holds and what is reserved', () => {
    let held = 100 * MIB;
    const admission = new MemoryAdmission(500 * MIB, () => held);
    assert.ok(admission.tryReserve(200 * MIB));
    assert.ok(admission.tryReserve(200 * MIB), '100 + 200 + 200 fits in 500');
    assert.ok(!admission.tryReserve(1), 'full');
    admission.release(200 * MIB);
    held = 250 * MIB;
    assert.ok(!admission.tryReserve(100 * MIB), 'the process grew: 250 + 200 + 100 does not fit');
    assert.ok(admission.tryReserve(50 * MIB));
    assert.deepEqual(admission.load, { holders: 2, reservedBytes: 250 * MIB });
  });

  it('always admits one piece of work when nothing is reserved, however much the process holds', () => {
    const admission = new MemoryAdmission(100 * MIB, () => 400 * MIB);
    assert.ok(admission.tryReserve(50 * MIB));
    assert.ok(!admission.tryReserve(50 * MIB));
  });

  it('tells when the process is over the limit by itself, reservations aside', () => {
    let held = 90 * MIB;
    const admission = new MemoryAdmission(100 * MIB, () => held);
    assert.ok(admission.tryReserve(50 * MIB));
    assert.equal(admission.overLimit, false, 'full, not over');
    held = 120 * MIB;
    assert.equal(admission.overLimit, true);
    assert.equal(admission.residentBytes, 120 * MIB);
  });

  it('reclaims garbage before refusing, at most once a second', () => {
    let held = 450 * MIB;
    let reclaims = 0;
    const admission = new MemoryAdmission(
      500 * MIB,
      () => held,
      () => {
        reclaims++;
        held = 100 * MIB;
      },
    );
    assert.ok(admission.tryReserve(10 * MIB));
    assert.ok(admission.tryReserve(100 * MIB), 'fits once the garbage is gone');
    assert.equal(reclaims, 1);
    held = 450 * MIB;
    assert.ok(!admission.tryReserve(100 * MIB), 'no second reclaim so soon');
    assert.equal(reclaims, 1);
  });

  it('lets waiting work in when a reservation is given back', async () => {
    const admission = new MemoryAdmission(300 * MIB, () => 0);
    const first = await admission.reserve(200 * MIB);
    let second: (() => void) | undefined;
    const waiting = admission.reserve(200 * MIB).then((release) => (second = release));
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(second, undefined, 'waits while the first holds its share');
    first();
    first();
    await waiting;
    assert.deepEqual(admission.load, { holders: 1, reservedBytes: 200 * MIB }, 'a release counts once');
    second!();
  });

  it('looks again while the process shrinks by itself, without any release', async () => {
    let held = 400 * MIB;
    const admission = new MemoryAdmission(500 * MIB, () => held);
    const first = await admission.reserve(10 * MIB);
    const waiting = admission.reserve(200 * MIB);
    setTimeout(() => (held = 100 * MIB), 60);
    (await waiting)();
    first();
  });

  it('gives up at the deadline (TimeoutError) or when the request is cancelled (CancelledError)', async () => {
    const admission = new MemoryAdmission(100 * MIB, () => 0);
    const release = await admission.reserve(90 * MIB);
    await assert.rejects(admission.reserve(90 * MIB, { deadline: Date.now() + 60 }), TimeoutError);
    const abort = new AbortController();
    const cancelled = admission.reserve(90 * MIB, { signal: abort.signal });
    abort.abort();
    await assert.rejects(cancelled, CancelledError);
    release();
    assert.deepEqual(admission.load, { holders: 0, reservedBytes: 0 });
  });
});
