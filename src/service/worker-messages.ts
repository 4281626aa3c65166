/**
 * What the main thread and the worker threads say to each other. A query job is: `run` →
 * (`boolean` | `head`, `batch`*) → `end` | `error`; the worker is free once it has sent `end`,
 * `boolean` or `error`, and sends nothing more about that job.
 */
import type { ControlBlock } from './flow-control.js';
import type { SerializedError } from './error-transport.js';
import type { EncodedBatch } from './term-table.js';

export interface QueryWorkerData {
  storePath: string;
  control: ControlBlock;
  /** Unacknowledged batches a worker may have in flight before it waits. */
  window: number;
}

export interface RunQueryMessage {
  type: 'run';
  jobId: number;
  query: string;
  baseIri?: string;
  defaultGraphUris?: string[];
  namedGraphUris?: string[];
  deadline: number;
  memoryBudget?: number;
}

export type QueryWorkerRequest = RunQueryMessage | { type: 'close' };

export type QueryWorkerReply =
  | { type: 'ready' }
  | { type: 'startFailed'; error: SerializedError }
  | { type: 'closed' }
  | { type: 'boolean'; jobId: number; value: boolean }
  | { type: 'head'; jobId: number; kind: 'bindings'; variables: string[] }
  | { type: 'head'; jobId: number; kind: 'quads'; prefixes: Record<string, string> }
  | { type: 'batch'; jobId: number; batch: EncodedBatch }
  | { type: 'end'; jobId: number }
  | { type: 'error'; jobId: number; error: SerializedError };

export interface WriterWorkerData {
  path?: string;
  memory?: boolean;
  noSync?: boolean;
  control: ControlBlock;
}

export interface RunUpdateMessage {
  type: 'update';
  jobId: number;
  update: string;
  baseIri?: string;
  usingGraphUris?: string[];
  usingNamedGraphUris?: string[];
  deadline: number;
  allowLoad: boolean;
}

/** A Graph Store Protocol write (graph null: the default graph). */
export interface GraphStoreMessage {
  type: 'graphStore';
  jobId: number;
  operation: 'put' | 'post' | 'delete';
  graph: string | null;
  documents: { text: string; contentType: string; baseIri?: string }[];
  deadline: number;
}

export type WriterRequest = RunUpdateMessage | GraphStoreMessage | { type: 'close' };

export type WriterReply =
  | { type: 'ready'; path: string }
  | { type: 'startFailed'; error: SerializedError }
  | { type: 'closed' }
  | { type: 'done'; jobId: number; result?: unknown }
  | { type: 'error'; jobId: number; error: SerializedError };
