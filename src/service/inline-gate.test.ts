import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { InlineGate } from './inline-gate.js';

const idlePool = { running: 0, queued: 0 };

/** An event loop whose idle time the test advances. */
function fakeLoop(): { idle: () => number; wait: (ms: number) => void } {
  let idle = 0;
  return { idle: () => idle, wait: (ms) => (idle += ms) };
}

describe('InlineGate', () => {
  test('admits a query the event loop waited for (a lone client), with nothing in flight', () => {
    const loop = fakeLoop();
    const gate = new InlineGate({}, loop.idle);
    loop.wait(0.3);
    assert.equal(gate.admits(idlePool), true);
    loop.wait(0.2);
    assert.equal(gate.admits(idlePool), true);
  });

  test('refuses a query that was already waiting when the previous one arrived (overlapping clients)', () => {
    const loop = fakeLoop();
    const gate = new InlineGate({}, loop.idle);
    loop.wait(1);
    assert.equal(gate.admits(idlePool), true);
    // No idle time in between: the next request was there as soon as the loop looked.
    assert.equal(gate.admits(idlePool), false);
    loop.wait(0.01);
    assert.equal(gate.admits(idlePool), false, 'a poll that returned at once');
  });

  test('sends it to the workers when a query waits for one or a worker is evaluating one', () => {
    const loop = fakeLoop();
    const gate = new InlineGate({}, loop.idle);
    loop.wait(1);
    assert.equal(gate.admits({ running: 0, queued: 1 }), false);
    loop.wait(1);
    assert.equal(gate.admits({ running: 1, queued: 0 }), false);
  });

  test('can leave running workers out of the decision, but never waiting queries', () => {
    const loop = fakeLoop();
    const gate = new InlineGate({ onlyWhenWorkersIdle: false }, loop.idle);
    loop.wait(1);
    assert.equal(gate.admits({ running: 2, queued: 0 }), true);
    loop.wait(1);
    assert.equal(gate.admits({ running: 2, queued: 1 }), false);
  });

  test('stays closed for a while after a sign of overlapping clients, then opens for a lone one', () => {
    const loop = fakeLoop();
    let now = 0;
    const gate = new InlineGate({ holdMs: 100 }, loop.idle, () => now);
    loop.wait(1);
    assert.equal(gate.admits({ running: 1, queued: 0 }), false);
    // The loop went idle (every client reading an answer), but the clients overlapped a moment ago.
    now += 10;
    loop.wait(1);
    assert.equal(gate.admits(idlePool), false);
    now += 95;
    loop.wait(1);
    assert.equal(gate.admits(idlePool), true, 'no sign for longer than holdMs');
    now += 1;
    assert.equal(gate.admits(idlePool), false, 'a request that was already waiting');
    now += 1;
    loop.wait(1);
    assert.equal(gate.admits(idlePool), true, 'which alone does not close the gate');
    now += 1;
    loop.wait(1);
    assert.equal(gate.admits({ running: 0, queued: 1 }), false);
    now += 50;
    loop.wait(1);
    assert.equal(gate.admits(idlePool), false, 'closed again by a waiting query');
  });

  test("reads this process's event loop by default: no idle time passes between two synchronous calls", async () => {
    const gate = new InlineGate();
    await sleep(5);
    gate.admits(idlePool);
    assert.equal(gate.admits(idlePool), false);
  });
});
