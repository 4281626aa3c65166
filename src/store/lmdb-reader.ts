/**
 * StoreReader over LMDB: every read goes through one read transaction, so a reader sees the store as
 * of the moment it was created for its whole life, whatever commits meanwhile (in this thread, other
 * threads or other processes). The writer reuses all of this with the write transaction instead.
 */
import type { Term } from '../rdf/index.js';
import { ANY, DEFAULT_GRAPH_ID, UNION_GRAPH, type QuadIds, type StoreReader, type StoreStatistics, type TermId } from './quad-store.js';
import {
  rangeFor,
  rangeIn,
  graphLastPartner,
  indexFor,
  DEFAULT_INDEXES,
  GRAPH_FIRST_INDEXES,
  quadKey,
  type IndexLayout,
  type IndexRange,
} from './index-layout.js';
import { FreshRangeCursors, QuadScan, SharedRangeCursors, countRange, rangeIsEmpty, type RangeCursors } from './quad-scan.js';
import { UnionScan } from './union-scan.js';
import { SnapshotReads } from './snapshot-reads.js';
import { nativeScansFor, type NativeScans } from './lmdb-native/native-scan.js';
import { DictionaryReader, canonicalKey } from './term-dictionary.js';
import { META, readCount, readDataVersion, readMeta, readStatistics } from './statistics.js';
import type { StoreContext } from './store-context.js';
import type { ReadOptions, Transaction } from './lmdb-types.js';

const CURRENT_READ_TRANSACTION: ReadOptions = {};

export class LmdbStoreReader implements StoreReader {
  protected readonly reads: SnapshotReads;
  protected readonly dictionary: DictionaryReader;
  private released = false;
  private cachedStatistics: StoreStatistics | undefined;
  /** The snapshot's content version once read (null: not read yet). */
  private cachedVersion: number | undefined | null = null;
  /** Per index, the range read this reader's scans share (see SharedRangeCursors). */
  private readonly sharedCursors = new Map<IndexLayout, SharedRangeCursors>();
  /** Range reads through lmdb-js' native cursors (native-scan.ts); null: not decided yet, undefined: unavailable. */
  private native: NativeScans | undefined | null = null;

  constructor(
    protected readonly context: StoreContext,
    private readonly transaction: Transaction | undefined,
  ) {
    this.reads = new SnapshotReads(transaction, context.isWriting);
    this.dictionary = this.makeDictionary();
  }

  protected makeDictionary(): DictionaryReader {
    return new DictionaryReader(this.context.dbs.idToTerm, this.context.dbs.termToId, this.reads);
  }

  /** Whether an ID seen through this view is committed, hence safe in the shared caches. */
  protected isCommittedId(_id: TermId): boolean {
    return true;
  }

  idOf(term: Term): TermId | undefined {
    const key = canonicalKey(term);
    const cached = this.context.idsByKey.get(key);
    if (cached !== undefined) return cached;
    const id = this.dictionary.idOfKey(key);
    if (id !== undefined && this.isCommittedId(id)) this.context.idsByKey.set(key, id);
    return id;
  }

  termOf(id: TermId): Term {
    const cached = this.context.termsById.get(id);
    if (cached !== undefined) return cached;
    const term = this.dictionary.termOfId(id);
    if (term === undefined) throw new RangeError(`the store has no term with ID ${id}`);
    if (this.isCommittedId(id)) this.context.termsById.set(id, term);
    return term;
  }

  /** Native range reads, for a read snapshot outside a write transaction, where lmdb-js supports them. */
  private nativeScans(): NativeScans | undefined {
    if (this.native === null) {
      this.native = this.transaction && !this.context.writing && !this.released ? nativeScansFor(this.context, this.transaction) : undefined;
    }
    return this.native;
  }

  scan(s: TermId, p: TermId, o: TermId, g: TermId): Iterable<QuadIds> {
    if (g === UNION_GRAPH) return this.scanUnion(s, p, o);
    const native = this.nativeScans();
    if (native) return native.scan(s, p, o, g);
    const range = rangeFor(s, p, o, g);
    return new QuadScan(this.cursorsFor(range.index), range);
  }

  /** The union of all graphs: the default graph's index merged with its graph-last partner. */
  private scanUnion(s: TermId, p: TermId, o: TermId): Iterable<QuadIds> {
    const defaultIndex = indexFor(s, p, o, DEFAULT_GRAPH_ID);
    const namedIndex = graphLastPartner(defaultIndex);
    const native = this.nativeScans();
    const named = native ? native.scanIn(namedIndex, s, p, o, ANY) : new QuadScan(this.cursorsFor(namedIndex), rangeIn(namedIndex, s, p, o, ANY));
    return new UnionScan(this.scan(s, p, o, DEFAULT_GRAPH_ID), named, defaultIndex.order);
  }

