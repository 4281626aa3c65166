/**
 * SparqlService over the embedded store. Queries run in a pool of worker threads, each with its
 * own read-only handle on the store (LMDB lets many threads read one environment); updates run
 * one at a time on a writer thread that holds the only writable handle. The main thread keeps the
 * event loop free for HTTP: it routes messages, rebuilds terms and reads statistics, and (only with
 * `inlineCheapQueries`) evaluates queries whose shape has proved cheap, within a small time budget
 * (inline-query.ts): for those, handing the query to a worker and the answer back costs more than
 * the query.
 */
import type { UpdateSummary } from '../engine/index.js';
import { readdir, stat } from 'node:fs/promises';
import type { ResourceLimits } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../store/index.js';
import type { QuadStore } from '../store/index.js';
import { CancelledError, OverloadedError, ResourceLimitError } from '../errors.js';
import { QueryPool, type QueryLoad } from './query-pool.js';
import type { QueryJobSpec } from './query-job.js';
import { QueryCostMemory } from './query-cost-memory.js';
import { runInline } from './inline-query.js';
import { InlineGate, type InlineGateOptions } from './inline-gate.js';
import { SaturationGate, type SaturationGateOptions } from './saturation-gate.js';
import { effectiveTimeout } from './time-limit.js';
import { UpdateWriter } from './update-writer.js';
import type { RdfFile } from './worker-messages.js';
import { MemoryAdmission } from './memory-admission.js';
import { residentBytes } from './resident-memory.js';
import { releaseGarbageNow } from './heap-release.js';
import { queryReservation, workerHeapLimitMb } from './worker-heap.js';
import { namedNode, type Quad } from '../rdf/index.js';
import { keyedPattern, matchingQuads, type KeyedPattern, type QuadPattern } from '../store/index.js';
import { BoundedMap } from '../bounded-map.js';
import type { FetchSettings } from '../net/index.js';
import type {
  GraphDocument,
  GraphName,
  GraphWriteResult,
  RequestLimits,
  QueryRequest,
  QueryResult,
  ServiceDescriptionData,
  ServiceHealth,
  ServiceMetrics,
  SparqlService,
  UpdateRequest,
} from './sparql-service.js';

export interface LocalServiceOptions {
  /** Store directory (created when missing). Default `./data`, unless `memory`. */
  store?: string;
  /** A throw-away store in a temporary directory, removed by close(). */
  memory?: boolean;
  /** Query worker threads, i.e. queries evaluated at once. Default: os.availableParallelism(). */
  workers?: number;
  /** Queries (and, separately, updates) that may wait for their turn; beyond: OverloadedError. */
  maxQueue?: number;
  /** Time limit of a query, from arrival to last row; a request's timeoutMs may only lower it. */
  queryTimeoutMs?: number;
  /**
   * Time limit of an update or Graph Store write, from arrival (waiting for the writer counts) to
   * commit; a request's timeoutMs may only lower it. Past it the update is stopped, while it writes
   * too, and rolled back (TimeoutError); a commit that has begun completes.
   */
  updateTimeoutMs?: number;
  /** Skip fsync on commit (see StoreOptions.noSync). */
  noSync?: boolean;
  /**
   * The default graph of queries (and of updates' WHERE clauses) that name no graphs is the union
   * of all graphs of the store (`quiver serve --union-default-graph`). Writes without GRAPH still
   * go to the store's own default graph, and the Graph Store Protocol's `default` is that graph
   * too. Default false.
   */
  unionDefaultGraph?: boolean;
  /** Whether LOAD may fetch documents. Default true. */
  allowLoad?: boolean;
  /** The directory whose files LOAD may read (file: IRIs); without it LOAD reads no local file. */
  loadDir?: string;
  /** Whether SERVICE may fetch from other endpoints. Default true. */
  allowService?: boolean;
  /** What LOAD and SERVICE may fetch: targets, bytes, time (net/outbound-http.ts; defaults there). */
  fetchSettings?: FetchSettings;
  /**
   * Per-request memory budget in bytes (EngineQueryOptions.memoryBudget: parsed text, sorts, groups,
   * hash tables, SERVICE answers, LOAD documents); no budget when unset, `quiver serve` sets one by default.
   */
  queryMemoryBudget?: number;
  /**
   * Heap limit of each query worker, in MiB: a runaway query kills its worker, not the server.
   * Default: from queryMemoryBudget (worker-heap.ts); none without a budget.
   */
  workerMemoryMb?: number;
  /**
   * Bytes the process should stay under (`quiver serve --max-memory`): queries and updates are
   * admitted while what they may add fits (memory-admission.ts); the others wait in their queues.
   */
  maxMemory?: number;
  /** How long a cancelled or timed-out query may take to stop before its worker is replaced. */
  cancelGraceMs?: number;
  /** How long close() waits for running work before it cancels it. */
  closeTimeoutMs?: number;
  /**
   * Evaluate queries whose shape has proved cheap on the main thread (inline-query.ts), which saves
   * two thread hand-offs; `when` in an object says under which load (see InlineQueryOptions).
   * Default true: `when: 'auto'` (bench/RESULTS-LOG.md, issue 5).
   */
  inlineCheapQueries?: boolean | InlineQueryOptions;
}

