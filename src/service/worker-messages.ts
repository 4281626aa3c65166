/**
 * What the main thread and the worker threads say to each other. A query job is: `run` →
 * `boolean` | `explain` | `batch`+ (the first carries the head, the last is marked `last`) | `end` | `error`;
 * the worker is free once it has sent `boolean`, `explain`, `error`, `end` or a `last` batch, and sends
 * nothing more about that job. Its last message says how long the job kept the worker (`busyMs`,
 * for the service's memory of what each query shape costs). A small result is one message: thread hand-offs cost more than
 * the work of a short query on a busy machine; it comes already written in the client's format when
 * the run message names one, so that the main thread only has to send its bytes.
 */
import type { ControlBlock } from './flow-control.js';
import type { SerializedError } from './error-transport.js';
import type { EncodedBatch } from './transfer-term-table.js';
import type { QueryExplanation } from './sparql-service.js';
import type { FetchSettings } from '../net/index.js';
import type { KeyedPattern } from '../store/index.js';

export type ResultHead = { kind: 'bindings'; variables: string[] } | { kind: 'quads'; prefixes: Record<string, string> };

export interface QueryWorkerData {
  storePath: string;
  control: ControlBlock;
  /** Unacknowledged batches a worker may have in flight before it waits. */
  window: number;
  /** Bytes of join tables the worker keeps for later queries (the engine's default if unset). */
  joinTableCacheBytes?: number;
  /** Growth of the worker's memory after which a job's end collects its garbage (heap-release.ts). */
  releaseGrowthBytes?: number;
}

export interface RunQueryMessage {
  type: 'run';
  jobId: number;
  query: string;
  baseIri?: string;
  defaultGraphUris?: string[];
  namedGraphUris?: string[];
  /** The default graph of a query that names none is the union of all graphs. */
  unionDefaultGraph?: boolean;
  deadline: number;
  memoryBudget?: number;
  /** What SERVICE may fetch (targets, bytes, time); allowService false refuses SERVICE. */
  fetchSettings?: FetchSettings;
  allowService?: boolean;
  /** Run to the end and answer with the plan and its counts (`explain`) instead of rows. */
  explain?: boolean;
  /** Format names (formats layer) to write a one-message result in, per kind; see `document`. */
  documentFormats?: { solutions?: string; quads?: string };
}

export type QueryWorkerRequest = RunQueryMessage | { type: 'close' };

export type QueryWorkerReply =
  | { type: 'ready' }
  | { type: 'startFailed'; error: SerializedError }
  | { type: 'closed' }
  | { type: 'boolean'; jobId: number; value: boolean; busyMs?: number }
  | { type: 'explain'; jobId: number; explanation: QueryExplanation }
  | {
      type: 'batch';
      jobId: number;
      head?: ResultHead;
      batch?: EncodedBatch;
      last?: boolean;
      busyMs?: number;
      /**
       * A result that fits one message, written in the format asked for (RunQueryMessage.documentFormats)
       * as UTF-8 bytes, whose buffer is transferred; `batch` still carries its rows.
       */
      document?: Uint8Array;
    }
  | { type: 'end'; jobId: number; busyMs?: number }
  | { type: 'error'; jobId: number; error: SerializedError }
  /** After a job's last message: the worker has given back the job's garbage and is ready (query-pool.ts). */
  | { type: 'settled' };

export interface WriterWorkerData {
  path?: string;
  memory?: boolean;
  noSync?: boolean;
  control: ControlBlock;
}

/**
 * An update, to prepare: the writer parses it and fetches what its LOADs name, alongside other
 * work, and answers `prepared` (or `error`); then, in its turn, the main thread sends `apply`.
 */
export interface RunUpdateMessage {
  type: 'update';
  jobId: number;
  update: string;
  baseIri?: string;
  usingGraphUris?: string[];
  usingNamedGraphUris?: string[];
  /** A WHERE clause without WITH or USING reads the union of all graphs as its default graph. */
  unionDefaultGraph?: boolean;
  deadline: number;
  /** The update's memory budget (its text, its LOAD documents, its WHERE clauses), as a query's. */
  memoryBudget?: number;
  allowLoad: boolean;
  /** The directory LOAD may read file: IRIs from (none: no local files). */
  loadDirectory?: string;
  /** What LOAD may fetch from the web (targets, bytes, time). */
  fetchSettings?: FetchSettings;
}

/** Run a prepared update's transaction, now: it holds the single writer. */
export interface ApplyUpdateMessage {
  type: 'apply';
  jobId: number;
}

/** Forget an update: stop preparing it, or drop what was prepared. The writer does not answer. */
export interface CancelUpdateMessage {
  type: 'cancel';
  jobId: number;
}

/** A Graph Store Protocol write (graph null: the default graph). */
/** An RDF file that the writer thread reads itself, so that its size costs no memory. */
export interface RdfFile {
  path: string;
  gzip: boolean;
  contentType: string;
  baseIri?: string;
}

export interface GraphStoreMessage {
  type: 'graphStore';
  jobId: number;
  /**
   * 'load': like 'post', but with `graph` null each quad keeps the graph its document gives it.
   * 'remove': removes the quads that match `patterns` (graph and documents unused).
   */
  operation: 'put' | 'post' | 'delete' | 'load' | 'remove';
  graph: string | null;
  documents: { text: string; contentType: string; baseIri?: string }[];
  /** Files to read on the writer thread, streamed into one transaction ('load' and 'post'). */
  files?: RdfFile[];
  patterns?: KeyedPattern[];
  deadline: number;
}

export type WriterRequest = RunUpdateMessage | ApplyUpdateMessage | CancelUpdateMessage | GraphStoreMessage | { type: 'close' };

export type WriterReply =
  | { type: 'ready'; path: string }
  | { type: 'startFailed'; error: SerializedError }
  | { type: 'closed' }
  | { type: 'prepared'; jobId: number }
  | { type: 'done'; jobId: number; result?: unknown }
  | { type: 'error'; jobId: number; error: SerializedError };
