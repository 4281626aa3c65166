/**
 * The request log: one JSON line per request, written when the response is finished. A line names
 * the request (id, method, endpoint, path) and its outcome (status, duration, rows when known); the
 * query or update itself appears only as a hash, so logs can correlate repeated requests without
 * holding their text, and no header (Authorization included) is ever written.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { QueryRequest, QueryResult, SparqlService, UpdateRequest } from '../service/index.js';

export interface RequestLogEntry {
  /** ISO 8601, when the response was finished. */
  time: string;
  id: string;
  method: string;
  /** sparql, select, update, store, health, metrics or other. */
  endpoint: string;
  /** The URL path, without its query string (which may hold the query text). */
  path: string;
  status: number;
  durationMs: number;
  /** First 16 hex digits of the SHA-256 of the query or update text. */
  queryHash?: string;
  /** Solutions or triples sent, when the response carried a result that was read to its end. */
  rows?: number;
}

/** Where log lines go: a function that takes one line (with its newline). */
export type LogSink = (line: string) => void;

export const stdoutSink: LogSink = (line) => process.stdout.write(line);

export function queryHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

export function formatLogLine(entry: RequestLogEntry): string {
  return JSON.stringify(entry) + '\n';
}

/** What the service learns about a request while serving it; read back when the line is written. */
export interface RequestObservation {
  queryHash?: string;
  rows?: number;
}

const currentRequest = new AsyncLocalStorage<RequestObservation>();

/** Runs `next` (the rest of a request's handling) with `observation` as the current request's record. */
export function runObserved<T>(observation: RequestObservation, next: () => T): T {
  return currentRequest.run(observation, next);
}

/** A request just finished, as the metrics and the log see it, whichever path answered it. */
export interface FinishedRequest {
  id: string;
  method: string;
  endpoint: string;
  /** Without the query string. */
  path: string;
  status: number;
  ms: number;
  observation: RequestObservation | undefined;
}

/**
 * The service as seen by the handlers when the log is on: queries and updates note their hash and
 * rows in the current request's record. Every other member is the service's own, so optional
 * methods keep being optional (and new ones pass through untouched).
 */
export function observedService(service: SparqlService): SparqlService {
  const query = async (request: QueryRequest): Promise<QueryResult> => {
    const observation = currentRequest.getStore();
    if (observation) observation.queryHash = queryHash(request.query);
    const result = await service.query(request);
    return observation ? countingRows(result, observation) : result;
  };
  const update = (request: UpdateRequest): ReturnType<SparqlService['update']> => {
    const observation = currentRequest.getStore();
    if (observation) observation.queryHash = queryHash(request.update);
    return service.update(request);
  };
  return new Proxy(service, {
    get(target, property, receiver) {
      if (property === 'query') return query;
      if (property === 'update') return update;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function countingRows(result: QueryResult, observation: RequestObservation): QueryResult {
  if (result.kind === 'boolean' || result.kind === 'explain') return result;
  // A result sent as its ready-made document is not read row by row: the document says how many it holds.
  observation.rows = result.document?.rows ?? 0;
  if (result.kind === 'bindings') return { ...result, rows: counted(result.rows, observation) };
  return { ...result, quads: counted(result.quads, observation) };
}

/** The same batches, counted as they pass; closing it early closes the source (and its evaluation). */
function counted<T>(batches: AsyncIterable<T[]>, observation: RequestObservation): AsyncIterable<T[]> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T[]> {
      const source = batches[Symbol.asyncIterator]();
      let started = false;
      return {
        next: async () => {
          // Read row by row after all: the rows counted are the ones sent, not the document's.
          if (!started) observation.rows = 0;
          started = true;
          const step = await source.next();
          if (!step.done) observation.rows = (observation.rows ?? 0) + step.value.length;
          return step;
        },
        return: async (value?: unknown) => (source.return ? source.return(value) : { done: true, value: undefined }),
      };
    },
  };
}
