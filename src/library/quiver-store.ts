/**
 * Quiver as a library: a persistent SPARQL store that a program opens like a database. It is the
 * same service `quiver serve` puts behind HTTP (queries on worker threads, updates through one
 * writer, each request one transaction), offered as typed calls and as an RDF/JS `Store`, so
 * RDF/JS tools (and Comunica) can use it directly.
 */
import { EventEmitter } from 'node:events';
import { createWriteStream } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type * as RDF from '@rdfjs/types';
import { ProtocolError, StoreClosedError, StoreOpenError } from '../errors.js';
import { parseableRdfFormat, rdfFormatForFileName } from '../formats/index.js';
import { createQuadsSerializer } from '../formats/index.js';
import type { ParseableRdfFormat } from '../formats/index.js';
import { createLocalService, inlineQueriesSetting, type InlineQueriesMode, type LocalService, type LocalServiceOptions } from '../service/index.js';
import type { QueryExplanation, QueryRequest } from '../service/index.js';
import { storeExists } from '../store/index.js';
import type { UpdateSummary } from '../engine/index.js';
import { factory } from '../rdf/index.js';
import type { FetchSettings } from '../net/index.js';
import { answerOf, type AskAnswer, type QuadsAnswer, type QueryAnswer, type SelectAnswer } from './query-answers.js';
import { exactPattern, graphName, quadPattern, type TermPattern } from './quad-patterns.js';

export interface OpenOptions {
  /** The store directory. Created when missing, unless `create: false`. */
  path?: string;
  /** A throw-away store in a temporary directory, removed by close(). */
  memory?: boolean;
  /** false: the store must exist already; opening a directory that holds none is a StoreOpenError, and creates nothing. Default true. */
  create?: boolean;
  /**
   * The default graph of queries (and of updates' WHERE clauses) that name no graphs is the union of
   * all graphs, as `quiver serve --union-default-graph`. Updates without GRAPH still write to the
   * store's own default graph, and `match`, `dump` and `load` address that graph. Default false.
   */
  unionDefaultGraph?: boolean;
  /** Worker threads that evaluate queries (at once). Default: one per core. */
  workers?: number;
  /** Default time limits, in milliseconds (a call's `timeoutMs` may lower them). */
  queryTimeoutMs?: number;
  updateTimeoutMs?: number;
  /** Memory budget of each query in bytes (sorts, groups, hash tables, fetched data). Default: none but the worker's heap. */
  queryMemory?: number;
  /** Whether SPARQL LOAD and SERVICE may fetch from the network. Default true. */
  allowLoad?: boolean;
  allowService?: boolean;
  /** The only directory whose files SPARQL LOAD may read (file: IRIs). Default: none. */
  loadDir?: string;
  /**
   * What LOAD and SERVICE may fetch, as `quiver serve`'s fetch flags: `allow` (--fetch-allow),
   * `aliases` (--fetch-alias), `maxBytes` (--max-fetch-bytes), `timeoutMs` (--fetch-timeout).
   * Default: the public internet only, no aliases, 64 MiB, 60 s.
   */
  fetch?: FetchSettings;
  /**
   * When a query whose shape has proved cheap is evaluated on the calling thread instead of a worker
   * (as `quiver serve --inline-queries`): 'auto' (default) unless this thread is saturated while a
   * core idles; 'idle' only while no other query runs; 'always'; 'off'. A program that sends its
   * queries one at a time gains most from 'always': it saves two thread hand-offs per query.
   */
  inlineQueries?: InlineQueriesMode;
}

/** Options of one call. */
export interface CallOptions {
  /** Time limit of this call in milliseconds (at most the store's own). */
  timeoutMs?: number;
  /** Stops the call (a CancelledError) when aborted. */
  signal?: AbortSignal;
  /** Base IRI for relative IRIs in the text. */
  baseIri?: string;
}

export interface QueryOptions extends CallOptions {
  /** The dataset: replaces the query's FROM and FROM NAMED when either is given. */
  defaultGraphs?: string[];
  namedGraphs?: string[];
  /** Memory budget of this query in bytes (at most the store's own). */
  memoryBudget?: number;
}

