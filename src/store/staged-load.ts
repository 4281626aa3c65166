/**
 * A load in several transactions instead of one: memory stays bounded however large the file (LMDB
 * keeps a write transaction's dirty pages in memory), and each transaction's B-tree work is cheaper
 * (a short dirty-page list).
 *
 * All-or-nothing is kept with an undo marker instead of a single transaction:
 *  1. the first transaction records, durably, that a load is in progress (LOAD_MARKER: which process,
 *     and for a store that held data the first term ID of the load), and for a store that held data
 *     the statistics as they were (load-undo.ts);
 *  2. the data goes in through stages, each committed with MDB_NOMETASYNC: the data pages are synced
 *     but not the meta page, so a machine crash loses at most the last stage, never the file's
 *     integrity;
 *  3. what the writer held back (secondary index entries, in memory and spilled to run files in
 *     <store>/load-runs, spilled-runs.ts) is merged and appended in transactions of bounded size,
 *     committed as the stages are; the last transaction removes the marker and commits with a full
 *     sync: once it returns the whole file is durable. The run files are deleted then.
 * A load that fails undoes itself. A load whose process died (SIGKILL, power loss) leaves the marker
 * behind, and the next writable open of the store sees that the process is gone and undoes it, and
 * deletes the run files (recoverInterruptedLoad). Undoing a load into an empty store clears the
 * store; into a store that held data, it removes what the load added and puts the statistics back
 * (load-undo.ts).
 *
 * Only for a store that nothing else has open (the exclusive claim of store-lock.ts, which
 * LmdbQuadStore.beginStagedLoad takes; while it lasts, every other open is refused): the
 * load's writer keeps the next term ID, the distinct-term tracking and the held-back dictionary and
 * index entries in memory from one transaction to the next, other handles would see its stages
 * without the entries it holds back, and the undo removes every term and quad past the load's start.
 * A writer elsewhere meanwhile would be given the same term IDs, miss terms the load holds back, and
 * lose its writes to the undo. Hence also: the data that recovery removes is the dead load's own, as
 * nothing could open the store while the load ran, and the first open after it recovers before
 * anything else reads or writes.
 */
import { existsSync, rmSync } from 'node:fs';
import { FIRST_TERM_ID, type TermId } from './quad-store.js';
import { FORMAT_VERSION, META, decodeCount, encodeCount } from './statistics.js';
import type { StoreContext } from './store-context.js';
import { LmdbStoreWriter } from './lmdb-writer.js';
import { loadRunsDirectory } from './spilled-runs.js';
import { LOAD_UNDO_STATISTICS, NewQuadLog, snapshotStatistics, undoLoad } from './load-undo.js';
import { currentProcess, isAlive, type ProcessIdentity } from './store-lock.js';

/** Meta key of the undo marker; its value says which process is loading (LoadOwner as JSON). */
export const LOAD_MARKER = 'loadInProgress';

/** lmdb-js transaction flags: abortable, synchronous commit (its default), plus LMDB's per-transaction flags. */
const TXN_DEFAULT = 3;
const MDB_NOMETASYNC = 0x40000;
/**
 * Held-back entries written per transaction at the end of a load (16 M entries are ~350 MB of
 * pages): LMDB keeps a transaction's dirty pages in memory (spilling them to the file past 512 MB),
 * and a load of tens of millions of triples holds back too many for one transaction.
 */
const HELD_BACK_PER_TRANSACTION = 1 << 22;

/**
 * The loading process (markers of older versions have pid and boot only), and for a store that held
 * data the load's first term ID: the boundary of what its undo removes.
 */
type LoadOwner = Partial<ProcessIdentity> & { pid: number; firstNewId?: number };

export class StagedLoad {
  private done = false;

