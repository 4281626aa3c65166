/**
 * The few words of memory a worker and the main thread share, one block per worker. A worker
 * evaluates synchronously and never looks at its message port while a query runs, so everything the
 * main thread must tell it mid-query travels through here: "stop" (cancellation) and "the consumer
 * has taken another batch" (back-pressure credit).
 */
import { CancelledError, TimeoutError } from '../errors.js';

const CANCEL = 0;
const SENT = 1;
const ACKED = 2;
const SLOTS = 3;

/** How long a blocked worker sleeps before it looks at the deadline again. */
const WAIT_SLICE_MS = 50;

export type ControlBlock = Int32Array;

export function createControlBlock(): ControlBlock {
  return new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
}

/** Main side, before handing a worker its next job (the worker is idle, so nothing races). */
export function resetControl(control: ControlBlock): void {
  Atomics.store(control, CANCEL, 0);
  Atomics.store(control, SENT, 0);
  Atomics.store(control, ACKED, 0);
}

/** Main side: ask the job to stop, and wake the worker if it sleeps waiting for credit. */
export function requestCancel(control: ControlBlock): void {
  Atomics.store(control, CANCEL, 1);
  Atomics.notify(control, ACKED);
}

export function isCancelRequested(control: ControlBlock): boolean {
  return Atomics.load(control, CANCEL) !== 0;
}

/** Main side: the consumer has taken a batch, so the worker may send one more. */
export function acknowledgeBatch(control: ControlBlock): void {
  Atomics.add(control, ACKED, 1);
  Atomics.notify(control, ACKED);
}

/** Worker side, after posting a batch. */
export function recordBatchSent(control: ControlBlock): void {
  Atomics.add(control, SENT, 1);
}

/**
 * Worker side, before posting a batch: blocks while `window` batches are still unacknowledged,
 * waking on acknowledgement or cancellation, and at least every WAIT_SLICE_MS for the deadline.
 */
export function waitForCredit(control: ControlBlock, window: number, deadline: number): void {
  for (;;) {
    if (isCancelRequested(control)) throw new CancelledError();
    const acked = Atomics.load(control, ACKED);
    if (Atomics.load(control, SENT) - acked < window) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new TimeoutError();
    Atomics.wait(control, ACKED, acked, Math.min(remaining, WAIT_SLICE_MS));
  }
}
