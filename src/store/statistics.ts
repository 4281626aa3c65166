/**
 * Statistics persisted next to the data, written by the writer in the same transaction as the quads
 * they count, so every snapshot reads numbers that match its quads, and reading them is a handful of
 * point reads plus two short ranges (graphs, predicates), never a scan of the data.
 *
 * meta: string key -> float64 (big-endian); graphs: ID -> float64 quad count; predicates: ID ->
 * float64 quad count, followed, for a predicate whose distinct subjects and objects are kept, by those
 * two estimates and the quads removed since its sketches were rebuilt (predicate-distincts.ts; an
 * entry of the count alone is what older versions wrote, and they read the count of either). predicateSketches: ID -> the sketches behind the estimates, read by
 * the writer only. A named graph exists exactly when it has an entry in graphs (an empty graph has
 * count 0).
 */
import { DEFAULT_GRAPH_ID, FIRST_TERM_ID, type StoreStatistics, type TermId } from './quad-store.js';
import type { KvDatabase } from './lmdb-types.js';
import type { SnapshotReads } from './snapshot-reads.js';
import {
  PredicateDistincts,
  decodePredicateFigures,
  encodePredicateEntry,
  type PredicateDistinctFigures,
  type PredicateQuads,
  type SketchDatabase,
} from './predicate-distincts.js';

export type MetaDatabase = KvDatabase<string, Uint8Array>;
export type CountDatabase = KvDatabase<number, Uint8Array>;

export const META = {
  formatVersion: 'formatVersion',
  nextId: 'nextId',
  quadCount: 'quadCount',
  defaultGraphCount: 'defaultGraphCount',
  distinctSubjects: 'distinctSubjects',
  distinctObjects: 'distinctObjects',
  /**
   * A random number, drawn anew by every transaction that has changed quads: two snapshots with the
   * same value hold the same quads, so read-side caches derived from quads (numeric-objects.ts in
   * the engine) may be shared between snapshots under it. Absent in a store no such write has touched.
   */
  dataVersion: 'dataVersion',
} as const;
export type MetaKey = (typeof META)[keyof typeof META];

/**
 * 2: the term -> id dictionary is keyed by a 64-bit hash (dupsort). Per-predicate distinct subjects
 * and objects came without a new version: a store without them reads and writes as before, and the
 * planner falls back to the store-wide figures for each predicate that lacks them.
 * 3: id -> term values may be prefixed terms, prefix entries or coded literals (term-prefixes.ts,
 * term-text-code.ts). A format 2 store is one whose values are all the key's UTF-8, which format 3
 * reads as they are: it is marked 3 when opened for writing, so that older code refuses it rather
 * than misreads the values written since.
 */
export const FORMAT_VERSION = 3;
/** Formats this code reads: the ones before the current that it upgrades by marking alone. */
export const READABLE_FORMATS: readonly number[] = [2, FORMAT_VERSION];

export function encodeCount(n: number): Buffer {
  const bytes = Buffer.allocUnsafe(8);
  bytes.writeDoubleBE(n, 0);
  return bytes;
}

export function decodeCount(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, 8).readDoubleBE(0);
}

export function readMeta(meta: MetaDatabase, reads: SnapshotReads, key: MetaKey): number {
  const found = reads.get(meta, key);
  if (found === undefined) return key === META.nextId ? FIRST_TERM_ID : 0;
  return decodeCount(found);
}

/** The snapshot's META.dataVersion, or undefined when no quad-changing write has recorded one. */
export function readDataVersion(meta: MetaDatabase, reads: SnapshotReads): number | undefined {
  const found = reads.get(meta, META.dataVersion);
  return found === undefined ? undefined : decodeCount(found);
}

export function readCount(db: CountDatabase, reads: SnapshotReads, id: TermId): number | undefined {
  const found = reads.get(db, id);
  return found === undefined ? undefined : decodeCount(found);
}

export function readAllCounts(db: CountDatabase, reads: SnapshotReads): Map<TermId, number> {
  const counts = new Map<TermId, number>();
  for (const { key, value } of db.getRange({ ...reads.options })) counts.set(key, decodeCount(value));
  return counts;
}

export interface StatisticsDatabases {
  readonly meta: MetaDatabase;
  readonly graphs: CountDatabase;
  readonly predicates: CountDatabase;
  /**
   * Opened by writable handles only: readers never need it, and a read-only handle cannot open a
   * database that a store written before it does not have.
   */
  readonly predicateSketches?: SketchDatabase;
}

interface PredicateStatistics {
  counts: Map<TermId, number>;
  subjects: Map<TermId, number>;
  objects: Map<TermId, number>;
}

/**
 * Every predicate's quad count, and its distinct subjects and objects where it has them, capped at
 * its count (a sketch over-counts after removals, and by its error).
 */
function readPredicateStatistics(db: CountDatabase, reads: SnapshotReads): PredicateStatistics {
  const statistics: PredicateStatistics = { counts: new Map(), subjects: new Map(), objects: new Map() };
  for (const { key, value } of db.getRange({ ...reads.options })) {
    const count = decodeCount(value);
    statistics.counts.set(key, count);
    const figures = decodePredicateFigures(value);
    if (!figures) continue;
    statistics.subjects.set(key, Math.min(count, Math.max(1, figures.subjects)));
    statistics.objects.set(key, Math.min(count, Math.max(1, figures.objects)));
  }
  return statistics;
}

