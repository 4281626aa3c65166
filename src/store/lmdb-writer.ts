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
 * with it as subject, which is probed once per term at flush.
 */
import type { Term } from '../rdf/terms.js';
import {
  ANY,
  DEFAULT_GRAPH_ID,
  FIRST_TERM_ID,
  QUERY_LOCAL_ID_BASE,
  type StoreStatistics,
  type StoreWriter,
  type TermId,
} from './quad-store.js';
import { LmdbStoreReader } from './lmdb-reader.js';
import {
  DEFAULT_INDEXES,
  GRAPH_FIRST_INDEXES,
  GRAPH_LAST_INDEXES,
  O,
  S,
  rangeFor,
  type IndexLayout,
} from './index-layout.js';
import { BoundedMap } from './bounded-map.js';
import { compareInOrder, sortedQuadOrder, type QuadBatch } from './sorted-keys.js';
import { lastKey } from './index-layout.js';
import { DictionaryWriter, canonicalKey } from './term-dictionary.js';
import { META, PendingCounts, encodeCount, readMeta, readStatistics } from './statistics.js';
import type { StoreContext } from './store-context.js';
import type { IdIndexDatabase } from './lmdb-types.js';

const EMPTY_VALUE = Buffer.alloc(0);
const NO_OVERWRITE = { noOverwrite: true };
const APPEND = { append: true };
const MAX_KEY = [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff];
const NEW_TERMS_CACHE_SIZE = 65_536;

interface IndexHandle {
  readonly db: IdIndexDatabase;
  readonly order: readonly number[];
  readonly key: Uint32Array;
}

/** Tracks which terms are currently subjects (or objects) somewhere in the store. */
class DistinctTracker {
  /** Known to occur in this position now (or counted as such). */
  private readonly present = new Set<TermId>();
  /** Lost a quad in this position during the transaction: may have left the position. */
  private readonly maybeGone = new Set<TermId>();

  constructor(
    private readonly occurs: (id: TermId) => boolean,
    private readonly isNewTerm: (id: TermId) => boolean,
  ) {}