  /** Use LmdbQuadStore.beginStagedLoad. */
  constructor(
    private readonly context: StoreContext,
    readonly writer: LmdbStoreWriter,
    private readonly release: () => void,
    /** Set when the store held data: the load's first term ID, whose undo is load-undo.ts's. */
    private readonly firstNewId: TermId | undefined,
  ) {}

  /**
   * Runs fn in one transaction of the load; it may await (the parser) in between writes. Committed
   * without syncing the meta page: durable only at `finish`, undone by a crash before it.
   */
  async stage<T>(fn: (writer: LmdbStoreWriter) => Promise<T>): Promise<T> {
    this.checkActive();
    let result: T | undefined;
    await this.context.env.transactionSync(async () => {
      result = await fn(this.writer);
      this.writer.endStage();
    }, TXN_DEFAULT | MDB_NOMETASYNC);
    return result as T;
  }

  /**
   * Writes what the writer held back, removes the marker and commits durably.
   * @param heldBackPerTransaction entries of the held-back writes per transaction (tests lower it)
   * @param dieAfter tests: throw after this many of those transactions, the marker left in place, as
   *   a process killed there leaves the store
   */
  finish(heldBackPerTransaction = HELD_BACK_PER_TRANSACTION, dieAfter?: number): void {
    this.checkActive();
    try {
      for (let transactions = 1; !this.writeHeldBack(heldBackPerTransaction); transactions++) {
        if (transactions === dieAfter) throw new Error(`died after ${dieAfter} transactions of held-back writes`);
      }
      this.context.env.transactionSync(() => {
        this.writer.finish();
        this.context.dbs.meta.removeSync(LOAD_MARKER);
        if (this.firstNewId === undefined) return;
        this.context.dbs.meta.removeSync(LOAD_UNDO_STATISTICS);
        this.context.dbs.loadLog?.clearSync();
      });
    } finally {
      this.end();
    }
  }

  /** One transaction of the held-back entries' writes; true once none are left. */
  private writeHeldBack(budget: number): boolean {
    let done = false;
    this.context.env.transactionSync(() => {
      done = this.writer.writeHeldBack(budget);
    }, TXN_DEFAULT | MDB_NOMETASYNC);
    return done;
  }

  /** Undoes the load (durably): the store is as it was before. */
  abort(): void {
    if (this.done) return;
    try {
      // Only what the stages committed is undone; end() drops what the writer still holds back.
      undo(this.context, this.firstNewId);
    } finally {
      this.end();
    }
  }

  private end(): void {
    this.done = true;
    try {
      this.writer.abandon();
      removeLoadRuns(this.context);
    } finally {
      this.release();
    }
  }

  private checkActive(): void {
    if (this.done) throw new Error('this staged load has ended');
  }
}

/**
 * Starts a staged load: records the marker (and for a store with data, what its undo needs)
 * durably and returns the load's writer, which lives across all its transactions.
 */
export function startStagedLoad(context: StoreContext, release: () => void): StagedLoad {
  let load: StagedLoad | undefined;
  context.env.transactionSync(() => {
    const runsDirectory = runsDirectoryOf(context);
    if (isEmpty(context)) {
      context.dbs.meta.putSync(LOAD_MARKER, Buffer.from(JSON.stringify(currentOwner())));
      load = new StagedLoad(context, new LmdbStoreWriter(context, { runsDirectory }), release, undefined);
      return;
    }
    const nextId = context.dbs.meta.getBinaryFast(META.nextId);
    const firstNewId = nextId === undefined ? FIRST_TERM_ID : decodeCount(nextId);
    const log = context.dbs.loadLog;
    if (!log) throw new Error('a staged load needs a writable store');
    log.clearSync();
    context.dbs.meta.putSync(LOAD_UNDO_STATISTICS, snapshotStatistics(context));
    context.dbs.meta.putSync(LOAD_MARKER, Buffer.from(JSON.stringify({ ...currentOwner(), firstNewId })));
    const writer = new LmdbStoreWriter(context, { runsDirectory, newQuadLog: new NewQuadLog(log, firstNewId) });
    load = new StagedLoad(context, writer, release, firstNewId);
  });
  return load!;
}