  private cursorsFor(index: IndexLayout): RangeCursors {
    return this.sharedCursorsFor(index) ?? new FreshRangeCursors(this.context.index(index.name), this.reads.options);
  }

  /** The index's shared range read, while this snapshot is lmdb-js' current read transaction. */
  private sharedCursorsFor(index: IndexLayout): SharedRangeCursors | undefined {
    if (this.rangeOptions() !== CURRENT_READ_TRANSACTION) return undefined;
    let shared = this.sharedCursors.get(index);
    if (!shared) {
      shared = new SharedRangeCursors(this.context.index(index.name));
      this.sharedCursors.set(index, shared);
    }
    return shared;
  }

  count(s: TermId, p: TermId, o: TermId, g: TermId): number {
    if (g === UNION_GRAPH) return this.count(s, p, o, DEFAULT_GRAPH_ID) + this.count(s, p, o, ANY);
    if (s === ANY && p === ANY && o === ANY) return this.graphSize(g);
    const native = this.nativeScans();
    if (native) return native.count(s, p, o, g);
    const range = rangeFor(s, p, o, g);
    const shared = this.sharedCursorsFor(range.index);
    if (shared) return shared.count(range);
    return countRange(this.context.index(range.index.name), range, this.rangeOptions());
  }

  /**
   * Options for a range read. lmdb-js opens a new cursor for every range read given an explicit
   * transaction, but reuses one cursor per database for its own current read transaction. While our
   * snapshot still is that transaction (lmdb-js marks it notCurrent when it moves on, which it does
   * only between event-loop turns, as we hold a reference), range reads leave the transaction out
   * and get the reused cursor: the same snapshot, a fraction of the set-up cost per scan.
   */
  private rangeOptions(): ReadOptions {
    const transaction = this.transaction as (Transaction & { notCurrent?: boolean; isDone?: boolean }) | undefined;
    if (transaction && !this.context.writing && !transaction.notCurrent && !transaction.isDone) return CURRENT_READ_TRANSACTION;
    return this.reads.options;
  }

  /** Quads in a graph (or in all named graphs), from the statistics rather than the index. */
  private graphSize(g: TermId): number {
    const meta = this.context.dbs.meta;
    if (g === DEFAULT_GRAPH_ID) return readMeta(meta, this.reads, META.defaultGraphCount);
    if (g === ANY) return readMeta(meta, this.reads, META.quadCount) - readMeta(meta, this.reads, META.defaultGraphCount);
    return readCount(this.context.dbs.graphs, this.reads, g) ?? 0;
  }

  has(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    if (g === UNION_GRAPH) return this.has(s, p, o, DEFAULT_GRAPH_ID) || this.has(s, p, o, ANY);
    const native = this.nativeScans();
    if (native) return native.has(s, p, o, g);
    if (s !== ANY && p !== ANY && o !== ANY && g !== ANY) {
      const layout = g === DEFAULT_GRAPH_ID ? DEFAULT_INDEXES[0] : GRAPH_FIRST_INDEXES[0];
      return this.reads.get(this.context.index(layout.name), quadKey(layout, [s, p, o, g])) !== undefined;
    }
    const range = rangeFor(s, p, o, g);
    const shared = this.sharedCursorsFor(range.index);
    if (shared) return !shared.isEmpty(range);
    return !rangeIsEmpty(this.context.index(range.index.name), range, this.rangeOptions());
  }

  /** Whether any quad matches, for a pattern given as a range. */
  protected rangeHasQuads(range: IndexRange): boolean {
    return !rangeIsEmpty(this.context.index(range.index.name), range, this.reads.options);
  }

  namedGraphs(): TermId[] {
    return [...this.context.dbs.graphs.getKeys({ ...this.reads.options })];
  }

  hasNamedGraph(g: TermId): boolean {
    if (g === DEFAULT_GRAPH_ID || g === ANY) return false;
    return readCount(this.context.dbs.graphs, this.reads, g) !== undefined;
  }

  statistics(): StoreStatistics {
    // A snapshot never changes, so neither do its statistics.
    this.cachedStatistics ??= readStatistics(this.context.dbs, this.reads);
    return this.cachedStatistics;
  }

  contentVersion(): number | undefined {
    // A write transaction's own view changes under it, and the version is drawn only at its flush.
    if (!this.transaction || this.context.writing) return undefined;
    // A snapshot's version never changes; evaluation asks for it often.
    if (this.cachedVersion === null) this.cachedVersion = readDataVersion(this.context.dbs.meta, this.reads);
    return this.cachedVersion;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    // Native cursors first: LMDB frees a transaction's cursors' pages with it.
    this.native?.close();
    this.transaction?.done();
  }
}