/** When a cheap query may take the main thread (`quiver serve --inline-queries`). */
export type InlineWhen =
  /** Unless the main thread is saturated while a core idles (saturation-gate.ts). */
  | 'auto'
  /** Only while no other query is in flight: a lone client's queries (inline-gate.ts). */
  | 'idle'
  /** Whenever it is cheap. */
  | 'always';

/** Tuning of main-thread evaluation: when, the gates' settings, and what counts as cheap. */
export interface InlineQueryOptions extends InlineGateOptions, SaturationGateOptions {
  when?: InlineWhen;
  /** Queries whose shape's recent evaluations took less than this (worker wall-clock, ms) are cheap. */
  cheapQueryMs?: number;
}

/** How `quiver serve --inline-queries` names the settings of inlineCheapQueries. */
export const INLINE_QUERIES_MODES = ['auto', 'idle', 'always', 'off'] as const;
export type InlineQueriesMode = (typeof INLINE_QUERIES_MODES)[number];

export function inlineQueriesSetting(mode: InlineQueriesMode): boolean | InlineQueryOptions {
  return mode === 'off' ? false : { when: mode };
}

/** Whether a cheap query may run on the main thread, given the pool's load and size. */
type MainThreadGate = (load: QueryLoad, workers: number) => boolean;

function mainThreadGate(options: InlineQueryOptions): MainThreadGate {
  switch (options.when ?? 'auto') {
    case 'always':
      return () => true;
    case 'idle': {
      const gate = new InlineGate(options);
      return (load) => gate.admits(load);
    }
    case 'auto': {
      const gate = new SaturationGate(options);
      return (load, workers) => gate.admits(load, workers);
    }
  }
}

export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;
export const DEFAULT_UPDATE_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_QUEUE = 64;
/** Batches a worker may send ahead of its consumer: enough to hide latency, little memory. */
const BATCH_WINDOW = 4;
/** The most a query may hold the main thread before it is dropped there and run on a worker. */
const INLINE_BUDGET_MS = 25;

export class LocalService implements SparqlService {
  private closing?: Promise<void>;
  private readonly costs: QueryCostMemory;
  private readonly inlineGate?: MainThreadGate;
  /** Shapes already evaluated on the main thread (their templates are parsed and cached here). */
  private readonly shapesRunInline = new BoundedMap<string, true>(1024);
  /** Queries answered on the main thread so far (see queryInline). */
  inlineQueries = 0;
  /** Updates and graph store writes waiting for room in the memory budget, before the writer sees them. */
  private writesWaitingForMemory = 0;