/** Puts the store back as it was before the load: cleared, or the load's additions removed. */
function undo(context: StoreContext, firstNewId: TermId | undefined): void {
  if (firstNewId === undefined) context.env.transactionSync(() => clearStore(context));
  else undoLoad(context, firstNewId);
}

function isEmpty(context: StoreContext): boolean {
  const nextId = context.dbs.meta.getBinaryFast(META.nextId);
  if (nextId !== undefined && decodeCount(nextId) !== FIRST_TERM_ID) return false;
  for (const _ of context.dbs.graphs.getKeys({ limit: 1 })) return false;
  return true;
}

/**
 * At a writable open: a marker left by a process that no longer runs means a load died half way;
 * undoing it puts the store back as it was. A marker of a live process is left alone (that load is
 * still running).
 */
export function recoverInterruptedLoad(context: StoreContext): boolean {
  const found = context.dbs.meta.get(LOAD_MARKER);
  if (found === undefined) {
    removeStaleLoadRuns(context);
    return false;
  }
  const owner = parseOwner(Buffer.from(found.buffer, found.byteOffset, found.byteLength).toString('utf8'));
  if (owner !== undefined && isAlive(owner)) return false;
  let firstNewId: TermId | undefined;
  let marked = false;
  context.env.transactionSync(() => {
    // Checked again under the write lock: another process may have recovered it meanwhile.
    const marker = context.dbs.meta.get(LOAD_MARKER);
    if (marker === undefined) return;
    marked = true;
    firstNewId = parseOwner(Buffer.from(marker.buffer, marker.byteOffset, marker.byteLength).toString('utf8'))?.firstNewId;
  });
  // The undo's own transactions are serialized with other processes' writes by LMDB, and no other
  // process writes here: they open the store only after this recovery (see the top of this file).
  if (marked) undo(context, firstNewId);
  removeLoadRuns(context);
  return true;
}

function runsDirectoryOf(context: StoreContext): string {
  return loadRunsDirectory((context.env as unknown as { path: string }).path);
}

function removeLoadRuns(context: StoreContext): void {
  rmSync(runsDirectoryOf(context), { recursive: true, force: true });
}

/**
 * Run files with no marker: a load was killed after its last commit, before it deleted them. Checked
 * under the write lock, as a running load writes its marker before it spills anything.
 */
function removeStaleLoadRuns(context: StoreContext): void {
  if (!existsSync(runsDirectoryOf(context))) return;
  context.env.transactionSync(() => {
    if (context.dbs.meta.getBinaryFast(LOAD_MARKER) === undefined) removeLoadRuns(context);
  });
}

/** Empties every database and writes the format version back: a fresh store. */
function clearStore(context: StoreContext): void {
  const dbs = context.dbs;
  for (const db of dbs.indexes.values()) db.clearSync();
  for (const db of [dbs.idToTerm, dbs.termToId, dbs.meta, dbs.graphs, dbs.predicates, dbs.predicateSketches]) db?.clearSync();
  dbs.meta.putSync(META.formatVersion, encodeCount(FORMAT_VERSION));
  context.termsById.clear();
  context.idsByKey.clear();
}

function currentOwner(): LoadOwner {
  return currentProcess();
}

function parseOwner(text: string): LoadOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<ProcessIdentity>;
    if (typeof owner.pid !== 'number') return undefined;
    const field = (value: unknown) => (typeof value === 'string' ? value : '');
    const firstNewId = typeof (owner as LoadOwner).firstNewId === 'number' ? (owner as LoadOwner).firstNewId : undefined;
    return { pid: owner.pid, start: field(owner.start), boot: field(owner.boot), pidNamespace: field(owner.pidNamespace), firstNewId };
  } catch {
    return undefined;
  }
}