export interface UpdateOptions extends CallOptions {
  /** The dataset of the update's WHERE: replaces USING and USING NAMED (and WITH) when either is given. */
  usingGraphs?: string[];
  usingNamedGraphs?: string[];
}

export interface LoadOptions extends CallOptions {
  /** The format: a name (turtle, ntriples, nquads, trig, jsonld, rdfxml) or a media type. A file's is taken from its name when omitted. */
  format?: string;
  /** The graph the triples go into (an IRI); without it each quad goes where the document puts it, triples into the default graph. */
  graph?: string;
}

export interface DumpOptions {
  /** nquads (default), trig, turtle, ntriples, jsonld or rdfxml; triple formats write one graph. */
  format?: ParseableRdfFormat;
  /** Only this graph (an IRI, or null for the default graph). */
  graph?: string | null;
}

/**
 * Opens (or creates) a store: its options, or its directory alone (`openQuiver('./my-store')`, or
 * a file: URL). Close it with close() when done.
 */
export async function openQuiver(optionsOrPath: OpenOptions | string | URL = {}): Promise<QuiverStore> {
  const options = openOptionsOf(optionsOrPath);
  if (!options.memory && options.create === false) {
    const path = options.path ?? './data';
    if (!storeExists(path)) throw new StoreOpenError(`no Quiver store at ${path}`);
  }
  const settings: LocalServiceOptions = {
    store: options.memory ? undefined : (options.path ?? './data'),
    memory: options.memory,
    unionDefaultGraph: options.unionDefaultGraph,
    workers: options.workers,
    queryTimeoutMs: options.queryTimeoutMs,
    updateTimeoutMs: options.updateTimeoutMs,
    queryMemoryBudget: options.queryMemory,
    allowLoad: options.allowLoad,
    allowService: options.allowService,
    loadDir: options.loadDir,
    fetchSettings: options.fetch,
    inlineCheapQueries: options.inlineQueries === undefined ? undefined : inlineQueriesSetting(options.inlineQueries),
  };
  try {
    return new QuiverStore(await createLocalService(settings));
  } catch (error) {
    if (error instanceof Error && !(error instanceof StoreOpenError)) throw new StoreOpenError(`cannot open the store: ${error.message}`);
    throw error;
  }
}

/**
 * A path (or a file: URL) stands for `{ path }`. Anything else that is not an options object is
 * refused: a plain JavaScript caller's `openQuiver(42)` would otherwise open (or create) ./data.
 */
function openOptionsOf(optionsOrPath: unknown): OpenOptions {
  if (optionsOrPath instanceof URL) {
    if (optionsOrPath.protocol !== 'file:') throw new TypeError(`openQuiver: a store is a directory, not ${optionsOrPath.href}`);
    return { path: fileURLToPath(optionsOrPath) };
  }
  if (typeof optionsOrPath === 'string') {
    if (optionsOrPath === '') throw new TypeError('openQuiver: an empty path');
    return { path: optionsOrPath };
  }
  if (optionsOrPath === null || typeof optionsOrPath !== 'object' || Array.isArray(optionsOrPath)) {
    throw new TypeError(
      `openQuiver takes a path or an options object, not ${optionsOrPath === null ? 'null' : Array.isArray(optionsOrPath) ? 'an array' : typeof optionsOrPath}`,
    );
  }
  return optionsOrPath as OpenOptions;
}

export class QuiverStore implements RDF.Store {
  private closed = false;

  constructor(private readonly localService: LocalService) {}

  /** The service behind the store, for `serveStore` (and anything that speaks SparqlService). */
  get service(): LocalService {
    this.refuseWhenClosed();
    return this.localService;
  }

  async query(text: string, options: QueryOptions = {}): Promise<QueryAnswer> {
    this.refuseWhenClosed();
    const result = await this.localService.query(queryRequest(text, options));
    if (result.kind === 'explain') throw new ProtocolError('an explanation was not asked for');
    return answerOf(result);
  }

  /** A SELECT query's solutions; any other form of query is a ProtocolError. */
  async select(text: string, options?: QueryOptions): Promise<SelectAnswer> {
    return expectAnswer(await this.query(text, options), 'bindings', 'SELECT');
  }

  async ask(text: string, options?: QueryOptions): Promise<boolean> {
    return expectAnswer<AskAnswer>(await this.query(text, options), 'boolean', 'ASK').value;
  }