  private constructor(
    private readonly pool: QueryPool,
    private readonly writer: UpdateWriter,
    /** Read-only handle on the main thread, for statistics and cheap queries. */
    private readonly statisticsStore: QuadStore,
    private readonly settings: Required<Pick<LocalServiceOptions, 'queryTimeoutMs' | 'updateTimeoutMs'>> &
      LocalServiceOptions & { admission?: MemoryAdmission },
  ) {
    const setting = settings.inlineCheapQueries ?? true;
    const inline = setting === true ? {} : setting;
    this.costs = new QueryCostMemory(inline ? inline.cheapQueryMs : undefined);
    if (inline) this.inlineGate = mainThreadGate(inline);
  }

  static async create(options: LocalServiceOptions = {}): Promise<LocalService> {
    const settings = {
      ...options,
      queryTimeoutMs: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
      updateTimeoutMs: options.updateTimeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS,
    };
    const maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    // The writer opens (and for a memory store, creates) the store first; readers follow its path.
    const writer = await UpdateWriter.start({
      path: options.memory ? undefined : (options.store ?? './data'),
      memory: options.memory,
      noSync: options.noSync,
      maxQueue,
    });
    let pool: QueryPool | undefined;
    const admission = options.maxMemory !== undefined ? new MemoryAdmission(options.maxMemory, residentBytes, releaseGarbageNow) : undefined;
    const perQuery = queryReservation(options.queryMemoryBudget);
    try {
      pool = await QueryPool.start({
        storePath: writer.storePath,
        size: Math.max(1, options.workers ?? availableParallelism()),
        maxQueue,
        cancelGraceMs: options.cancelGraceMs ?? 2000,
        window: BATCH_WINDOW,
        resourceLimits: workerResourceLimits(options),
        joinTableCacheBytes: joinTableCacheBytes(options.queryMemoryBudget),
        releaseGrowthBytes: releaseGrowthBytes(options.queryMemoryBudget),
        memory: admission && { admission, perQuery },
      });
      if (admission) checkRoomForOneQuery(admission, perQuery);
      const statisticsStore = openStore({ path: writer.storePath, readOnly: true });
      return new LocalService(pool, writer, statisticsStore, { ...settings, admission });
    } catch (error) {
      await pool?.close(Date.now());
      await writer.close(Date.now(), 0);
      throw error;
    }
  }

  /**
   * Resolves once the first batch of rows is ready (or the result is complete, or is a boolean):
   * syntax errors, time-outs and evaluation errors before that point reject here. Later errors are
   * thrown by the rows' (or quads') iterator, after the batches that came before them.
   */
  query(request: QueryRequest): Promise<QueryResult> {
    return this.queryOver(request, this.settings.unionDefaultGraph);
  }

  /** A query whose default graph is the store's own, or (unionDefaultGraph) the union of all graphs. */
  private queryOver(request: QueryRequest, unionDefaultGraph: boolean | undefined): Promise<QueryResult> {
    if (this.closing) return Promise.reject(shuttingDown());
    const spec: QueryJobSpec = {
      query: request.query,
      baseIri: request.baseIri,
      defaultGraphUris: request.defaultGraphUris,
      namedGraphUris: request.namedGraphUris,
      unionDefaultGraph,
      deadline: Date.now() + effectiveTimeout(this.settings.queryTimeoutMs, request.timeoutMs),
      memoryBudget: smallerBudget(this.settings.queryMemoryBudget, request.memoryBudget),
      fetchSettings: this.settings.fetchSettings,
      allowService: this.settings.allowService,
      explain: request.explain,
      signal: request.signal,
      documentFormats: request.documentFormats,
    };
    if (request.explain || !this.inlineGate) return this.pool.run(spec);
    const shape = QueryCostMemory.shapeOf(request.query);
    // The gate sees every query, cheap or not: each one's arrival counts.
    const mainThreadFree = this.inlineGate(this.pool.load, this.pool.size);
    if (shape === undefined) return this.pool.run(spec);
    if (mainThreadFree && this.costs.isCheap(shape)) return this.queryInline(shape, spec);
    return this.pool.run({ ...spec, onWorkerTime: (ms) => this.costs.record(shape, ms) });
  }