export function readStatistics(dbs: StatisticsDatabases, reads: SnapshotReads): StoreStatistics {
  const defaultGraphCount = readMeta(dbs.meta, reads, META.defaultGraphCount);
  const graphCounts = readAllCounts(dbs.graphs, reads);
  graphCounts.set(DEFAULT_GRAPH_ID, defaultGraphCount);
  const predicates = readPredicateStatistics(dbs.predicates, reads);
  return {
    quadCount: readMeta(dbs.meta, reads, META.quadCount),
    defaultGraphCount,
    graphCounts,
    predicateCounts: predicates.counts,
    predicateSubjects: predicates.subjects,
    predicateObjects: predicates.objects,
    distinctSubjects: readMeta(dbs.meta, reads, META.distinctSubjects),
    distinctObjects: readMeta(dbs.meta, reads, META.distinctObjects),
    termCount: readMeta(dbs.meta, reads, META.nextId) - FIRST_TERM_ID,
  };
}

/**
 * Count changes of one write transaction, kept in memory so a quad add costs no statistics I/O, and
 * written out (flush) before commit or when the writer reads its own statistics.
 */
export class PendingCounts {
  quads = 0;
  defaultGraph = 0;
  distinctSubjects = 0;
  distinctObjects = 0;
  readonly graphs = new Map<TermId, number>();
  readonly predicates = new Map<TermId, number>();
  /** Quads removed per predicate (a remove and a re-add leave the count, not this). */
  private readonly removals = new Map<TermId, number>();
  /** Each predicate's distinct subjects and objects (written at flush too). */
  private readonly distincts: PredicateDistincts;
  /**
   * Whether a quad changed since this writer began. Never reset: a staged load writes some index
   * entries of one stage's quads in a later stage, so every flush after the first change draws a
   * new data version.
   */
  private touched = false;

  constructor(
    dbs: StatisticsDatabases,
    reads: SnapshotReads,
    /** A predicate's quads, to rebuild its sketches from after many removals. */
    private readonly quadsOf: PredicateQuads,
  ) {
    this.distincts = new PredicateDistincts(dbs.predicates, dbs.predicateSketches, reads);
  }

  /** Counts a quad new in the store. */
  countNewQuad(s: TermId, p: TermId, o: TermId, g: TermId): void {
    this.countQuad(p, g, 1);
    this.distincts.added(s, p, o);
  }

  countQuad(p: TermId, g: TermId, delta: number): void {
    this.touched = true;
    this.quads += delta;
    if (g === DEFAULT_GRAPH_ID) this.defaultGraph += delta;
    else this.graphs.set(g, (this.graphs.get(g) ?? 0) + delta);
    this.predicates.set(p, (this.predicates.get(p) ?? 0) + delta);
    if (delta < 0) this.removals.set(p, (this.removals.get(p) ?? 0) - delta);
  }

  /** Writes the changes (and the next free ID) and starts over from zero. */
  flush(dbs: StatisticsDatabases, reads: SnapshotReads, nextId: TermId): void {
    addToMeta(dbs.meta, reads, META.quadCount, this.quads);
    addToMeta(dbs.meta, reads, META.defaultGraphCount, this.defaultGraph);
    addToMeta(dbs.meta, reads, META.distinctSubjects, this.distinctSubjects);
    addToMeta(dbs.meta, reads, META.distinctObjects, this.distinctObjects);
    if (readMeta(dbs.meta, reads, META.nextId) !== nextId) dbs.meta.putSync(META.nextId, encodeCount(nextId));
    if (this.touched) dbs.meta.putSync(META.dataVersion, encodeCount(freshDataVersion()));
    for (const [g, delta] of this.graphs) {
      const count = readCount(dbs.graphs, reads, g);
      // A graph dropped in this transaction keeps no entry.
      if (count !== undefined && delta !== 0) dbs.graphs.putSync(g, encodeCount(count + delta));
    }
    for (const p of this.changedPredicates()) this.flushPredicate(dbs, reads, p, this.predicates.get(p) ?? 0);
    this.quads = this.defaultGraph = this.distinctSubjects = this.distinctObjects = 0;
    this.graphs.clear();
    this.predicates.clear();
    this.removals.clear();
  }

  /** Predicates whose count or sketches changed. */
  private changedPredicates(): Set<TermId> {
    const changed = new Set<TermId>(this.distincts.changedPredicates());
    for (const [p, delta] of this.predicates) if (delta !== 0) changed.add(p);
    // Removed and re-added: the count is as it was, the sketches may be due a rebuild.
    for (const p of this.removals.keys()) changed.add(p);
    return changed;
  }

  private flushPredicate(dbs: StatisticsDatabases, reads: SnapshotReads, p: TermId, delta: number): void {
    const entry = reads.get(dbs.predicates, p);
    const count = (entry === undefined ? 0 : decodeCount(entry)) + delta;
    const stored: PredicateDistinctFigures = entry === undefined ? undefined : decodePredicateFigures(entry);
    if (count <= 0) {
      dbs.predicates.removeSync(p);
      this.distincts.forget(p);
      return;
    }
    const figures = this.distincts.settle(p, stored, this.removals.get(p) ?? 0, count, this.quadsOf);
    dbs.predicates.putSync(p, encodePredicateEntry(count, figures));
  }

  /** Forgets pending changes of a graph that is being dropped. */
  forgetGraph(g: TermId): void {
    this.graphs.delete(g);
  }
}

/** 52 random bits: a collision between two versions of one store is not a practical concern. */
function freshDataVersion(): number {
  return Math.floor(Math.random() * 2 ** 26) * 2 ** 26 + Math.floor(Math.random() * 2 ** 26);
}

function addToMeta(meta: MetaDatabase, reads: SnapshotReads, key: MetaKey, delta: number): void {
  if (delta !== 0) meta.putSync(key, encodeCount(readMeta(meta, reads, key) + delta));
}
