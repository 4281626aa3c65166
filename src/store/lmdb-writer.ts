/**
 * StoreWriter: runs inside the LMDB write transaction that `QuadStore.write` opened, so its reads
 * (inherited from the reader, with no explicit transaction) see its own writes.
 *
 * Per-quad cost is kept to the index puts: the first put uses MDB_NOOVERWRITE, which both inserts and
 * tells whether the quad was new, so an add does no separate existence read; statistics are counted
 * in memory and written once at the end (PendingCounts).
 *
 * Distinct subjects/objects are kept exact: a term becomes a distinct subject when its first quad as
 * subject arrives (no read needed for a term created in this transaction; one prefix probe of SPO
 * and SPOG for an older term, once per transaction), and stops being one when a removal leaves no quad
 * with it as subject, which is probed once per term at flush. Per predicate, distinct subjects and
 * objects are sketched instead (predicate-distincts.ts): exact ones would cost an index probe per
 * new quad, which a bulk load cannot afford.
 */
import type { Term } from '../rdf/index.js';
import { ANY, DEFAULT_GRAPH_ID, FIRST_TERM_ID, QUERY_LOCAL_ID_BASE, type QuadIds, type StoreStatistics, type StoreWriter, type TermId } from './quad-store.js';
import { LmdbStoreReader } from './lmdb-reader.js';
import { DEFAULT_INDEXES, GRAPH_FIRST_INDEXES, GRAPH_LAST_INDEXES, O, S, rangeFor, type IndexLayout } from './index-layout.js';
import { BoundedMap } from '../bounded-map.js';
import { IdBitset } from './id-bitset.js';
import { DeferredQuads, fillKey, indexHandle, writePrimary, type IndexHandle } from './sorted-index-writes.js';
import type { QuadBatch } from './sorted-keys.js';
import { DictionaryWriter, canonicalKey } from './term-dictionary.js';
import { META, PendingCounts, readMeta, readStatistics, encodeCount } from './statistics.js';
import type { StoreContext } from './store-context.js';
import { SpilledRuns, loadMemoryEntries } from './spilled-runs.js';
import { WriteCheckpoints } from './write-checkpoints.js';
import type { NewQuadLog } from './load-undo.js';

const EMPTY_VALUE = Buffer.alloc(0);
const NO_OVERWRITE = { noOverwrite: true };
const NEW_TERMS_CACHE_SIZE = 65_536;
/** The default graph's term key, 'D', as its one UTF-8 byte. */
const DEFAULT_GRAPH_KEY_BYTE = 0x44;
/*
 * New quads are held back from the secondary indexes (16 bytes each) up to loadMemoryEntries()
 * (spilled-runs.ts): the larger, the more of a bulk load's secondary keys are sorted together and
 * appended rather than inserted. Writing them at every stage end of a staged load instead (1M
 * statements) was tried: memory at 15M statements went from ~1.2 to ~0.8 GiB, but the 3M store grew
 * from 101 to 163 B/statement and took 14% more CPU (inserts in mid-tree split pages), so they stay
 * held back across stages; past the limit a staged load spills them to run files (BulkLoadOptions).
 */

/** What a staged load's writer does differently. */
export interface BulkLoadOptions {
  /** Where held-back entries past the memory limit go as sorted run files (created when needed). */
  readonly runsDirectory: string;
  /** Into a store that held data: logs the new quads the load's undo could not find otherwise. */
  readonly newQuadLog?: NewQuadLog;
}

/** Tracks which terms are currently subjects (or objects) somewhere in the store. */
class DistinctTracker {
  /** Known to occur in this position now (or counted as such). */
  private readonly present = new IdBitset();
  /** Lost a quad in this position during the transaction: may have left the position. */
  private readonly maybeGone = new Set<TermId>();

  constructor(
    private readonly occurs: (id: TermId) => boolean,
    private readonly isNewTerm: (id: TermId) => boolean,
  ) {}

  /** Called before a quad with the term is inserted; returns the change in the distinct count (0 or 1). */
  added(id: TermId): number {
    if (!this.present.add(id)) return 0;
    // Counted when it was last present; its removal has not been subtracted yet.
    if (this.maybeGone.delete(id)) return 0;
    return this.isNewTerm(id) || !this.occurs(id) ? 1 : 0;
  }

  removed(id: TermId): void {
    this.maybeGone.add(id);
  }

  /** Settles the removals: returns the (non-positive) change in the distinct count. */
  settle(): number {
    let delta = 0;
    for (const id of this.maybeGone) {
      if (!this.occurs(id)) {
        delta--;
        this.present.delete(id);
      }
    }
    this.maybeGone.clear();
    return delta;
  }
}

