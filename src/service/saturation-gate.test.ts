import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SaturationGate, systemProbes, type SaturationProbes } from './saturation-gate.js';

/** A machine whose clock, loop utilization and idle core time the test sets. */
function fakeMachine(): SaturationProbes & { advance(ms: number, loop: number, idleCores: number): void } {
  let now = 0;
  let idle = 0;
  let loop = 0;
  return {
    now: () => now,
    loopUtilization: () => loop,
    coresIdleMs: () => idle,
    advance(ms, loopUtilization, idleCores) {
      now += ms;
      idle += ms * idleCores;
      loop = loopUtilization;
    },
  };
}

const TWO_WORKERS = 2;

describe('SaturationGate', () => {
  test('keeps cheap queries on the main thread while it has time to spare', () => {
    const machine = fakeMachine();
    const gate = new SaturationGate({ windowMs: 100 }, machine);
    machine.advance(100, 0.5, 1.2);
    assert.equal(gate.admits({ running: 0 }, TWO_WORKERS), true);
  });

  test('keeps them there when the main thread is saturated but no core idles (a hand-off would take a busy core)', () => {
    const machine = fakeMachine();
    const gate = new SaturationGate({ windowMs: 100 }, machine);
    machine.advance(100, 1, 0.1);
    assert.equal(gate.admits({ running: 1 }, TWO_WORKERS), true);
  });

  test('hands them to free workers for a window after one in which the loop was saturated and a core idled', () => {
    const machine = fakeMachine();
    const gate = new SaturationGate({ windowMs: 100 }, machine);
    machine.advance(100, 0.95, 1.5);
    assert.equal(gate.admits({ running: 0 }, TWO_WORKERS), false);
    assert.equal(gate.admits({ running: 1 }, TWO_WORKERS), false);
    assert.equal(gate.admits({ running: 2 }, TWO_WORKERS), true, 'no free worker: the main thread after all');
    // Within the window the decision stands; the next one looks again.
    machine.advance(50, 0.3, 1.5);
    assert.equal(gate.admits({ running: 0 }, TWO_WORKERS), false);
    machine.advance(50, 0.3, 1.5);
    assert.equal(gate.admits({ running: 0 }, TWO_WORKERS), true);
  });

  test('measures this process and this machine by default', () => {
    const probes = systemProbes();
    const utilization = probes.loopUtilization();
    assert.ok(utilization >= 0 && utilization <= 1, String(utilization));
    assert.ok(probes.coresIdleMs() >= 0);
    const gate = new SaturationGate();
    assert.equal(typeof gate.admits({ running: 0 }, TWO_WORKERS), 'boolean');
  });
});
