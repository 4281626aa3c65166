/**
 * The serve flags of memory: what one query may hold (--query-memory) and what the whole process
 * should stay under (--max-memory), with defaults worked out from the machine: its RAM, or the
 * memory limit of the container (cgroup) it runs in, and V8's heap limit.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { byteSize, UsageError, type OptionSpec, type ParsedOptions } from './options.js';
import { queryReservation } from '../service/index.js';

const MIB = 2 ** 20;

/**
 * Without a budget, one query that sorts or groups millions of computed rows fills its worker's heap
 * and dies of it, taking its neighbours' latency with it; with one, it fails early with a clear
 * message. 1 GiB lets analytical queries over tens of millions of rows through; on a machine whose
 * heap limit (which V8 derives from the RAM, or --max-old-space-size sets) is under 4 GiB, a quarter
 * of it leaves room for the rows that are not counted (the store's terms, the serializer, V8's own).
 */
export const MAX_DEFAULT_QUERY_MEMORY = 2 ** 30;

export function defaultQueryMemory(heapLimit = getHeapStatistics().heap_size_limit): number {
  const quarter = Math.floor(heapLimit / 4 / MIB) * MIB;
  return Math.min(MAX_DEFAULT_QUERY_MEMORY, quarter);
}

/**
 * The process limit when none is given: three quarters of the RAM, or of the container's memory
 * limit when it has a lower one. The rest is for what the limit does not see (the store's pages
 * in the page cache, other processes) before the kernel's OOM killer would.
 */
export function defaultMaxMemory(ram = totalmem(), containerLimit = cgroupMemoryLimit()): number {
  const available = containerLimit !== undefined ? Math.min(ram, containerLimit) : ram;
  return Math.floor((available * 0.75) / MIB) * MIB;
}

/** The memory limit of this process's cgroup (v2, else v1), or undefined when it has none. */
export function cgroupMemoryLimit(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    let text: string;
    try {
      text = read(path).trim();
    } catch {
      continue;
    }
    const bytes = Number(text);
    // v2 says "max" for no limit; v1 a number near 2^63.
    return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
  }
  return undefined;
}

/**
 * What the server holds before its first query, to size a default budget: the main thread, the
 * writer, and each query worker (measured: about 140 MiB and 40 MiB a worker, with margins).
 */
function startupEstimate(workers: number): number {
  return 128 * MIB + 48 * MIB * workers;
}

/**
 * The query budget a limit leaves when every worker runs a query at once: a running query may
 * add twice its budget and 64 MiB to the process (service/worker-heap.ts).
 */
export function queryMemoryWithin(maxMemory: number, workers: number): number {
  const perWorker = (maxMemory - startupEstimate(workers)) / workers;
  return Math.max(16 * MIB, Math.floor((perWorker - queryReservation(0)) / 2 / MIB) * MIB);
}

/** A whole number of GiB or MiB, as --query-memory reads it back. */
export function formatByteSize(bytes: number): string {
  return bytes % 2 ** 30 === 0 ? `${bytes / 2 ** 30}GiB` : `${Math.round(bytes / MIB)}MiB`;
}

export const MEMORY_OPTIONS: OptionSpec[] = [
  {
    name: 'query-memory',
    type: 'string',
    value: 'BYTES',
    shownDefault: formatByteSize(defaultQueryMemory()),
    description:
      'memory budget of one query or update: the parse of its text, sorts, groups, hash joins, VALUES, computed terms, SERVICE answers and LOAD documents; over it the request fails (500); 0: no budget. 1GiB, or a quarter of the heap limit when less, or what --max-memory leaves each worker when less',
  },
  {
    name: 'max-memory',
    type: 'string',
    value: 'BYTES',
    shownDefault: formatByteSize(defaultMaxMemory()),
    description:
      "memory the process should stay under: a query or update starts only when what it may add (twice its --query-memory and 64 MiB) fits; the others wait in the queue (beyond --max-queue: 503). 0: no limit. Three quarters of the RAM or of the container's limit",
  },
];

export interface MemorySettings {
  /** --query-memory in bytes; undefined: no budget. */
  queryMemoryBudget?: number;
  /** --max-memory in bytes; undefined: no limit. */
  maxMemory?: number;
}

/** The two flags, each defaulting as described; `workers`: the query workers the server starts. */
export function memorySettings(values: ParsedOptions['values'], workers = availableParallelism()): MemorySettings {
  const givenMax = byteSize(values, 'max-memory');
  const maxMemory = givenMax === undefined ? defaultMaxMemory() : givenMax === 0 ? undefined : givenMax;
  const givenQuery = byteSize(values, 'query-memory');
  if (givenQuery === 0) return { maxMemory };
  if (givenQuery !== undefined) {
    if (maxMemory !== undefined && givenQuery >= maxMemory)
      throw new UsageError(`--query-memory (${formatByteSize(givenQuery)}) must be less than --max-memory (${formatByteSize(maxMemory)})`);
    return { queryMemoryBudget: givenQuery, maxMemory };
  }
  const fitting = maxMemory === undefined ? Infinity : queryMemoryWithin(maxMemory, workers);
  return { queryMemoryBudget: Math.min(defaultQueryMemory(), fitting), maxMemory };
}
