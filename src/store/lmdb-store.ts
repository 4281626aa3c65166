/**
 * The QuadStore on LMDB (lmdb-js): one environment (a directory) holding the dictionary, the
 * permutation indexes (index-layout.ts) and the statistics, each in a named LMDB database.
 *
 * Threads and processes: any number of them may open the same directory; LMDB's lock file
 * coordinates them (one writer at a time, readers never block). Worker threads open it with
 * `readOnly: true`. Each open handle also holds a shared claim (store-lock.ts), so that a staged load,
 * the one writer that spans several transactions, runs only while nothing else has the store open.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { QuadStore, StoreOptions, StoreReader, StoreWriter, WriteOptions } from './quad-store.js';
import { ALL_INDEXES, idKeyEncoder } from './index-layout.js';
import { FORMAT_VERSION, META, READABLE_FORMATS, decodeCount, encodeCount } from './statistics.js';
import { StoreContext, type StoreDatabases } from './store-context.js';
import { LmdbStoreReader } from './lmdb-reader.js';
import { LmdbStoreWriter } from './lmdb-writer.js';
import { storageErrorOf } from './storage-full.js';
import type { IdIndexDatabase } from './lmdb-types.js';
import { recoverInterruptedLoad, startStagedLoad, type StagedLoad } from './staged-load.js';
import { StoreLock } from './store-lock.js';
import { WriteCheckpoints } from './write-checkpoints.js';

/** 9 indexes + dictionary (2) + meta, graphs, predicates, predicateSketches, with room to grow. */
const MAX_DATABASES = 32;
/** Concurrent read snapshots over all threads and processes (LMDB's default is 126). */
const MAX_READERS = 1024;

export function openStore(options: StoreOptions): QuadStore {
  return LmdbQuadStore.open(options);
}

/** Whether a store directory holds a store already (opening any other path creates one there). */
export function storeExists(path: string): boolean {
  return existsSync(join(path, 'data.mdb'));
}

export class LmdbQuadStore implements QuadStore {
  private closed = false;

  private constructor(
    private readonly context: StoreContext,
    readonly path: string,
    private readonly temporary: boolean,
    private readonly lock: StoreLock,
  ) {}

  static open(options: StoreOptions): LmdbQuadStore {
    if (options.memory && options.readOnly) throw new TypeError('a memory store cannot be read-only');
    const temporary = options.memory === true;
    const path = temporary ? mkdtempSync(join(tmpdir(), 'quiver-store-')) : requirePath(options.path);
    const readOnly = options.readOnly === true;
    if (!readOnly) mkdirSync(path, { recursive: true });
    let lock: StoreLock | undefined;
    try {
      // Before anything is read or written: recovery below relies on no staged load running.
      lock = StoreLock.acquireShared(path, readOnly);
      const env = open({
        path,
        // A store is a directory whatever its name: lmdb-js would take `data.v2` for a file.
        noSubdir: false,
        maxDbs: MAX_DATABASES,
        maxReaders: MAX_READERS,
        readOnly,
        noSync: options.noSync === true || temporary,
        // Off everywhere: a process that opens with noSync next to one that opened with
        // overlappingSync is refused by lmdb-js, and plain synchronous commits are durable on return.
        overlappingSync: false,
      });
      const context = new StoreContext(env, openDatabases(env, readOnly), readOnly);
      if (!readOnly) {
        initializeFormat(context);
        recoverInterruptedLoad(context);
      } else checkFormat(context);
      return new LmdbQuadStore(context, path, temporary, lock);
    } catch (error) {
      lock?.release();
      if (temporary) rmSync(path, { recursive: true, force: true });
      throw error;
    }
  }

  reader(): StoreReader {
    this.checkOpen();
    const env = this.context.env;
    // lmdb-js shares one read transaction per event turn; a reader must start from the latest commit.
    env.resetReadTxn();
    return new LmdbStoreReader(this.context, env.useReadTransaction());
  }

  /** The context, once it is certain that a write transaction may begin now. */
  private writableContext() {
    this.checkOpen();
    const context = this.context;
    if (context.readOnly) throw new Error(`the store at ${this.path} is open read-only`);
    if (context.writing) throw new Error('write transactions do not nest');
    return context;
  }

  write<T>(fn: (writer: StoreWriter) => T, options: WriteOptions = {}): T {
    const context = this.writableContext();
    let result: T | undefined;
    let writer: LmdbStoreWriter | undefined;
    context.writing = true;
    try {
      // A throw inside the callback (fn's, or a checkpoint's) makes lmdb-js abort the transaction.
      context.env.transactionSync(() => {
        const checkpoints = new WriteCheckpoints(options.checkpoint);
        writer = new LmdbStoreWriter(context, undefined, checkpoints);
        result = fn(writer);
        if (isPromiseLike(result)) throw new TypeError('a write callback must be synchronous');
        writer.finish();
        checkpoints.beforeCommit();
        // Returning nothing: lmdb-js would defer the commit on a returned promise.
      });
    } catch (error) {
      throw storageErrorOf(error, this.path);
    } finally {
      writer?.abandon();
      context.writing = false;
    }
    return result as T;
  }