export class LmdbStoreWriter extends LmdbStoreReader implements StoreWriter {
  private readonly firstNewId: TermId;
  private nextId: TermId;
  private readonly newTermIds = new BoundedMap<string, TermId>(NEW_TERMS_CACHE_SIZE);
  private readonly counts = new PendingCounts(this.context.dbs, this.reads, (p) => this.predicateQuads(p));
  private readonly knownGraphs = new Set<TermId>();
  private readonly subjects: DistinctTracker;
  private readonly objects: DistinctTracker;
  private readonly defaultIndexes: IndexHandle[];
  private readonly namedIndexes: IndexHandle[];
  /** New quads of addAll whose secondary index entries are not written yet (see flushDeferred). */
  private readonly deferredDefault: DeferredQuads;
  private readonly deferredNamed: DeferredQuads;
  private finished = false;
  private readonly newQuadLog: NewQuadLog | undefined;

  constructor(
    context: StoreContext,
    bulk?: BulkLoadOptions,
    /** Told of every change, so that the caller may stop the transaction as it writes. */
    private readonly checkpoints = new WriteCheckpoints(undefined),
  ) {
    super(context, undefined);
    const limit = loadMemoryEntries();
    const spilled = (name: string, orders: number[][]) => (bulk ? new SpilledRuns(bulk.runsDirectory, name, orders) : undefined);
    const defaultOrders = secondaryOrders(DEFAULT_INDEXES);
    const namedOrders = secondaryOrders([...GRAPH_FIRST_INDEXES, ...GRAPH_LAST_INDEXES]);
    this.deferredDefault = new DeferredQuads(limit, DEFAULT_INDEXES[0].order, defaultOrders, spilled('default', defaultOrders));
    this.deferredNamed = new DeferredQuads(limit, GRAPH_FIRST_INDEXES[0].order, namedOrders, spilled('named', namedOrders));
    if (bulk) this.dictionaryWriter.spillTo(bulk.runsDirectory);
    this.newQuadLog = bulk?.newQuadLog;
    this.firstNewId = this.nextId = readMeta(context.dbs.meta, this.reads, META.nextId);
    const handle = (layout: IndexLayout): IndexHandle => indexHandle(context.index(layout.name), layout);
    this.defaultIndexes = DEFAULT_INDEXES.map(handle);
    this.namedIndexes = [...GRAPH_FIRST_INDEXES, ...GRAPH_LAST_INDEXES].map(handle);
    const isNewTerm = (id: TermId): boolean => id >= this.firstNewId;
    this.subjects = new DistinctTracker((id) => this.occursAt(S, id), isNewTerm);
    this.objects = new DistinctTracker((id) => this.occursAt(O, id), isNewTerm);
  }

  protected override makeDictionary(): DictionaryWriter {
    return new DictionaryWriter(this.context.dbs.idToTerm, this.context.dbs.termToId, this.reads, () => this.issueId());
  }

  private get dictionaryWriter(): DictionaryWriter {
    return this.dictionary as DictionaryWriter;
  }

  protected override isCommittedId(id: TermId): boolean {
    return id < this.firstNewId;
  }

  override idOf(term: Term): TermId | undefined {
    const fresh = this.newTermIds.get(canonicalKey(term));
    return fresh ?? super.idOf(term);
  }

  intern(term: Term): TermId {
    return this.internKey(canonicalKey(term));
  }

  /** `intern` by canonical term key (termKey): loaders that read keys straight from text skip the term objects. */
  internKey(key: string): TermId {
    this.checkOpen();
    const fresh = this.newTermIds.get(key);
    if (fresh !== undefined) return fresh;
    const known = this.context.idsByKey.get(key) ?? this.dictionary.idOfKey(key);
    if (known !== undefined) {
      if (this.isCommittedId(known)) this.context.idsByKey.set(key, known);
      return known;
    }
    const id = this.dictionaryWriter.insert(key);
    this.newTermIds.set(key, id);
    return id;
  }

  /** The next term ID, for a term or a prefix the dictionary stores. */
  private issueId(): TermId {
    if (this.nextId >= QUERY_LOCAL_ID_BASE) throw new RangeError('the dictionary is full (2^32 terms)');
    this.checkpoints.advance();
    return this.nextId++;
  }

  /**
   * A new ID for a term key the caller knows the store does not hold, with no look-up: for a bulk
   * load into a store that was empty when this transaction began (see startedEmpty), whose parser
   * hands over each distinct key once. The default graph's key still maps to DEFAULT_GRAPH_ID.
   */
  internNewKey(key: string): TermId {
    this.checkOpen();
    if (key === 'D') return DEFAULT_GRAPH_ID;
    return this.dictionaryWriter.insertDeferred(key);
  }

