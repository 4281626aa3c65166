/**
 * The one interface the HTTP layer talks to. LocalService runs requests on the embedded store
 * (in worker threads); RemoteService forwards them to another SPARQL 1.1 endpoint.
 */
import type { UpdateSummary } from '../engine/index.js';
export type { GraphChanges, UpdateSummary } from '../engine/index.js';
import type { Quad, SolutionRow } from '../rdf/index.js';
import type { PlanNode, QueryExplanation } from '../engine/index.js';

export type { PlanNode, QueryExplanation, SolutionRow };

export interface RequestLimits {
  /** Time limit of this request in milliseconds. */
  timeoutMs?: number;
  /** Aborted when the client goes away; evaluation stops. */
  signal?: CancelSignal;
}

/**
 * What the service needs of a cancel signal: an AbortSignal has it, and so does the HTTP layer's
 * lighter ClientGone. Listeners are added with `{ once: true }` and may be removed before the abort.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface QueryRequest extends RequestLimits {
  query: string;
  /** Protocol dataset (default-graph-uri / named-graph-uri); overrides FROM / FROM NAMED. */
  defaultGraphUris?: string[];
  namedGraphUris?: string[];
  /** Base IRI for relative IRIs in the query. */
  baseIri?: string;
  /** Return the evaluation plan with estimated and actual row counts. */
  explain?: boolean;
  /** Memory budget of this query in bytes; it may lower the service's budget, not raise it. */
  memoryBudget?: number;
  /**
   * The formats the caller would answer in, per kind of result, when it knows them before the query
   * runs (the HTTP layer does, from Accept and `output`): a service may then return a small result
   * already written in that format (`document`), e.g. by the thread that evaluated it.
   */
  documentFormats?: DocumentFormats;
}

/** A formats-layer format name (json, ntriples, ...) and the media type it is sent as. */
export interface DocumentFormat {
  format: string;
  mediaType: string;
}

export interface DocumentFormats {
  /** For SELECT results. */
  solutions?: DocumentFormat;
  /** For CONSTRUCT and DESCRIBE results. */
  quads?: DocumentFormat;
}

export interface UpdateRequest extends RequestLimits {
  update: string;
  /** Protocol dataset (using-graph-uri / using-named-graph-uri). */
  usingGraphUris?: string[];
  usingNamedGraphUris?: string[];
  baseIri?: string;
}

/**
 * A result as a document in one format, from a service that received it so (remote mode) or wrote it
 * where it was evaluated (local mode, see QueryRequest.documentFormats): the HTTP layer sends it as it
 * is to a client that asked for exactly that media type, instead of writing the rows again (it then
 * reads no rows and discards the result).
 */
export interface ResultDocument {
  /** The media type, without parameters. */
  mediaType: string;
  /** The document: as text, or as `bytes`, or as `chunks` (one of the three is there). */
  text?: string;
  /** Optional: the text encoded as UTF-8, which the HTTP layer then sends as it is. */
  bytes?: Uint8Array;
  /**
   * Optional: the document's bytes as they arrive (remote mode: the remote's answer, passed on as it
   * streams in), read once. The HTTP layer sends each as it comes, so the response has begun when a
   * failure (time limit, the remote breaking off) stops them: the client's connection is then cut.
   */
  chunks?: AsyncIterable<Uint8Array>;
  /** Optional: the solutions or triples the document holds (for the request log). */
  rows?: number;
}

export type QueryResult =
  | {
      kind: 'bindings';
      variables: string[];
      /** Rows in batches; stops early (and frees the evaluation) when the consumer returns. */
      rows: AsyncIterable<SolutionRow[]>;
      /** Optional: the same result as a document already written (see ResultDocument). */
      document?: ResultDocument;
    }
  | { kind: 'boolean'; value: boolean }
  | {
      kind: 'quads';
      /** Prefixes declared by the query, for Turtle output. */
      prefixes: Record<string, string>;
      quads: AsyncIterable<Quad[]>;
      /** Optional: the same result as a document already written (see ResultDocument). */
      document?: ResultDocument;
    }
  /** The answer to a request with `explain: true`: the query ran to the end, its rows counted, not returned. */
  | { kind: 'explain'; explanation: QueryExplanation };

export interface ServiceDescriptionData {
  /** Triples in the default graph, and per named graph, from the store's statistics. */
  defaultGraphTriples?: number;
  /** The default graph of queries is the union of all graphs (then its size is not given). */
  unionDefaultGraph?: boolean;
  namedGraphs?: { name: string; triples: number }[];
}