  /** Called before a quad with the term is inserted; returns the change in the distinct count (0 or 1). */
  added(id: TermId): number {
    if (this.present.has(id)) return 0;
    this.present.add(id);
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
  private readonly counts = new PendingCounts();
  private readonly knownGraphs = new Set<TermId>();
  private readonly subjects: DistinctTracker;
  private readonly objects: DistinctTracker;
  private readonly defaultIndexes: IndexHandle[];
  private readonly namedIndexes: IndexHandle[];
  private finished = false;

  constructor(context: StoreContext) {
    super(context, undefined);
    this.firstNewId = this.nextId = readMeta(context.dbs.meta, this.reads, META.nextId);
    const handle = (layout: IndexLayout): IndexHandle => ({
      db: context.index(layout.name),
      order: layout.order,
      key: new Uint32Array(layout.order.length),
    });
    this.defaultIndexes = DEFAULT_INDEXES.map(handle);
    this.namedIndexes = [...GRAPH_FIRST_INDEXES, ...GRAPH_LAST_INDEXES].map(handle);
    const isNewTerm = (id: TermId): boolean => id >= this.firstNewId;
    this.subjects = new DistinctTracker((id) => this.occursAt(S, id), isNewTerm);
    this.objects = new DistinctTracker((id) => this.occursAt(O, id), isNewTerm);
  }

  protected override makeDictionary(): DictionaryWriter {
    return new DictionaryWriter(this.context.dbs.idToTerm, this.context.dbs.termToId, this.reads);
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
    if (this.nextId >= QUERY_LOCAL_ID_BASE) throw new RangeError('the dictionary is full (2^32 terms)');
    const id = this.nextId++;
    this.dictionaryWriter.insert(key, id);
    this.newTermIds.set(key, id);
    return id;
  }

  /**
   * A new ID for a term key the caller knows the store does not hold, with no look-up: for a bulk
   * load into a store that was empty when this transaction began (see startedEmpty), whose parser
   * hands over each distinct key once. The default graph's key still maps to DEFAULT_GRAPH_ID.
   */
  internNewKey(key: string): TermId {
    this.checkOpen();
    if (key === 'D') return DEFAULT_GRAPH_ID;
    if (this.nextId >= QUERY_LOCAL_ID_BASE) throw new RangeError('the dictionary is full (2^32 terms)');
    const id = this.nextId++;
    this.dictionaryWriter.insert(key, id);
    return id;
  }

  /** Whether the dictionary was empty when this transaction began. */
  startedEmpty(): boolean {
    return this.firstNewId === FIRST_TERM_ID;
  }

  add(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    this.checkOpen();
    checkQuad(s, p, o, g);
    // Before the insert: whether s and o occurred already is what decides the distinct counts.
    const newSubject = this.subjects.added(s);
    const newObject = this.objects.added(o);
    const indexes = g === DEFAULT_GRAPH_ID ? this.defaultIndexes : this.namedIndexes;
    if (!this.put(indexes[0], s, p, o, g, true)) return false;
    for (let i = 1; i < indexes.length; i++) this.put(indexes[i], s, p, o, g, false);
    if (g !== DEFAULT_GRAPH_ID) this.ensureGraph(g);
    this.counts.countQuad(p, g, 1);
    this.counts.distinctSubjects += newSubject;
    this.counts.distinctObjects += newObject;
    return true;
  }

  remove(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    this.checkOpen();
    checkQuad(s, p, o, g);
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
   * `add` on each, but inserts into each index in key order, appending past the index's last key:
   * the fast path for loading. Not part of the StoreWriter contract (yet): check for it.
   */
  addAll(batch: QuadBatch, count = Math.floor(batch.length / 4)): number {
    this.checkOpen();
    const defaults: number[] = [];
    const named: number[] = [];
    for (let i = 0; i < count; i++) {
      const g = batch[i * 4 + 3];
      checkQuad(batch[i * 4], batch[i * 4 + 1], batch[i * 4 + 2], g);
      (g === DEFAULT_GRAPH_ID ? defaults : named).push(i);
    }
    // Before the inserts, as in add: whether s and o occurred already decides the distinct counts.
    for (let i = 0; i < count; i++) {
      this.counts.distinctSubjects += this.subjects.added(batch[i * 4]);
      this.counts.distinctObjects += this.objects.added(batch[i * 4 + 2]);
    }
    return this.insertSorted(pick(batch, defaults), defaults.length, this.defaultIndexes) + this.insertSorted(pick(batch, named), named.length, this.namedIndexes);
  }

  /** Inserts into one family of indexes; the first index decides which quads are new. */
  private insertSorted(batch: QuadBatch, count: number, indexes: IndexHandle[]): number {
    if (count === 0) return 0;
    const [primary, ...others] = indexes;
    const order = sortedQuadOrder(batch, count, primary.order);
    const fresh = new Uint32Array(count * 4);
    let freshCount = 0;
    const flags = this.appendsPastEnd(primary, batch, order[0]) ? APPEND : NO_OVERWRITE;
    let previous = -1;
    for (const quad of order) {
      if (previous >= 0 && compareInOrder(batch, previous * 4, batch, quad * 4, primary.order) === 0) continue;
      previous = quad;
      const at = quad * 4;
      if (!primary.db.putSync(fillKey(primary, batch[at], batch[at + 1], batch[at + 2], batch[at + 3]), EMPTY_VALUE, flags)) continue;
      fresh.set(batch.subarray(at, at + 4), freshCount * 4);
      freshCount++;
    }
    for (const index of others) {
      if (freshCount === 0) break;
      const sorted = sortedQuadOrder(fresh, freshCount, index.order);
      const append = this.appendsPastEnd(index, fresh, sorted[0]) ? APPEND : undefined;
      for (const quad of sorted) {
        const at = quad * 4;
        index.db.putSync(fillKey(index, fresh[at], fresh[at + 1], fresh[at + 2], fresh[at + 3]), EMPTY_VALUE, append);
      }
    }
    for (let i = 0; i < freshCount; i++) {
      const g = fresh[i * 4 + 3];
      if (g !== DEFAULT_GRAPH_ID) this.ensureGraph(g);
      this.counts.countQuad(fresh[i * 4 + 1], g, 1);
    }
    return freshCount;
  }

  /** Whether the batch's smallest key sorts after every key of the index (so MDB_APPEND applies). */
  private appendsPastEnd(index: IndexHandle, batch: QuadBatch, firstQuad: number): boolean {
    const width = index.order.length;
    const cursor = index.db.getKeys({ start: MAX_KEY.slice(0, width), end: [0], reverse: true, limit: 1, inclusiveEnd: true });
    for (const _ of cursor) return compareInOrder(batch, firstQuad * 4, lastKey, 0, index.order) > 0;
    return true;
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
    for (const quad of this.scan(ANY, ANY, ANY, g)) quads.push(quad[0], quad[1], quad[2]);
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
  }

  private checkOpen(): void {
    if (this.finished) throw new Error('this writer belongs to a finished write transaction');
  }
}

function fillKey(index: IndexHandle, s: TermId, p: TermId, o: TermId, g: TermId): Uint32Array {
  const key = index.key;
  const order = index.order;
  for (let i = 0; i < order.length; i++) {
    const position = order[i];
    key[i] = position === 0 ? s : position === 1 ? p : position === 2 ? o : g;
  }
  return key;
}

function pick(batch: QuadBatch, quads: number[]): QuadBatch {
  const picked = new Uint32Array(quads.length * 4);
  quads.forEach((quad, i) => picked.set(batch.subarray(quad * 4, quad * 4 + 4), i * 4));
  return picked;
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