  /** A CONSTRUCT or DESCRIBE query's quads. */
  async construct(text: string, options?: QueryOptions): Promise<QuadsAnswer> {
    return expectAnswer(await this.query(text, options), 'quads', 'CONSTRUCT or DESCRIBE');
  }

  /** The query's plan, run to the end: each operator with its estimated and actual rows and time. */
  async explain(text: string, options: QueryOptions = {}): Promise<QueryExplanation> {
    this.refuseWhenClosed();
    const result = await this.localService.query({ ...queryRequest(text, options), explain: true });
    if (result.kind !== 'explain') throw new ProtocolError('the service gave no explanation');
    return result.explanation;
  }

  /**
   * Runs an update as one transaction: all of it is applied, or (on any error) none. Resolves with
   * the quads it really inserted and deleted, in total and per graph.
   */
  async update(text: string, options: UpdateOptions = {}): Promise<UpdateSummary> {
    this.refuseWhenClosed();
    return this.localService.update({
      update: text,
      baseIri: options.baseIri,
      usingGraphUris: options.usingGraphs,
      usingNamedGraphUris: options.usingNamedGraphs,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  }

  /**
   * Adds RDF given as text, bytes or a stream, in one transaction. A stream is copied to a
   * temporary file as it comes, which the writer then reads as it writes: any size, bounded memory.
   */
  async load(data: string | Uint8Array | NodeJS.ReadableStream, options: LoadOptions & { format: string }): Promise<void> {
    this.refuseWhenClosed();
    const format = knownFormat(options.format);
    if (typeof data === 'string' || data instanceof Uint8Array) {
      const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      await this.localService.loadDocuments([{ text, contentType: format, baseIri: options.baseIri }], options.graph, options);
      return;
    }
    const spool = await mkdtemp(join(tmpdir(), 'quiver-load-'));
    try {
      const path = join(spool, 'document');
      await pipeline(data, createWriteStream(path), { signal: options.signal });
      await this.localService.loadFiles([{ path, gzip: false, contentType: format, baseIri: options.baseIri }], options.graph, options);
    } finally {
      await rm(spool, { recursive: true, force: true });
    }
  }

  /** Adds an RDF file (gzipped too, by its `.gz` name), in one transaction; the file is read as it is written, in bounded memory. */
  async loadFile(path: string, options: LoadOptions = {}): Promise<void> {
    this.refuseWhenClosed();
    const byName = rdfFormatForFileName(path);
    const format = options.format ?? byName?.format;
    if (format === undefined) throw new ProtocolError(`cannot tell the RDF format of ${path} from its name; give options.format`);
    // Read here first: a missing file is the caller's error, not the writer's.
    await access(path);
    const file = { path: resolve(path), gzip: byName?.gzip ?? false, contentType: knownFormat(format), baseIri: options.baseIri };
    await this.localService.loadFiles([file], options.graph, options);
  }

  /** The store's quads (or one graph's), from one snapshot. */
  quads(options: Pick<DumpOptions, 'graph'> = {}): AsyncIterable<RDF.Quad> {
    const graph = options.graph === undefined ? undefined : options.graph === null ? factory.defaultGraph() : factory.namedNode(options.graph);
    return this.matchAll(null, null, null, graph);
  }

  /** The store (or one graph) written as RDF, in chunks of text. */
  async *dump(options: DumpOptions = {}): AsyncGenerator<string> {
    const format = options.format ?? 'nquads';
    let chunks: string[] = [];
    const serializer = createQuadsSerializer(format, { write: (chunk) => chunks.push(chunk) });
    serializer.begin({});
    let batch: RDF.Quad[] = [];
    const graph = options.graph !== undefined ? options.graph : isQuadFormat(format) ? undefined : null;
    for await (const quad of this.quads({ graph })) {
      batch.push(quad);
      if (batch.length === DUMP_BATCH) {
        serializer.quads(batch);
        batch = [];
        yield chunks.join('');
        chunks = [];
      }
    }
    serializer.quads(batch);
    serializer.end();
    yield chunks.join('');
  }

  // ---- RDF/JS Source and Store ----

  /** The quads that match, as an RDF/JS stream that is also an async iterable. */
  match(subject?: TermPattern, predicate?: TermPattern, object?: TermPattern, graph?: TermPattern): RDF.Stream<RDF.Quad> & AsyncIterable<RDF.Quad> {
    return Readable.from(this.matchAll(subject, predicate, object, graph)) as unknown as RDF.Stream<RDF.Quad> & AsyncIterable<RDF.Quad>;
  }

  /** Adds the stream's quads in one transaction; the emitter signals 'end' or 'error'. */
  import(stream: RDF.Stream<RDF.Quad>): EventEmitter {
    return settled(async () => {
      const quads = await collect(stream);
      if (quads.length > 0) await this.load(nquadsOf(quads), { format: 'nquads' });
    });
  }

  /** Removes the stream's quads in one transaction (blank nodes as `match` gave them name those nodes). */
  remove(stream: RDF.Stream<RDF.Quad>): EventEmitter {
    return settled(async () => {
      const quads = await collect(stream);
      this.refuseWhenClosed();
      if (quads.length > 0) await this.localService.removeMatches(quads.map(exactPattern));
    });
  }

  /** Removes the quads that match, in one transaction; an absent graph matches every graph, the default one included. */
  removeMatches(subject?: TermPattern, predicate?: TermPattern, object?: TermPattern, graph?: TermPattern): EventEmitter {
    return settled(async () => {
      this.refuseWhenClosed();
      await this.localService.removeMatches([quadPattern(subject, predicate, object, graph)]);
    });
  }

  /** Removes a named graph (or empties the default graph). */
  deleteGraph(graph: RDF.Quad_Graph | string): EventEmitter {
    return settled(async () => {
      this.refuseWhenClosed();
      await this.localService.deleteGraph(graphName(graph));
    });
  }

  /** Waits for running calls (up to a limit), then closes the store. Later calls get a StoreClosedError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.localService.close();
  }

  private async *matchAll(subject: TermPattern, predicate: TermPattern, object: TermPattern, graph: TermPattern): AsyncGenerator<RDF.Quad> {
    this.refuseWhenClosed();
    for await (const batch of this.localService.matchQuads(quadPattern(subject, predicate, object, graph))) yield* batch;
  }

  private refuseWhenClosed(): void {
    if (this.closed) throw new StoreClosedError();
  }
}

const DUMP_BATCH = 8192;

function isQuadFormat(format: ParseableRdfFormat): boolean {
  return format === 'nquads' || format === 'trig' || format === 'jsonld';
}

function queryRequest(text: string, options: QueryOptions): QueryRequest {
  return {
    query: text,
    baseIri: options.baseIri,
    defaultGraphUris: options.defaultGraphs,
    namedGraphUris: options.namedGraphs,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    memoryBudget: options.memoryBudget,
  };
}

function expectAnswer<A extends QueryAnswer>(answer: QueryAnswer, type: A['type'], form: string): A {
  if (answer.type !== type) throw new ProtocolError(`expected a ${form} query`);
  return answer as A;
}

function knownFormat(format: string): ParseableRdfFormat {
  const known = parseableRdfFormat(format);
  if (known === undefined) throw new ProtocolError(`unknown RDF format ${JSON.stringify(format)}`);
  return known;
}

function nquadsOf(quads: RDF.Quad[]): string {
  const chunks: string[] = [];
  const serializer = createQuadsSerializer('nquads', { write: (chunk) => chunks.push(chunk) });
  serializer.begin({});
  serializer.quads(quads);
  serializer.end();
  return chunks.join('');
}

async function collect(stream: RDF.Stream<RDF.Quad>): Promise<RDF.Quad[]> {
  const quads: RDF.Quad[] = [];
  for await (const quad of stream as unknown as AsyncIterable<RDF.Quad>) quads.push(quad);
  return quads;
}

/**
 * The RDF/JS way of saying a write is done: an emitter that emits 'end', or 'error'. An error
 * nobody listens for is not thrown (that would end the process), so listen for it.
 */
function settled(work: () => Promise<void>): EventEmitter {
  const emitter = new EventEmitter();
  work().then(
    () => emitter.emit('end'),
    (error: unknown) => {
      if (emitter.listenerCount('error') > 0) emitter.emit('error', error);
    },
  );
  return emitter;
}
