/**
 * The engine's entry points, used in-process by the W3C runner, the CLI and the worker threads of
 * LocalService. Evaluation runs synchronously over a store snapshot, batch by batch; results are
 * pulled lazily, so a consumer that stops early stops the evaluation.
 */
import type { Quad, SolutionRow } from '../rdf/index.js';
import type { FetchSettings } from '../net/index.js';
import type { EngineFastPaths } from './fast-paths.js';

export interface EngineQueryOptions {
  baseIri?: string;
  /** Protocol dataset: replaces the query's FROM / FROM NAMED when either list is given. */
  defaultGraphUris?: string[];
  namedGraphUris?: string[];
  /**
   * The default graph of a query that names no graphs (no FROM, no protocol dataset) is the union
   * of every graph of the store, default and named, each triple once. Default false.
   */
  unionDefaultGraph?: boolean;
  /** Absolute time (Date.now() scale) after which evaluation throws TimeoutError. */
  deadline?: number;
  /** Polled between batches; true stops evaluation with CancelledError. */
  isCancelled?: () => boolean;
  /**
   * Per-query memory budget in bytes: the parse of the query's text, sorts, groups, hash tables,
   * VALUES, computed terms and SERVICE answers count against it.
   */
  memoryBudget?: number;
  /** Bytes already held for the query when evaluation starts (set by the engine: its parsed text). */
  reservedBytes?: number;
  /**
   * What SERVICE may fetch: targets, bytes (shared by the query's SERVICE calls, which also count
   * against memoryBudget) and time. Default: public internet only, 64 MiB, 60 s.
   */
  fetchSettings?: FetchSettings;
  /** false: SERVICE is refused (ProtocolError), SILENT or not. Default true. */
  allowService?: boolean;
  /**
   * false: evaluate without the optimizer — basic graph patterns joined in the query's textual
   * order, filters applied where the query puts them, no join strategy chosen from estimates.
   * For differential testing; the answers must be the same either way. Default true.
   */
  optimize?: boolean;
  /**
   * false: plan the query afresh even when a plan of its template is kept (plan/prepared-plans.ts).
   * For tests and measurements; the plan, and so the answer, is the same either way. Default true.
   */
  preparedPlans?: boolean;
  /** The optimizer's shortcuts, each on unless set false here (fast-paths.ts). */
  fastPaths?: EngineFastPaths;
}

export interface EngineUpdateOptions {
  baseIri?: string;
  usingGraphUris?: string[];
  usingNamedGraphUris?: string[];
  /**
   * As for queries: a WHERE clause without WITH or USING reads the union of all graphs as its
   * default graph. Templates without GRAPH still write to the store's own default graph.
   */
  unionDefaultGraph?: boolean;
  deadline?: number;
  isCancelled?: () => boolean;
  /**
   * Per-request memory budget in bytes, as for queries: the parse of the update's text, the
   * statements of its LOAD documents and the evaluation of its WHERE clauses count against it.
   */
  memoryBudget?: number;
  /** Bytes already held when a WHERE clause is evaluated (set by the engine: text and documents). */
  reservedBytes?: number;
  /** What LOAD may fetch: targets, bytes (shared by the update's documents) and time; as for queries. */
  fetchSettings?: FetchSettings;
  /** false: LOAD is refused (ProtocolError). Default true. */
  allowLoad?: boolean;
  /**
   * The directory whose files LOAD may read through file: IRIs (real paths, no escape through '..'
   * or symbolic links); without it LOAD reads no local file.
   */
  loadDirectory?: string;
}

export type EngineQueryResult =
  | { kind: 'bindings'; variables: string[]; rows: Iterable<SolutionRow[]> }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'quads'; prefixes: Record<string, string>; quads: Iterable<Quad[]> };