/** The graph a Graph Store Protocol request acts on: an IRI, or null for the default graph. */
export type GraphName = string | null;

/** An RDF document sent to the graph store: its text and its media type (or format name). */
export interface GraphDocument {
  text: string;
  contentType: string;
  /** Base IRI for relative IRIs in the document. */
  baseIri?: string;
}

/** Outcome of a graph store write: whether the graph was created by it (HTTP 201 vs 200/204). */
export interface GraphWriteResult {
  created: boolean;
}

/** Whether the service can answer: its store is open, and writes can be accepted. */
export interface ServiceHealth {
  /** 'ok' when the service can answer queries and updates; HTTP {base}/health answers 503 otherwise. */
  status: 'ok' | 'unavailable';
  store: 'open' | 'closed';
  writable: boolean;
  /** Why the service is unavailable, when it can say (e.g. 'the disk of the store is full'). */
  problem?: string;
  /** Remote mode: the endpoint the service forwards to, as last checked. */
  remote?: RemoteHealth;
}

export interface RemoteHealth {
  /** The remote query endpoint (without credentials). */
  endpoint: string;
  /** Whether it answered the last check (a trivial ASK) within its time limit. */
  answering: boolean;
  /** How long the check took, in milliseconds. */
  latencyMs: number;
  /** When the check was made (ISO 8601). */
  checkedAt: string;
  /** Why it did not answer. */
  error?: string;
}

/** Gauges for {base}/metrics; a service leaves out what it does not know. */
export interface ServiceMetrics {
  queriesRunning: number;
  queriesQueued: number;
  /** Local mode: queries evaluated on the main thread so far (cheap ones, see LocalServiceOptions.inlineCheapQueries). */
  queriesInline?: number;
  updatesRunning?: number;
  updatesQueued?: number;
  /** Bytes the store takes on disk. */
  storeBytes?: number;
  /** Local mode with --max-memory: the limit, what running queries and updates reserve of it, and what the process holds. */
  memoryLimitBytes?: number;
  memoryReservedBytes?: number;
  memoryResidentBytes?: number;
  /** Quads in the store, all graphs (from the store's statistics, not counted per call). */
  triples?: number;
  /** Remote mode: the requests sent to the remote endpoint since the start. */
  remote?: RemoteRequestCounts;
}

export interface RemoteRequestCounts {
  /** Queries and updates sent to the remote (health checks not included). */
  requests: number;
  /** Those that ended without a complete answer (unreachable, an error status, time-out, unreadable), other than by our client going away. */
  failures: number;
  /** Seconds from sending to the last byte of the answer, summed over the requests. */
  seconds: number;
}

export interface SparqlService {
  /** Parses and starts a query. Syntax errors reject before any row is produced. */
  query(request: QueryRequest): Promise<QueryResult>;
  /**
   * Runs an update request as one transaction; resolves with the quads it inserted and deleted,
   * or undefined when the service cannot tell (a remote endpoint).
   */
  update(request: UpdateRequest): Promise<UpdateSummary | undefined>;
  /** Data for the service description (cheap: no counting per call). */
  describe(): Promise<ServiceDescriptionData>;
  /**
   * Whether the default graph of queries is the union of all graphs (a union default graph): the
   * pages then cannot name the store's own default graph in a query, and say so.
   */
  readonly unionDefaultGraph?: boolean;
  /*
   * The SPARQL 1.1 Graph Store HTTP Protocol, optional: a service without it answers 405 there.
   * Writes run as one transaction each, in turn with updates.
   */
  /** The graph's triples (as quads in the default graph), or undefined when the graph does not exist. */
  getGraph?(graph: GraphName, limits?: RequestLimits): Promise<QueryResult | undefined>;
  /** Replaces the graph's content with the documents' triples. */
  putGraph?(graph: GraphName, documents: GraphDocument | GraphDocument[], limits?: RequestLimits): Promise<GraphWriteResult>;
  /** Adds the documents' triples to the graph (RDF merge: each document's blank nodes are new). */
  postGraph?(graph: GraphName, documents: GraphDocument | GraphDocument[], limits?: RequestLimits): Promise<GraphWriteResult>;
  /** Removes the graph (the default graph: empties it); false when there was no such graph. */
  deleteGraph?(graph: GraphName, limits?: RequestLimits): Promise<boolean>;
  /** Optional: a cheap check for {base}/health; a service without it counts as healthy. */
  health?(): Promise<ServiceHealth>;
  /** Optional: cheap gauges for {base}/metrics (no counting per call). */
  metrics?(): Promise<ServiceMetrics>;
  close(): Promise<void>;
}