  /** On the main thread; on a worker after all when it turns out not to be cheap this time. */
  private async queryInline(shape: string, spec: QueryJobSpec): Promise<QueryResult> {
    if (spec.signal?.aborted) throw new CancelledError();
    const firstOfShape = this.shapesRunInline.get(shape) === undefined;
    if (firstOfShape) this.shapesRunInline.set(shape, true);
    const outcome = await runInline(this.statisticsStore, spec, INLINE_BUDGET_MS, firstOfShape);
    if (outcome.kind === 'done') {
      this.inlineQueries++;
      this.costs.record(shape, outcome.elapsedMs);
      return outcome.result;
    }
    this.costs.markExpensive(shape, outcome.elapsedMs);
    return this.pool.run({ ...spec, onWorkerTime: (ms) => this.costs.record(shape, ms) });
  }

  update(request: UpdateRequest): Promise<UpdateSummary> {
    if (this.closing) return Promise.reject(shuttingDown());
    const deadline = Date.now() + effectiveTimeout(this.settings.updateTimeoutMs, request.timeoutMs);
    return this.withMemory(deadline, request.signal, () =>
      this.writer.run({
        update: request.update,
        baseIri: request.baseIri,
        usingGraphUris: request.usingGraphUris,
        usingNamedGraphUris: request.usingNamedGraphUris,
        unionDefaultGraph: this.settings.unionDefaultGraph,
        deadline,
        memoryBudget: this.settings.queryMemoryBudget,
        allowLoad: this.settings.allowLoad ?? true,
        loadDirectory: this.settings.loadDir,
        fetchSettings: this.settings.fetchSettings,
        signal: request.signal,
      }),
    );
  }

  /**
   * Runs a write once it has its share of the process memory budget (as much as a query: its text,
   * documents and WHERE clauses are held to the same budget), which it holds until it is done.
   */
  private async withMemory<T>(deadline: number, signal: UpdateRequest['signal'], write: () => Promise<T>): Promise<T> {
    const admission = this.settings.admission;
    if (!admission) return write();
    const maxQueue = this.settings.maxQueue ?? DEFAULT_MAX_QUEUE;
    if (this.writesWaitingForMemory >= maxQueue) throw new OverloadedError(`too many updates: ${this.writesWaitingForMemory} are waiting for memory already`);
    if (admission.overLimit) throw new OverloadedError('the server is over its memory limit (--max-memory); try again later');
    this.writesWaitingForMemory++;
    let release: () => void;
    try {
      release = await admission.reserve(queryReservation(this.settings.queryMemoryBudget), { signal, deadline });
    } finally {
      this.writesWaitingForMemory--;
    }
    try {
      return await write();
    } finally {
      release();
    }
  }

  async getGraph(graph: GraphName, limits: RequestLimits = {}): Promise<QueryResult | undefined> {
    if (graph !== null && !this.hasNamedGraph(graph)) return undefined;
    // The protocol's default graph is the store's own, the one its writes change, in either mode.
    return this.queryOver({ query: graphQuery(graph), timeoutMs: limits.timeoutMs, signal: limits.signal }, false);
  }

  putGraph(graph: GraphName, documents: GraphDocument | GraphDocument[], limits: RequestLimits = {}): Promise<GraphWriteResult> {
    return this.graphStoreWrite('put', graph, [documents].flat(), limits) as Promise<GraphWriteResult>;
  }

  postGraph(graph: GraphName, documents: GraphDocument | GraphDocument[], limits: RequestLimits = {}): Promise<GraphWriteResult> {
    return this.graphStoreWrite('post', graph, [documents].flat(), limits) as Promise<GraphWriteResult>;
  }

  /** Adds the documents' quads, into `graph` when it is given, else each into the graph the document gives it. */
  loadDocuments(documents: GraphDocument[], graph: GraphName | undefined, limits: RequestLimits = {}): Promise<GraphWriteResult> {
    return this.graphStoreWrite(graph === undefined ? 'load' : 'post', graph ?? null, documents, limits) as Promise<GraphWriteResult>;
  }

  deleteGraph(graph: GraphName, limits: RequestLimits = {}): Promise<boolean> {
    return this.graphStoreWrite('delete', graph, [], limits) as Promise<boolean>;
  }

