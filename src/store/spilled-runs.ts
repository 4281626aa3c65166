/**
 * Held-back entries of a bulk load spilled to files, as external-sort loaders do (Jena's xloader,
 * Oxigraph's bulk loader). A load holds its secondary index entries (and the dictionary's hash -> id
 * entries) back so that it can append them in key order into empty B-trees, whose pages then come
 * out full. Past the memory cap they used to be written out, and every write after the first
 * inserted into the middle of the tree: LMDB splits pages in the middle, which left them ~60% full
 * (at 35M triples POS/OSP took ~37 B per entry instead of ~22). Spilled instead, each sorted run
 * becomes a file per key order; at the end the files are merged (k-way) and every entry is appended
 * once, in order.
 *
 * The files live in a directory inside the store's (same disk), removed when the load finishes,
 * fails, or is recovered after its process died (staged-load.ts).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { compareEntries, fourPositions, type EntryReader, type SortedRuns } from './sorted-runs.js';

/** The directory, inside the store's, that holds a running load's spilled runs. */
export const LOAD_RUNS_DIRECTORY = 'load-runs';

/** Entries of each kind (quads of a family, dictionary hashes) a load holds in memory: 16 bytes each. */
const DEFAULT_MEMORY_ENTRIES = 1 << 22;

/**
 * The cap on held-back entries per kind. QUIVER_LOAD_MEMORY_ENTRIES overrides it (read here only):
 * tests and measurements force spilling on small data with it.
 */
export function loadMemoryEntries(): number {
  const configured = Number(process.env.QUIVER_LOAD_MEMORY_ENTRIES);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MEMORY_ENTRIES;
}

export function loadRunsDirectory(storePath: string): string {
  return join(storePath, LOAD_RUNS_DIRECTORY);
}

/** Words per entry (the quad batch layout). */
const STRIDE = 4;
const ENTRY_BYTES = STRIDE * 4;

interface RunFile {
  readonly path: string;
  readonly entries: number;
}

/** The spilled runs of one kind of entries: per run, a file per key order, each sorted in that order. */
export class SpilledRuns {
  /** runs[run][k]: the run's entries sorted in order k. */
  private readonly runs: RunFile[][] = [];

  /**
   * @param name distinguishes this kind's files from the others' in the shared directory
   * @param orders the key orders SortedRuns keeps (their number and the positions, most significant first)
   */
  constructor(
    private readonly directory: string,
    private readonly name: string,
    readonly orders: readonly (readonly number[])[],
  ) {}

  get runCount(): number {
    return this.runs.length;
  }

  /**
   * Writes what `held` holds as one more run (a file per order), then clears it.
   * @param observe sees the run's entries as they are written, in order 0
   */
  spill(held: SortedRuns, observe?: (chunk: Uint32Array, count: number) => void): void {
    if (held.count === 0) return;
    mkdirSync(this.directory, { recursive: true });
    const run = this.runs.length;
    const files: RunFile[] = [];
    for (let k = 0; k < this.orders.length; k++) {
      const path = join(this.directory, `${this.name}-${run}-${k}.run`);
      const fd = openSync(path, 'w');
      let entries = 0;
      try {
        const reader = held.inOrder(k);
        for (let count; (count = reader.read(spillChunk, SPILL_CHUNK)) > 0;) {
          writeFully(fd, new Uint8Array(spillChunk.buffer, 0, count * ENTRY_BYTES));
          if (k === 0) observe?.(spillChunk, count);
          entries += count;
        }
      } finally {
        closeSync(fd);
      }
      files.push({ path, entries });
    }
    this.runs.push(files);
    held.clear();
  }

  /** The runs' entries in order k, merged (ties: earlier run first). */
  merged(k: number): MergedRuns {
    return new MergedRuns(
      this.runs.map((files) => files[k]),
      this.orders[k],
    );
  }

  /** Deletes the run files and forgets them. */
  remove(): void {
    for (const files of this.runs) for (const file of files) rmSync(file.path, { force: true });
    this.runs.length = 0;
  }
}

/** Entries written to a run file at a time. */
const SPILL_CHUNK = 1 << 14;
const spillChunk = new Uint32Array(SPILL_CHUNK * STRIDE);

function writeFully(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Entries read from a run file at a time (1 MiB): large sequential reads. */
const READ_ENTRIES = 1 << 16;

/** A cursor over one run file, reading it a large block at a time. */
class RunReader {
  readonly buffer = new Uint32Array(READ_ENTRIES * STRIDE);
  /** Word offset of the current entry in buffer, and of the end of what was read. */
  at = 0;
  end = 0;
  private fd: number | undefined;
  private filePosition = 0;
  private left: number;

  constructor(file: RunFile) {
    this.fd = openSync(file.path, 'r');
    this.left = file.entries;
  }

  /** Reads the next block; false (and the file closed) at the end. */
  refill(): boolean {
    if (this.left === 0 || this.fd === undefined) {
      this.close();
      return false;
    }
    const entries = Math.min(this.left, READ_ENTRIES);
    const bytes = new Uint8Array(this.buffer.buffer, 0, entries * ENTRY_BYTES);
    for (let done = 0; done < bytes.length;) {
      const read = readSync(this.fd, bytes, done, bytes.length - done, this.filePosition + done);
      if (read === 0) throw new Error('a spilled run file of the load ended early');
      done += read;
    }
    this.filePosition += bytes.length;
    this.left -= entries;
    this.at = 0;
    this.end = entries * STRIDE;
    return true;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A k-way merge of sorted run files (a binary heap of their cursors), read a chunk at a time. */
export class MergedRuns implements EntryReader {
  private readonly readers: RunReader[] = [];
  /** Reader numbers, a min-heap by their current entries. */
  private readonly heap: number[] = [];
  private readonly o0: number;
  private readonly o1: number;
  private readonly o2: number;
  private readonly o3: number;

  constructor(files: readonly RunFile[], order: readonly number[]) {
    [this.o0, this.o1, this.o2, this.o3] = fourPositions(order);
    try {
      for (const file of files) {
        const reader = new RunReader(file);
        this.readers.push(reader);
        if (reader.refill()) this.heap.push(this.readers.length - 1);
      }
    } catch (error) {
      this.close();
      throw error;
    }
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** Copies up to `max` next entries (four words each) into `out`; returns how many (0: the end). */
  read(out: Uint32Array, max: number): number {
    const heap = this.heap;
    const readers = this.readers;
    let count = 0;
    while (count < max && heap.length > 0) {
      const reader = readers[heap[0]];
      const from = reader.at;
      const buffer = reader.buffer;
      const to = count * STRIDE;
      out[to] = buffer[from];
      out[to + 1] = buffer[from + 1];
      out[to + 2] = buffer[from + 2];
      out[to + 3] = buffer[from + 3];
      count++;
      reader.at = from + STRIDE;
      if (reader.at === reader.end && !reader.refill()) {
        const last = heap.pop()!;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      if (heap.length > 1) this.siftDown(0);
    }
    return count;
  }

  close(): void {
    for (const reader of this.readers) reader.close();
    this.heap.length = 0;
  }

  /** Whether reader a's current entry goes before reader b's (ties: the earlier run). */
  private before(a: number, b: number): boolean {
    const x = this.readers[a];
    const y = this.readers[b];
    const d = compareEntries(x.buffer, x.at, y.buffer, y.at, this.o0, this.o1, this.o2, this.o3);
    return d < 0 || (d === 0 && a < b);
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.before(heap[child + 1], heap[child])) child++;
      if (!this.before(heap[child], item)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = item;
  }
}
