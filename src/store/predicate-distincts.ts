/**
 * Per predicate, how many distinct subjects and distinct objects its quads have (over all graphs),
 * which the planner divides the predicate's quad count by to estimate how many quads one bound
 * subject (or object) has: the store-wide distinct counts are far off for a predicate whose subjects
 * are a small share of the store's (issue 23).
 *
 * Kept by the writer as a pair of DistinctSketches per predicate (distinct-sketch.ts says why
 * sketches and not exact counts), in memory for the writer's life (a staged load's too) from the
 * predicate's first new quad on, written at each flush in the same transaction as the quads: the
 * sketches into the `predicateSketches` database (predicate ID -> encodeSketchPair), their estimates
 * after the predicate's quad count in the `predicates` database (statistics.ts), where readers find
 * them without touching the sketches.
 *
 * Removals: a sketch cannot forget a term, so after removals it over-counts. The entry also counts
 * the quads removed since the sketches were built from exactly the predicate's quads; once they pass
 * half of the quads left, the writer builds the sketches anew from those (a scan of the predicate's
 * quads, in the transaction that removed them): the scan reads fewer quads than the removals since
 * the last rebuild took away, so it at most doubles their cost, and the figures stay within a factor
 * of about 1.5 of what a rebuild would give.
 *
 * A predicate has the figures exactly when its `predicates` entry carries them. Stores written before
 * have 8-byte entries (the count alone), and a process of that version rewrites a predicate's entry
 * in that form, without updating its sketches: such a predicate is not kept (`null`), its entry stays
 * a count, and the planner falls back to the store-wide figures for it. A predicate with no entry has
 * no quads, so its sketches start empty (whatever an older process may have left in the database).
 */
import type { KvDatabase } from './lmdb-types.js';
import type { TermId } from './quad-store.js';
import type { SnapshotReads } from './snapshot-reads.js';
import { DistinctSketch, decodeSketchPair, encodeSketchPair } from './distinct-sketch.js';

export type SketchDatabase = KvDatabase<number, Uint8Array>;

/** A predicate's sketches as the writer holds them. */
interface PredicateSketches {
  readonly subjects: DistinctSketch;
  readonly objects: DistinctSketch;
  /** Whether a register grew since they were last written. */
  changed: boolean;
}

/** What the writer knows of one predicate's distinct terms, for its `predicates` entry. */
export type PredicateDistinctFigures =
  | {
      subjects: number;
      objects: number;
      /** Quads removed since the sketches were built from exactly the predicate's quads. */
      removed: number;
    }
  | undefined;

/** The subject and object of each quad of a predicate, in every graph: what its sketches are rebuilt from. */
export type PredicateQuads = (p: TermId) => Iterable<readonly [TermId, TermId]>;

export class PredicateDistincts {
  /** Loaded on a predicate's first new quad; null: not kept for it (see the header). */
  private readonly byPredicate = new Map<TermId, PredicateSketches | null>();
  /** The last predicate added to, and its entry: loads add runs of one predicate. */
  private lastPredicate = 0;
  private last: PredicateSketches | null = null;

  constructor(
    private readonly predicates: KvDatabase<number, Uint8Array>,
    private readonly sketches: SketchDatabase | undefined,
    private readonly reads: SnapshotReads,
  ) {}

  /** Counts a quad that is new in the store. */
  added(s: TermId, p: TermId, o: TermId): void {
    let entry = this.last;
    if (p !== this.lastPredicate) {
      entry = this.entryOf(p);
      this.lastPredicate = p;
      this.last = entry;
    }
    if (entry === null) return;
    // Both calls run: either may grow a register.
    const grew = entry.subjects.add(s);
    if (entry.objects.add(o) || grew) entry.changed = true;
  }

  /** The predicates whose sketches changed since they were last written. */
  *changedPredicates(): Iterable<TermId> {
    for (const [p, entry] of this.byPredicate) if (entry?.changed) yield p;
  }

