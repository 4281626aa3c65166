/**
 * Statistics persisted next to the data, written by the writer in the same transaction as the quads
 * they count, so every snapshot reads numbers that match its quads, and reading them is a handful of
 * point reads plus two short ranges (graphs, predicates), never a scan of the data.
 *
 * meta: string key -> float64 (big-endian); graphs and predicates: ID -> float64 quad count. A named
 * graph exists exactly when it has an entry in graphs (an empty graph has count 0).
 */
import { DEFAULT_GRAPH_ID, FIRST_TERM_ID, type StoreStatistics, type TermId } from './quad-store.js';
import type { KvDatabase } from './lmdb-types.js';
import type { SnapshotReads } from './snapshot-reads.js';

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

/** 2: the term -> id dictionary is keyed by a 64-bit hash (dupsort). */
export const FORMAT_VERSION = 2;

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
}

export function readStatistics(dbs: StatisticsDatabases, reads: SnapshotReads): StoreStatistics {
  const defaultGraphCount = readMeta(dbs.meta, reads, META.defaultGraphCount);
  const graphCounts = readAllCounts(dbs.graphs, reads);
  graphCounts.set(DEFAULT_GRAPH_ID, defaultGraphCount);
  return {
    quadCount: readMeta(dbs.meta, reads, META.quadCount),
    defaultGraphCount,
    graphCounts,
    predicateCounts: readAllCounts(dbs.predicates, reads),
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
  /**
   * Whether a quad changed since this writer began. Never reset: a staged load writes some index
   * entries of one stage's quads in a later stage, so every flush after the first change draws a
   * new data version.
   */
  private touched = false;

  countQuad(p: TermId, g: TermId, delta: number): void {
    this.touched = true;
    this.quads += delta;
    if (g === DEFAULT_GRAPH_ID) this.defaultGraph += delta;
    else this.graphs.set(g, (this.graphs.get(g) ?? 0) + delta);
    this.predicates.set(p, (this.predicates.get(p) ?? 0) + delta);
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
    for (const [p, delta] of this.predicates) {
      if (delta === 0) continue;
      const count = (readCount(dbs.predicates, reads, p) ?? 0) + delta;
      if (count > 0) dbs.predicates.putSync(p, encodeCount(count));
      else dbs.predicates.removeSync(p);
    }
    this.quads = this.defaultGraph = this.distinctSubjects = this.distinctObjects = 0;
    this.graphs.clear();
    this.predicates.clear();
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