  /**
   * `internNewKey` of a key given as UTF-8 bytes with its dictionary hash (store/term-hash.ts's
   * hashTermKeyBytes), as the load's parse worker sends new terms: the loading thread then neither
   * decodes, encodes nor hashes the key, nor codes a long literal (`coded`: codedPlainLiteral).
   */
  internNewKeyBytes(keyBytes: Uint8Array, hashHigh: number, hashLow: number, coded?: Uint8Array): TermId {
    this.checkOpen();
    if (keyBytes.length === 1 && keyBytes[0] === DEFAULT_GRAPH_KEY_BYTE) return DEFAULT_GRAPH_ID;
    return this.dictionaryWriter.insertDeferredBytes(keyBytes, hashHigh, hashLow, coded);
  }

  /**
   * `internKey` of a key given as UTF-8 bytes with its dictionary hash, as the load's parse worker
   * sends keys it may have sent before (after its term table started over, or into a store with
   * data): the look-up leaves held-back dictionary entries held back, and a new key is held back too.
   */
  internKeyBytes(keyBytes: Uint8Array, hashHigh: number, hashLow: number, coded?: Uint8Array): TermId {
    this.checkOpen();
    const known = this.dictionaryWriter.idOfKeyBytes(keyBytes, hashHigh, hashLow);
    if (known !== undefined) return known;
    return this.dictionaryWriter.insertDeferredBytes(keyBytes, hashHigh, hashLow, coded);
  }

  /** Whether the dictionary was empty when this transaction began. */
  startedEmpty(): boolean {
    return this.firstNewId === FIRST_TERM_ID;
  }

  add(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    this.checkOpen();
    checkQuad(s, p, o, g);
    this.checkpoints.advance();
    // Before the insert: whether s and o occurred already is what decides the distinct counts.
    const newSubject = this.subjects.added(s);
    const newObject = this.objects.added(o);
    const indexes = g === DEFAULT_GRAPH_ID ? this.defaultIndexes : this.namedIndexes;
    if (!this.put(indexes[0], s, p, o, g, true)) return false;
    this.newQuadLog?.record(Uint32Array.of(s, p, o, g), 0, 1);
    for (let i = 1; i < indexes.length; i++) this.put(indexes[i], s, p, o, g, false);
    if (g !== DEFAULT_GRAPH_ID) this.ensureGraph(g);
    this.counts.countNewQuad(s, p, o, g);
    this.counts.distinctSubjects += newSubject;
    this.counts.distinctObjects += newObject;
    return true;
  }

  remove(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    this.checkOpen();
    checkQuad(s, p, o, g);
    this.checkpoints.advance();
    // A held-back secondary entry of this quad would otherwise be written after its removal.
    this.flushDeferred();
    const indexes = g === DEFAULT_GRAPH_ID ? this.defaultIndexes : this.namedIndexes;
    if (!this.delete(indexes[0], s, p, o, g)) return false;
    for (let i = 1; i < indexes.length; i++) this.delete(indexes[i], s, p, o, g);
    this.counts.countQuad(p, g, -1);
    this.subjects.removed(s);
    this.objects.removed(o);
    return true;
  }

  /**
   * Adds a batch of quads, flat (s, p, o, g) x count; returns how many were new. Same effect as
   * `add` on each, as every read of this writer sees; the fast path for loading. Each family's
   * primary index is written now, in key order, and decides which quads are new; their secondary
   * index entries wait (in memory up to loadMemoryEntries(), spilled to sorted run files past it) so that large sorted runs of them are
   * appended, and are written before this writer reads, removes or commits.
   */
  addAll(batch: QuadBatch, count = Math.floor(batch.length / 4)): number {
    this.checkOpen();
    this.checkpoints.advance(count);
    const named = this.checkAndTrack(batch, count);
    if (named === 0) return this.addToFamily(batch, count, this.defaultIndexes, this.deferredDefault);
    if (named === count) return this.addToFamily(batch, count, this.namedIndexes, this.deferredNamed);
    const [defaults, nameds] = splitByFamily(batch, count, named);
    return (
      this.addToFamily(defaults, count - named, this.defaultIndexes, this.deferredDefault) +
      this.addToFamily(nameds, named, this.namedIndexes, this.deferredNamed)
    );
  }

  /*
   * The loops of a bulk add are functions of their own (checkAndTrack, countAdded): a long loop is
   * compiled by on-stack replacement while it runs, and the code after it, not run yet, then threw
   * the compiled function away the first time it was reached, batch after batch.
   */