  /**
   * Writes the predicate's sketches if they changed, and answers the figures its entry is to carry
   * (undefined when the predicate is not kept): `stored`, those its entry carries now, serve when
   * this writer did not load the sketches (only removals touched the predicate). `removals`: quads
   * of the predicate this writer removed since its last flush; `count`: the quads it has now.
   */
  settle(p: TermId, stored: PredicateDistinctFigures, removals: number, count: number, quadsOf: PredicateQuads): PredicateDistinctFigures {
    let entry = this.byPredicate.get(p);
    if (entry === null || !this.sketches || (entry === undefined && !stored)) return undefined;
    let removed = (stored?.removed ?? 0) + removals;
    if (removed * 2 > count) {
      entry = this.rebuild(p, quadsOf);
      removed = 0;
    } else if (entry === undefined) return { ...stored!, removed };
    if (entry.changed) {
      this.sketches.putSync(p, encodeSketchPair(entry.subjects, entry.objects));
      entry.changed = false;
    }
    return { subjects: entry.subjects.estimate(), objects: entry.objects.estimate(), removed };
  }

  /** Sketches of the predicate's quads as they are now. */
  private rebuild(p: TermId, quadsOf: PredicateQuads): PredicateSketches {
    const entry: PredicateSketches = { subjects: new DistinctSketch(), objects: new DistinctSketch(), changed: true };
    for (const [s, o] of quadsOf(p)) {
      entry.subjects.add(s);
      entry.objects.add(o);
    }
    this.byPredicate.set(p, entry);
    this.lastPredicate = 0;
    this.last = null;
    return entry;
  }

  /** The predicate has no quads left: its sketches go, and a quad added later starts them anew. */
  forget(p: TermId): void {
    this.byPredicate.delete(p);
    this.sketches?.removeSync(p);
    this.lastPredicate = 0;
    this.last = null;
  }

  private entryOf(p: TermId): PredicateSketches | null {
    const known = this.byPredicate.get(p);
    if (known !== undefined) return known;
    const entry = this.load(p);
    this.byPredicate.set(p, entry);
    return entry;
  }

  private load(p: TermId): PredicateSketches | null {
    if (!this.sketches) return null;
    const counted = this.reads.get(this.predicates, p);
    if (counted === undefined) return { subjects: new DistinctSketch(), objects: new DistinctSketch(), changed: true };
    if (!carriesDistincts(counted)) return null;
    const found = this.reads.get(this.sketches, p);
    const pair = found === undefined ? undefined : decodeSketchPair(found);
    return pair ? { subjects: pair[0], objects: pair[1], changed: false } : null;
  }
}

/**
 * Bytes of a `predicates` entry: the quad count, then (when kept) distinct subjects, distinct objects
 * and the quads removed since the sketches were rebuilt, float64 big-endian each.
 */
const COUNT_BYTES = 8;
const FIGURES_BYTES = 32;

/** Whether a `predicates` entry carries the distinct figures. */
export function carriesDistincts(entry: Uint8Array): boolean {
  // length, not byteLength: lmdb-js hands out its one large read buffer with the length set to the value's.
  return entry.length >= FIGURES_BYTES;
}

/** A `predicates` entry: the count, and the figures when the predicate has them. */
export function encodePredicateEntry(count: number, figures: PredicateDistinctFigures): Buffer {
  const bytes = Buffer.allocUnsafe(figures ? FIGURES_BYTES : COUNT_BYTES);
  bytes.writeDoubleBE(count, 0);
  if (figures) {
    bytes.writeDoubleBE(figures.subjects, 8);
    bytes.writeDoubleBE(figures.objects, 16);
    bytes.writeDoubleBE(figures.removed, 24);
  }
  return bytes;
}

/** The figures of a `predicates` entry, or undefined when it carries none. */
export function decodePredicateFigures(entry: Uint8Array): PredicateDistinctFigures {
  if (!carriesDistincts(entry)) return undefined;
  const view = Buffer.from(entry.buffer, entry.byteOffset, FIGURES_BYTES);
  return { subjects: view.readDoubleBE(8), objects: view.readDoubleBE(16), removed: view.readDoubleBE(24) };
}
