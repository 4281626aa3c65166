/**
 * Everything one evaluation needs beside the plan: the store snapshot, the dataset, the
 * dictionary of terms the query computes, limits, and the clock.
 */
import type { Term } from '../rdf/index.js';
import { termKey } from '../rdf/index.js';
import { QUERY_LOCAL_ID_BASE, DEFAULT_GRAPH_ID, UNION_GRAPH, type StoreReader, type StoreStatistics, type TermId } from '../store/index.js';
import { CancelledError, ResourceLimitError, TimeoutError } from '../errors.js';
import type { FunctionContext } from './functions/index.js';
import { BatchPool } from './batch.js';
import { fastPathOn, type EngineFastPaths, type FastPathName } from './fast-paths.js';

/** The RDF dataset a query runs against, as store IDs. */
export interface Dataset {
  /**
   * Graphs merged into the default graph: DEFAULT_GRAPH_ID for the store's own default graph,
   * UNION_GRAPH alone for the union of all graphs.
   */
  defaultGraphs: TermId[];
  /** The named graphs; null means every named graph of the store. */
  namedGraphs: TermId[] | null;
}

export const STORE_DATASET: Dataset = { defaultGraphs: [DEFAULT_GRAPH_ID], namedGraphs: null };
/** The store's dataset with the union of all its graphs as the default graph (a union default graph). */
export const UNION_DATASET: Dataset = { defaultGraphs: [UNION_GRAPH], namedGraphs: null };

/** The dataset of a request that names no graphs. */
export function storeDataset(unionDefaultGraph: boolean | undefined): Dataset {
  return unionDefaultGraph ? UNION_DATASET : STORE_DATASET;
}

export interface ContextLimits {
  deadline?: number;
  isCancelled?: () => boolean;
  memoryBudget?: number;
  /** Memory the request holds before evaluation starts (the algebra of its text), counted against memoryBudget. */
  reservedBytes?: number;
  /** false: no optimizer, so none of its shortcuts (fast-paths.ts). */
  optimize?: boolean;
  fastPaths?: EngineFastPaths;
}

/** A query-local term's overhead beyond its key: the term object, its map entry and array slot. */
const LOCAL_TERM_BYTES = 160;

let evaluations = 0;

export class ExecContext {
  /** Tells evaluations apart (caches in compiled expressions are kept for one evaluation). */
  readonly serial = ++evaluations;
  private readonly localIds = new Map<string, TermId>();
  private readonly localTerms: Term[] = [];
  private readonly namedSet: Set<TermId> | null;
  private memoryUsed: number;
  /** Materialized results of isolated sub-plans, per operator and parameter values. */
  readonly memo = new Map<unknown, Map<string, unknown>>();
  readonly functions: FunctionContext;
  /** Slots per solution row; set by the planner before evaluation starts. */
  width = 0;
  /** The variable (or hidden purpose) of each slot, for explain. */
  slotNames: readonly string[] = [];
  /** Where the optimizer's statistics come from (the reader's own, unless the caller shares them). */
  statisticsSource: () => StoreStatistics = () => this.reader.statistics();
  private statisticsRead?: StoreStatistics;
  private pool?: BatchPool;

  /** Whether a shortcut of the optimizer may be taken in this evaluation (fast-paths.ts). */
  fastPath(name: FastPathName): boolean {
    return fastPathOn(this.limits, name);
  }

  constructor(
    readonly reader: StoreReader,
    readonly dataset: Dataset,
    private readonly limits: ContextLimits = {},
    baseIri?: string,
  ) {
    this.memoryUsed = limits.reservedBytes ?? 0;
    this.namedSet = dataset.namedGraphs ? new Set(dataset.namedGraphs) : null;
    this.functions = { now: new Date(), baseIri, bnodes: new Map() };
  }

  /** The store statistics for estimates: read at most once per query. */
  statistics(): StoreStatistics {
    this.statisticsRead ??= this.statisticsSource();
    return this.statisticsRead;
  }

  /** Spare batches of this evaluation (batch.ts), for operators whose batches come back. */
  batchPool(): BatchPool {
    if (this.pool === undefined || this.pool.width !== this.width) this.pool = new BatchPool(this.width);
    return this.pool;
  }

  /** Called between batches: stops evaluation past the deadline or on cancellation. */
  checkpoint(): void {
    checkLimits(this.limits);
  }

  /** Gives back memory reserved for something the evaluation no longer holds (a finished walk, dropped candidates). */
  release(bytes: number): void {
    this.memoryUsed = Math.max(0, this.memoryUsed - bytes);
  }

  /** What the memory budget has left (Infinity without a budget). */
  get memoryLeft(): number {
    const budget = this.limits.memoryBudget;
    return budget === undefined ? Infinity : Math.max(0, budget - this.memoryUsed);
  }

  /** Accounts for memory a sort, group or hash table is about to hold. */
  reserve(bytes: number): void {
    this.memoryUsed += bytes;
    const budget = this.limits.memoryBudget;
    if (budget !== undefined && this.memoryUsed > budget) {
      throw new ResourceLimitError(
        `the query needs more than its memory budget of ${Math.round(budget / 2 ** 20)} MiB (sorting, grouping or joining too many solutions)`,
      );
    }
  }

  termOf(id: TermId): Term {
    return id >= QUERY_LOCAL_ID_BASE ? this.localTerms[id - QUERY_LOCAL_ID_BASE] : this.reader.termOf(id);
  }

  /** The ID of any term: the store's when it has one, else a query-local one. */
  idOf(term: Term): TermId {
    const stored = this.reader.idOf(term);
    if (stored !== undefined) return stored;
    const key = termKey(term);
    let id = this.localIds.get(key);
    if (id === undefined) {
      // Computed terms (BIND, CONCAT…) live as long as the query: one per row of a large result.
      this.reserve(LOCAL_TERM_BYTES + 2 * key.length);
      id = QUERY_LOCAL_ID_BASE + this.localTerms.length;
      this.localTerms.push(term);
      this.localIds.set(key, id);
    }
    return id;
  }

  /** The store ID of a term, or undefined when the store does not hold it. */
  storeIdOf(term: Term): TermId | undefined {
    return this.reader.idOf(term);
  }

  isNamedGraph(g: TermId): boolean {
    if (g >= QUERY_LOCAL_ID_BASE || g === DEFAULT_GRAPH_ID) return false;
    return this.namedSet ? this.namedSet.has(g) : this.reader.hasNamedGraph(g);
  }

  /** The named graphs of the dataset that exist. */
  namedGraphIds(): TermId[] {
    if (this.dataset.namedGraphs) return this.dataset.namedGraphs;
    return this.reader.namedGraphs();
  }

  get allNamedGraphs(): boolean {
    return this.namedSet === null;
  }
}

/** Throws TimeoutError past the deadline and CancelledError once cancelled. */
export function checkLimits(limits: ContextLimits): void {
  if (limits.deadline !== undefined && Date.now() > limits.deadline) throw new TimeoutError();
  if (limits.isCancelled?.()) throw new CancelledError();
}

/** Items (rows, quads) a loop outside the operators' batches handles between two checkLimits. */
const ITEMS_PER_LIMITS_CHECK = 1024;

/** checkLimits at every ITEMS_PER_LIMITS_CHECK-th item of a loop: a long loop stops in time, a short one pays nothing. */
export function checkLimitsEvery(item: number, limits: ContextLimits): void {
  if (item % ITEMS_PER_LIMITS_CHECK === 0) checkLimits(limits);
}

export function isLocalId(id: TermId): boolean {
  return id >= QUERY_LOCAL_ID_BASE;
}