  /**
   * Adds the files' quads (into `graph` when it is given, else each into the graph its file gives
   * it) in one transaction; the writer thread reads the files as it writes, in bounded memory.
   */
  loadFiles(files: RdfFile[], graph: GraphName | undefined, limits: RequestLimits = {}): Promise<GraphWriteResult> {
    return this.graphStoreWrite(graph === undefined ? 'load' : 'post', graph ?? null, [], limits, undefined, files) as Promise<GraphWriteResult>;
  }

  /** Removes the quads that match any of the patterns, in one transaction; whether any was there. */
  removeMatches(patterns: QuadPattern[], limits: RequestLimits = {}): Promise<boolean> {
    return this.graphStoreWrite('remove', null, [], limits, patterns.map(keyedPattern)) as Promise<boolean>;
  }

  /**
   * The quads that match, in batches, from one snapshot read on this thread (a scan of the
   * store's indexes, no query to plan): what the library's RDF/JS `match` streams.
   */
  async *matchQuads(pattern: QuadPattern): AsyncGenerator<Quad[]> {
    if (this.closing) throw shuttingDown();
    const reader = this.statisticsStore.reader();
    try {
      for (const batch of matchingQuads(reader, pattern)) {
        yield batch;
        // Between batches other work gets the thread: a large match does not hold it.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      reader.release();
    }
  }

  private graphStoreWrite(
    operation: 'put' | 'post' | 'delete' | 'load' | 'remove',
    graph: GraphName,
    documents: GraphDocument[],
    limits: RequestLimits,
    patterns?: KeyedPattern[],
    files?: RdfFile[],
  ): Promise<unknown> {
    if (this.closing) return Promise.reject(shuttingDown());
    const deadline = Date.now() + effectiveTimeout(this.settings.updateTimeoutMs, limits.timeoutMs);
    return this.withMemory(deadline, limits.signal, () =>
      this.writer.runGraphStore({ operation, graph, documents, patterns, files, deadline, signal: limits.signal }),
    );
  }

  private hasNamedGraph(iri: string): boolean {
    const reader = this.statisticsStore.reader();
    try {
      const id = reader.idOf(namedNode(iri));
      return id !== undefined && reader.hasNamedGraph(id);
    } finally {
      reader.release();
    }
  }

  get unionDefaultGraph(): boolean {
    return this.settings.unionDefaultGraph === true;
  }

  async describe(): Promise<ServiceDescriptionData> {
    const reader = this.statisticsStore.reader();
    try {
      const statistics = reader.statistics();
      const namedGraphs = reader.namedGraphs().map((id) => ({
        name: reader.termOf(id).value,
        triples: statistics.graphCounts.get(id) ?? 0,
      }));
      if (this.unionDefaultGraph) return { unionDefaultGraph: true, namedGraphs };
      return { defaultGraphTriples: statistics.defaultGraphCount, namedGraphs };
    } finally {
      reader.release();
    }
  }

  /** Work in progress, for health and metrics pages. */
  load(): { queries: QueryLoad; updates: { running: number; queued: number } } {
    return { queries: this.pool.load, updates: this.writer.load };
  }

  async health(): Promise<ServiceHealth> {
    if (this.closing) return { status: 'unavailable', store: 'closed', writable: false };
    const open = this.storeReadable();
    const writable = open && this.writer.writable;
    const problem = open && this.writer.diskFull ? 'the disk of the store is full' : undefined;
    return { status: writable ? 'ok' : 'unavailable', store: open ? 'open' : 'closed', writable, ...(problem ? { problem } : {}) };
  }

  async metrics(): Promise<ServiceMetrics> {
    const { queries, updates } = this.load();
    const gauges: ServiceMetrics = {
      queriesRunning: queries.running,
      queriesQueued: queries.queued,
      queriesInline: this.inlineQueries,
      updatesRunning: updates.running,
      updatesQueued: updates.queued,
    };
    const admission = this.settings.admission;
    if (admission) {
      gauges.memoryLimitBytes = admission.limit;
      gauges.memoryReservedBytes = admission.load.reservedBytes;
      gauges.memoryResidentBytes = admission.residentBytes;
    }
    if (this.closing) return gauges;
    const reader = this.statisticsStore.reader();
    try {
      gauges.triples = reader.statistics().quadCount;
    } finally {
      reader.release();
    }
    gauges.storeBytes = await diskUsage(this.writer.storePath);
    return gauges;
  }

  /** A read transaction opens: the store is there and readable. */
  private storeReadable(): boolean {
    try {
      this.statisticsStore.reader().release();
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const deadline = Date.now() + (this.settings.closeTimeoutMs ?? 10_000);
    const grace = this.settings.cancelGraceMs ?? 2000;
    await Promise.all([this.pool.close(deadline), this.writer.whenIdle(deadline)]);
    await this.statisticsStore.close();
    // Last, because the writer owns the store (and a memory store's directory).
    await this.writer.close(deadline, grace);
  }
}

/** The workers' heap limit: as given, or from the query memory budget; none without either. */
function workerResourceLimits(options: LocalServiceOptions): ResourceLimits | undefined {
  const limitMb = options.workerMemoryMb ?? (options.queryMemoryBudget !== undefined ? workerHeapLimitMb(options.queryMemoryBudget) : undefined);
  return limitMb !== undefined ? { maxOldGenerationSizeMb: limitMb } : undefined;
}

/**
 * The join tables a worker keeps for later queries: a quarter of a query's memory budget, at least
 * 16 MiB; without a budget, the engine's default. They count in the resident memory that admission
 * weighs, not in any query's budget.
 */
function joinTableCacheBytes(queryMemoryBudget: number | undefined): number | undefined {
  return queryMemoryBudget ? Math.max(16 * 2 ** 20, queryMemoryBudget / 4) : undefined;
}

/**
 * How much a worker's memory may grow before a job's end collects its garbage: a quarter of a
 * query's memory budget, at least 32 MiB, as for the join tables it keeps; without a budget,
 * heap-release.ts's default. Garbage below it counts in the resident memory that admission weighs.
 */
function releaseGrowthBytes(queryMemoryBudget: number | undefined): number | undefined {
  return queryMemoryBudget ? Math.max(32 * 2 ** 20, queryMemoryBudget / 4) : undefined;
}

/**
 * The process, started, must leave room for one query: past that, the budget could only be kept by
 * refusing every query, so a limit that small is a mistake to report at once.
 */
function checkRoomForOneQuery(admission: MemoryAdmission, perQuery: number): void {
  const held = residentBytes();
  if (held + perQuery <= admission.limit) return;
  const mib = (bytes: number): string => `${Math.ceil(bytes / 2 ** 20)} MiB`;
  throw new ResourceLimitError(
    `the memory limit of ${mib(admission.limit)} leaves no room for a query: the server holds ${mib(held)} before any query, and a query may add ${mib(perQuery)} (twice its memory budget and 64 MiB); raise --max-memory or lower --query-memory or --workers`,
  );
}

/** The triples of one graph, as a query the workers already know how to run and stream. */
function graphQuery(graph: GraphName): string {
  const pattern = '?s ?p ?o';
  return graph === null ? `CONSTRUCT { ${pattern} } WHERE { ${pattern} }` : `CONSTRUCT { ${pattern} } WHERE { GRAPH <${graph}> { ${pattern} } }`;
}

export function createLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  return LocalService.create(options);
}

/** Bytes the files of a directory occupy on disk (LMDB files are sparse: their size overstates it). */
async function diskUsage(directory: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(directory)) {
    const info = await stat(join(directory, name));
    if (info.isFile()) bytes += info.blocks !== undefined ? info.blocks * 512 : info.size;
  }
  return bytes;
}

/** A request may lower the service's memory budget, never raise it. */
function smallerBudget(service: number | undefined, request: number | undefined): number | undefined {
  if (service === undefined) return request;
  return request === undefined ? service : Math.min(service, request);
}

function shuttingDown(): OverloadedError {
  return new OverloadedError('the service is shutting down');
}