  async writeAsync<T>(fn: (writer: LmdbStoreWriter) => Promise<T>): Promise<T> {
    const context = this.writableContext();
    let result: T | undefined;
    let writer: LmdbStoreWriter | undefined;
    context.writing = true;
    try {
      // lmdb-js keeps the transaction open until the returned promise settles: commit when it
      // resolves, abort when it rejects. A process killed meanwhile leaves the last commit intact.
      await context.env.transactionSync(async () => {
        writer = new LmdbStoreWriter(context);
        result = await fn(writer);
        writer.finish();
      });
    } catch (error) {
      throw storageErrorOf(error, this.path);
    } finally {
      writer?.abandon();
      context.writing = false;
    }
    return result as T;
  }

  /**
   * A load in several transactions (bounded memory) with the effect of one: for a store that no
   * other handle (thread or process) has open, see staged-load.ts; undefined otherwise, and then
   * `onShared` learns the pids of the processes that have the store open. Nothing else writes through
   * this handle until the load finishes or aborts, and no other handle can open the store meanwhile.
   */
  beginStagedLoad(onShared?: (pids: number[]) => void): StagedLoad | undefined {
    const context = this.writableContext();
    const others = this.lock.tryExclusive();
    if (others !== undefined) {
      onShared?.(others);
      return undefined;
    }
    context.writing = true;
    let load: StagedLoad | undefined;
    const release = (): void => {
      context.writing = false;
      this.lock.releaseExclusive();
    };
    try {
      load = startStagedLoad(context, release);
      return load;
    } finally {
      if (!load) release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.context.env.close();
    } finally {
      this.lock.release();
    }
    if (this.temporary) rmSync(this.path, { recursive: true, force: true });
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the store is closed');
  }
}

function requirePath(path: string | undefined): string {
  if (!path) throw new TypeError('a store needs a path, or memory: true');
  return resolve(path);
}

function openDatabases(env: RootDatabase, readOnly: boolean): StoreDatabases {
  try {
    const indexes = new Map<string, IdIndexDatabase>();
    for (const layout of ALL_INDEXES) {
      const db = env.openDB({ name: layout.name, encoding: 'binary', keyEncoder: idKeyEncoder(layout) } as object as { name: string });
      indexes.set(layout.name, db as unknown as IdIndexDatabase);
    }
    const uint32Keys = { encoding: 'binary', keyEncoding: 'uint32' } as const;
    return {
      indexes,
      idToTerm: env.openDB({ name: 'id2term', ...uint32Keys }) as never,
      termToId: env.openDB({ name: 'term2id', encoding: 'binary', keyEncoding: 'binary', dupSort: true, dupFixed: true } as object as {
        name: string;
      }) as never,
      meta: env.openDB({ name: 'meta', encoding: 'binary' }) as never,
      graphs: env.openDB({ name: 'graphs', ...uint32Keys }) as never,
      predicates: env.openDB({ name: 'predicates', ...uint32Keys }) as never,
      // Created by the first writable open of a store written before it (no format change: see statistics.ts).
      predicateSketches: readOnly ? undefined : (env.openDB({ name: 'predicateSketches', ...uint32Keys }) as never),
      loadLog: readOnly ? undefined : (env.openDB({ name: 'loadLog', encoding: 'binary', keyEncoding: 'binary' } as object as { name: string }) as never),
    };
  } catch (error) {
    if (readOnly) throw new Error(`not a Quiver store (or not initialized yet): ${(error as Error).message}`, { cause: error });
    throw error;
  }
}

function initializeFormat(context: StoreContext): void {
  const meta = context.dbs.meta;
  // Read first: opening a store that has a format needs no write transaction, so it does not wait
  // for another process's long one (a load).
  const stored = meta.getBinaryFast(META.formatVersion);
  if (stored !== undefined && decodeCount(stored) === FORMAT_VERSION) return;
  context.env.transactionSync(() => {
    const found = meta.getBinaryFast(META.formatVersion);
    if (found !== undefined && !READABLE_FORMATS.includes(decodeCount(found))) throw new Error(`unsupported store format ${decodeCount(found)}`);
    meta.putSync(META.formatVersion, encodeCount(FORMAT_VERSION));
  });
}

function checkFormat(context: StoreContext): void {
  const found = context.dbs.meta.getBinaryFast(META.formatVersion);
  if (found === undefined || !READABLE_FORMATS.includes(decodeCount(found))) throw new Error('not a Quiver store, or an unsupported format');
}

function isPromiseLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