  /** Checks the batch's quads and tracks their subjects and objects; returns how many are in named graphs. */
  private checkAndTrack(batch: QuadBatch, count: number): number {
    let named = 0;
    for (let i = 0; i < count * 4; i += 4) {
      const g = batch[i + 3];
      checkQuad(batch[i], batch[i + 1], batch[i + 2], g);
      if (g !== DEFAULT_GRAPH_ID) named++;
      // Before the inserts, as in add: whether s and o occurred already decides the distinct counts.
      this.counts.distinctSubjects += this.subjects.added(batch[i]);
      this.counts.distinctObjects += this.objects.added(batch[i + 2]);
    }
    return named;
  }

  /** Counts the quads fresh[first..first + added) (flat), new in the store. */
  private countAdded(fresh: QuadBatch, first: number, added: number): void {
    for (let at = first * 4; at < (first + added) * 4; at += 4) {
      const g = fresh[at + 3];
      if (g !== DEFAULT_GRAPH_ID) this.ensureGraph(g);
      this.counts.countNewQuad(fresh[at], fresh[at + 1], fresh[at + 2], g);
    }
  }

  private addToFamily(batch: QuadBatch, count: number, indexes: IndexHandle[], deferred: DeferredQuads): number {
    if (count === 0) return 0;
    const fresh = deferred.reserve(count);
    const first = deferred.count;
    const added = writePrimary(indexes[0], batch, count, fresh, first);
    this.newQuadLog?.record(fresh, first, added);
    this.countAdded(fresh, first, added);
    deferred.count += added;
    deferred.sealRun();
    if (deferred.count >= deferred.limit) deferred.relieve(indexes.slice(1));
    return added;
  }

  /** Writes the secondary index entries that addAll held back. */
  private flushDeferred(): void {
    if (this.deferredDefault.waiting) this.deferredDefault.writeTo(this.defaultIndexes.slice(1));
    if (this.deferredNamed.waiting) this.deferredNamed.writeTo(this.namedIndexes.slice(1));
  }

  /**
   * Writes up to about `budget` of the held-back secondary index and dictionary entries (a staged
   * load's spilled runs, merged); true once none are left. A staged load calls it in transactions of their own
   * before the last one, which keeps each transaction's dirty pages bounded.
   */
  writeHeldBack(budget: number): boolean {
    this.checkOpen();
    if (!this.deferredDefault.writeSome(this.defaultIndexes.slice(1), budget)) return false;
    if (!this.deferredNamed.writeSome(this.namedIndexes.slice(1), budget)) return false;
    return this.dictionaryWriter.writePendingSome(budget);
  }

  override scan(s: TermId, p: TermId, o: TermId, g: TermId): Iterable<QuadIds> {
    this.flushDeferred();
    return super.scan(s, p, o, g);
  }

  override count(s: TermId, p: TermId, o: TermId, g: TermId): number {
    this.flushDeferred();
    return super.count(s, p, o, g);
  }

  override has(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    this.flushDeferred();
    return super.has(s, p, o, g);
  }

  private put(index: IndexHandle, s: TermId, p: TermId, o: TermId, g: TermId, first: boolean): boolean {
    const key = fillKey(index, s, p, o, g);
    return index.db.putSync(key, EMPTY_VALUE, first ? NO_OVERWRITE : undefined);
  }

  private delete(index: IndexHandle, s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    return index.db.removeSync(fillKey(index, s, p, o, g));
  }

  /** Whether some quad, in any graph, has the term at position S or O. */
  private occursAt(position: typeof S | typeof O, id: TermId): boolean {
    const inDefault = position === S ? rangeFor(id, ANY, ANY, DEFAULT_GRAPH_ID) : rangeFor(ANY, ANY, id, DEFAULT_GRAPH_ID);
    if (this.rangeHasQuads(inDefault)) return true;
    const inNamed = position === S ? rangeFor(id, ANY, ANY, ANY) : rangeFor(ANY, ANY, id, ANY);
    return this.rangeHasQuads(inNamed);
  }

  /** The subject and object of every quad with the predicate, default graph and named graphs. */
  private *predicateQuads(p: TermId): Iterable<readonly [TermId, TermId]> {
    for (const g of [DEFAULT_GRAPH_ID, ANY]) for (const quad of this.scan(ANY, p, ANY, g)) yield [quad[0], quad[2]] as const;
  }

  private ensureGraph(g: TermId): void {
    if (this.knownGraphs.has(g)) return;
    if (!this.hasNamedGraph(g)) this.context.dbs.graphs.putSync(g, encodeCount(0));
    this.knownGraphs.add(g);
  }

