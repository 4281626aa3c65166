/**
 * The store's contract with the engine: quads as dictionary IDs, read through consistent
 * snapshots, written in all-or-nothing transactions.
 *
 * IDs: 0 means "unbound" (and "any" in a scan pattern); DEFAULT_GRAPH_ID names the default graph;
 * every stored RDF term has an ID >= FIRST_TERM_ID below 2^32. IDs at or above QUERY_LOCAL_ID_BASE
 * are never issued by the store: the engine uses them for terms a query computes (BIND, functions)
 * that the store does not hold. Equal IDs mean the same term (RDF term equality) and vice versa,
 * as long as the engine looks a term up in the store before it gives it a query-local ID.
 */
import type { Term } from '../rdf/index.js';

export type TermId = number;

export const UNBOUND = 0;
/** In a scan pattern: any value. For the graph position, "any named graph" (never the default). */
export const ANY = 0;
export const DEFAULT_GRAPH_ID = 1;
/**
 * In the graph position of a read (scan, count, has): the union of every graph, the default graph
 * and all named graphs, each triple once. The default graph of a store served with a union default
 * graph. Never stored, never a term: no write takes it.
 */
export const UNION_GRAPH = -2;
export const FIRST_TERM_ID = 2;
export const QUERY_LOCAL_ID_BASE = 2 ** 32;

/** A quad of IDs, [subject, predicate, object, graph]. Scans reuse one array: copy what you keep. */
export type QuadIds = Uint32Array | [number, number, number, number];

export interface StoreStatistics {
  /** Quads in the whole store, default graph included. */
  quadCount: number;
  /** Quads in the default graph. */
  defaultGraphCount: number;
  /** Quads per graph ID (the default graph under DEFAULT_GRAPH_ID). */
  graphCounts: ReadonlyMap<TermId, number>;
  /** Quads per predicate ID, over all graphs. */
  predicateCounts: ReadonlyMap<TermId, number>;
  /** Distinct subjects and objects over the whole store (estimates are acceptable). */
  distinctSubjects: number;
  distinctObjects: number;
  /**
   * Per predicate ID, distinct subjects (objects) of its quads over all graphs: estimates, at least 1
   * and at most the predicate's count. A predicate missing from a map (or a store without the maps)
   * has no such figure; use the store-wide ones then.
   */
  predicateSubjects?: ReadonlyMap<TermId, number>;
  predicateObjects?: ReadonlyMap<TermId, number>;
  /** Number of entries in the dictionary: every term interned, and the prefixes they share (term-prefixes.ts). */
  termCount: number;
}

/** One consistent snapshot of the store. Release it when done. */
export interface StoreReader {
  /** The store ID of a term, or undefined when the store has never seen it. */
  idOf(term: Term): TermId | undefined;
  /** The term behind a store ID. Throws for an ID the store did not issue. */
  termOf(id: TermId): Term;
  /**
   * Quads matching the pattern (ANY = 0 is a wildcard) in graph g: DEFAULT_GRAPH_ID for the default
   * graph, a term ID for one named graph, ANY for every named graph (not the default graph),
   * UNION_GRAPH for the union of all graphs (each triple once, its graph given as DEFAULT_GRAPH_ID).
   * One range scan of a permutation index (two, merged, for UNION_GRAPH). The yielded array is
   * reused between steps.
   */
  scan(s: TermId, p: TermId, o: TermId, g: TermId): Iterable<QuadIds>;
  /**
   * Number of quads matching, exact; cheap when a prefix of an index is bound. For UNION_GRAPH an
   * upper bound (a triple in several graphs counts once per graph), for estimates.
   */
  count(s: TermId, p: TermId, o: TermId, g: TermId): number;
  /** Whether the quad is present. */
  has(s: TermId, p: TermId, o: TermId, g: TermId): boolean;
  /** Named graphs that exist (created, or holding quads). */
  namedGraphs(): TermId[];
  hasNamedGraph(g: TermId): boolean;
  /** Statistics as of this snapshot, kept by the writer: reading them costs no scan. */
  statistics(): StoreStatistics;
  /**
   * An identifier of the snapshot's quads: two snapshots with the same version (of any store) hold
   * the same quads, so caches derived from quads may be shared between them. Undefined when the
   * reader cannot vouch for that (inside a write transaction, or an implementation without versions).
   */
  contentVersion?(): number | undefined;
  /** Ends the snapshot. */
  release(): void;
}

/**
 * The writer inside one transaction; it reads its own writes. Do not add or remove while a scan of
 * the same writer is being iterated: collect the matches first, then change.
 */
export interface StoreWriter extends StoreReader {
  /** The ID of a term, creating a dictionary entry when the store has none. */
  intern(term: Term): TermId;
  /** Adds a quad; true when it was not there. Adding to a named graph makes the graph exist. */
  add(s: TermId, p: TermId, o: TermId, g: TermId): boolean;
  /** Removes a quad; true when it was there. The graph keeps existing. */
  remove(s: TermId, p: TermId, o: TermId, g: TermId): boolean;
  /** Makes an empty named graph exist; false when it already existed. */
  createGraph(g: TermId): boolean;
  /** Removes every quad of a graph (DEFAULT_GRAPH_ID allowed); the graph keeps existing. */
  clearGraph(g: TermId): number;
  /** Removes a named graph and its quads; false when it did not exist. */
  dropGraph(g: TermId): boolean;
  /**
   * Optional bulk path: adds quads given flat as (s, p, o, g) x count, sorted and written index by
   * index; returns how many were new. Same effect as `add` on each.
   */
  addAll?(batch: Uint32Array, count?: number): number;
}

export interface QuadStore {
  /** A new read snapshot; cheap, many may be open at once, in any thread. */
  reader(): StoreReader;
  /**
   * Runs fn in one write transaction. When fn returns, every change becomes visible at once
   * (and is durable); when it throws, none does and the error propagates.
   */
  write<T>(fn: (writer: StoreWriter) => T, options?: WriteOptions): T;
  /**
   * Optional: one write transaction that stays open across the awaits of fn, for loads that stream
   * a whole file into one all-or-nothing transaction. Nothing else may use this store handle until
   * it settles; other threads and processes keep reading the last commit.
   */
  writeAsync?<T>(fn: (writer: StoreWriter) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** The directory holding the store (a temporary one for a memory store). */
  readonly path: string;
}

/** What a write transaction may be given besides its callback. */
export interface WriteOptions {
  /**
   * Called as the writer goes (every so many changes, store/write-checkpoints.ts) and once more just
   * before the commit. What it throws aborts the transaction, however far it got: nothing of it
   * stays, and the error propagates. How a caller stops a long write, e.g. at a time limit.
   */
  checkpoint?: () => void;
}

export interface StoreOptions {
  /** Directory of the store; created when missing. */
  path?: string;
  /** A throw-away store in a temporary directory, removed on close. */
  memory?: boolean;
  /** Skip fsync on commit: faster, loses the last transactions on a machine crash. Off by default. */
  noSync?: boolean;
  /** Open an existing store for reading only (worker threads do). */
  readOnly?: boolean;
}
