/**
 * What a query worker's heap may grow to, and what a running query may add to the process: the two
 * numbers that tie a query's memory budget (`--query-memory`) to the process's (`--max-memory`).
 *
 * A worker's heap is capped (Worker resourceLimits): a query whose memory the engine's accounting
 * misses still cannot grow the process past the cap; it kills its worker, which V8 reports as out
 * of memory, the query fails with the budget's error (query-pool.ts) and a new worker takes over.
 */

const MIB = 2 ** 20;

/**
 * The heap a query worker needs besides its query's: its code, the store's term caches (up to 2^17
 * terms) and the parse and plan caches. An idle worker uses about 20 MiB of it.
 */
export const WORKER_OWN_HEAP_MB = 64;

/**
 * V8's young generation: two semi-spaces of 16 MiB and as much again for young large objects. A
 * busy worker fills it whatever its heap limit; the limit (maxOldGenerationSizeMb) does not include it.
 */
const YOUNG_GENERATION_BYTES = 48 * MIB;

/** The old-generation limit of a query worker whose queries may hold `queryMemory` bytes. */
export function workerHeapLimitMb(queryMemory: number): number {
  return Math.ceil(queryMemory / MIB) + WORKER_OWN_HEAP_MB;
}

/**
 * What a running query holds on the main thread: the term table its rows arrive through
 * (transfer-term-table.ts, some 8 MB), a few batches in flight and the text being sent to its client.
 */
const MAIN_THREAD_BYTES = 16 * MIB;

/**
 * What one running query may add to the process at worst, reserved from --max-memory while it runs:
 * its budget on the worker's heap (its rows, terms, parsed text), its budget again outside the heap
 * (typed arrays, which V8's heap limit does not cover but the budget counts), the worker's young
 * generation, and its share of the main thread. Without a budget, the last two only: then the
 * worker's heap is the only bound of the rest.
 */
export function queryReservation(queryMemory: number | undefined): number {
  return 2 * (queryMemory ?? 0) + YOUNG_GENERATION_BYTES + MAIN_THREAD_BYTES;
}