  createGraph(g: TermId): boolean {
    this.checkOpen();
    checkNamedGraph(g);
    if (this.knownGraphs.has(g) || this.hasNamedGraph(g)) return false;
    this.context.dbs.graphs.putSync(g, encodeCount(0));
    this.knownGraphs.add(g);
    return true;
  }

  clearGraph(g: TermId): number {
    this.checkOpen();
    if (g === ANY) throw new RangeError('clearGraph needs one graph, not ANY');
    // Collected first: removing keys under an open cursor of the same transaction is not safe.
    const quads: number[] = [];
    for (const quad of this.scan(ANY, ANY, ANY, g)) {
      // Reading a large graph takes a while too.
      this.checkpoints.advance();
      quads.push(quad[0], quad[1], quad[2]);
    }
    for (let i = 0; i < quads.length; i += 3) this.remove(quads[i], quads[i + 1], quads[i + 2], g);
    return quads.length / 3;
  }

  /** Removes a named graph and its quads. For the default graph, which always exists, this clears it. */
  dropGraph(g: TermId): boolean {
    this.checkOpen();
    if (g === DEFAULT_GRAPH_ID) {
      this.clearGraph(g);
      return true;
    }
    checkNamedGraph(g);
    if (!this.knownGraphs.has(g) && !this.hasNamedGraph(g)) return false;
    this.clearGraph(g);
    this.counts.forgetGraph(g);
    this.context.dbs.graphs.removeSync(g);
    this.knownGraphs.delete(g);
    return true;
  }

  override statistics(): StoreStatistics {
    this.flush();
    return readStatistics(this.context.dbs, this.reads);
  }

  override release(): void {
    // The write transaction ends with the write callback, not here.
  }

  /** Writes the pending statistics; called before commit and whenever the writer reads them. */
  flush(): void {
    this.flushDeferred();
    this.dictionaryWriter.writePending();
    this.counts.distinctSubjects += this.subjects.settle();
    this.counts.distinctObjects += this.objects.settle();
    this.counts.flush(this.context.dbs, this.reads, this.nextId);
  }

  /**
   * Ends one transaction of a staged load (staged-load.ts), the writer living on into the next:
   * statistics are written, whereas the held-back index and dictionary entries stay held back so
   * that their sorted runs keep growing across transactions (see addAll).
   */
  endStage(): void {
    this.counts.distinctSubjects += this.subjects.settle();
    this.counts.distinctObjects += this.objects.settle();
    this.counts.flush(this.context.dbs, this.reads, this.nextId);
  }

  /** Ends the writer: flushes, then refuses further use (the transaction is about to commit). */
  finish(): void {
    this.flush();
    this.finished = true;
  }

  /** Refuses use after the write callback returned or threw. */
  abandon(): void {
    this.finished = true;
    this.deferredDefault.discard();
    this.deferredNamed.discard();
    this.dictionaryWriter.discardPending();
  }

  private checkOpen(): void {
    if (this.finished) throw new Error('this writer belongs to a finished write transaction');
  }
}

/** The key orders of a family's secondary indexes (all but its first, the primary). */
function secondaryOrders(family: readonly IndexLayout[]): number[][] {
  return family.slice(1).map((layout) => [...layout.order]);
}

/** The quads of a mixed batch, split into default-graph and named-graph ones. */
function splitByFamily(batch: QuadBatch, count: number, named: number): [QuadBatch, QuadBatch] {
  const defaults = new Uint32Array((count - named) * 4);
  const nameds = new Uint32Array(named * 4);
  let d = 0;
  let n = 0;
  for (let i = 0; i < count * 4; i += 4) {
    const target = batch[i + 3] === DEFAULT_GRAPH_ID ? defaults : nameds;
    const at = target === defaults ? (d += 4) - 4 : (n += 4) - 4;
    target[at] = batch[i];
    target[at + 1] = batch[i + 1];
    target[at + 2] = batch[i + 2];
    target[at + 3] = batch[i + 3];
  }
  return [defaults, nameds];
}

function isTermId(id: TermId): boolean {
  return Number.isInteger(id) && id >= FIRST_TERM_ID && id < QUERY_LOCAL_ID_BASE;
}

function checkQuad(s: TermId, p: TermId, o: TermId, g: TermId): void {
  if (!isTermId(s) || !isTermId(p) || !isTermId(o) || !(g === DEFAULT_GRAPH_ID || isTermId(g))) {
    throw new RangeError(`not a storable quad of IDs: ${s} ${p} ${o} ${g}`);
  }
}

function checkNamedGraph(g: TermId): void {
  if (!isTermId(g)) throw new RangeError(`not a named graph ID: ${g}`);
}
