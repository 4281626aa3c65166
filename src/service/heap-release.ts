/**
 * Gives a worker's memory back after a job that left much of it. V8 collects an idle thread's
 * garbage late or never (nothing allocates), and keeps the pages of a collection pooled for reuse:
 * a worker that sorted a million rows would hold its few hundred MiB, garbage, until its next big
 * job, where the process-wide budget (memory-admission.ts) has to assume it is back to its idle size.
 * Two full collections right after such a job return those pages to the system within
 * milliseconds (measured: 240 MiB of anonymous memory back to 55 MiB; one collection alone frees
 * the heap but leaves the pages pooled). They cost a few milliseconds on a heap of garbage, and
 * run only when the heap and its typed arrays grew by more than a threshold since the last time.
 *
 * The threshold is a share of what a query may hold (setReleaseGrowth): collecting after every
 * query that left a few tens of MiB made each analytic query's successor share the machine with
 * two full collections, or go to a worker whose caches were cold (BSBM 10k's analytic workload,
 * three rounds through the server: 7,486 ms at 32 MiB, 6,032 ms with no collection at all).
 */
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The growth past which a thread collects after a job, unless told otherwise (setReleaseGrowth). */
export const DEFAULT_RELEASE_GROWTH = 256 * 2 ** 20;
let releaseGrowth = DEFAULT_RELEASE_GROWTH;

/** Sets how much this thread's memory may grow before a job's end collects its garbage. */
export function setReleaseGrowth(bytes: number): void {
  releaseGrowth = bytes;
}

let collect: (() => void) | undefined;
let settled: number | undefined;

/** Collects twice when the thread's memory grew past the threshold; returns whether it did. */
export function releaseGarbageAfterJob(): boolean {
  const held = heldBytes();
  settled ??= held;
  if (held - settled < releaseGrowth) return false;
  releaseGarbageNow();
  return true;
}

/**
 * Collects this thread's garbage now and returns its pages to the system. The main thread does it
 * before the memory budget refuses work: what its answers left behind (decoded rows, written
 * text) lingers in its old generation until V8 sees a reason to collect, and a refusal is one.
 */
export function releaseGarbageNow(): void {
  collect ??= exposedCollector();
  collect();
  collect();
  settled = heldBytes();
}

/** The heap's committed pages beyond the young generation (which is reused, not grown), and typed arrays. */
function heldBytes(): number {
  const heap = getHeapStatistics();
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0;
  return heap.total_physical_size - young + heap.external_memory;
}

/**
 * V8's gc(): the global one when the process was started with --expose-gc (`npm start` is), else
 * taken from a context made while the flag is on, which goes off again (it is process-wide): a
 * library's host did not ask for a global gc, and a Worker's execArgv cannot carry V8 flags.
 */
function exposedCollector(): () => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return () => (exposed as () => void)();
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
