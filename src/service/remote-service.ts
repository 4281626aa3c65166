/**
 * SparqlService in front of another SPARQL 1.1 Protocol endpoint (Virtuoso, Fuseki, Oxigraph,
 * QLever, another Quiver…): queries and updates are checked by our parser, forwarded with their
 * protocol dataset, and the answers parsed as they stream in, so that the HTTP layer serves every
 * format and page of the contract whatever format the remote answered in.
 *
 * No state is kept between requests: when the remote goes down, requests fail fast with a 502 and
 * the next request after it comes back simply succeeds.
 */
import { OverloadedError, ProtocolError } from '../errors.js';
import { RemoteEndpoint, RemoteExchange, type RemoteBody, type RemoteCredentials } from './remote-endpoint.js';
import type { AckPieces } from '../net/index.js';
import { RemoteGraphStore } from './remote-graph-store.js';
import { RemoteHealthCheck, RemoteRequestStatistics } from './remote-health.js';
import { prepareQuery, prepareUpdate } from './remote-request.js';
import { effectiveTimeout } from './time-limit.js';
import { QUADS_ACCEPT, SOLUTIONS_ACCEPT, quadsFromResponse, solutionsFromResponse } from './remote-results.js';
import type {
  CancelSignal,
  GraphDocument,
  GraphName,
  GraphWriteResult,
  QueryRequest,
  QueryResult,
  RequestLimits,
  ServiceDescriptionData,
  ServiceHealth,
  ServiceMetrics,
  SparqlService,
  UpdateRequest,
} from './sparql-service.js';

export interface RemoteServiceOptions extends RemoteCredentials {
  /** The remote's query endpoint, e.g. http://localhost:8890/sparql. */
  queryEndpoint: string;
  /** The remote's update endpoint; default: the query endpoint. */
  updateEndpoint?: string;
  /** Time limit of a query, from sending it to the last byte of the answer; a request's timeoutMs may only lower it. */
  queryTimeoutMs?: number;
  /** Time limit of an update; a request's timeoutMs may only lower it. */
  updateTimeoutMs?: number;
  /** Keep connections to the remote open between requests; default: yes (see ConnectionPolicy). */
  keepAlive?: boolean;
  /** How long a connection kept or opened ahead for the next query waits unused; 0: none is kept or opened ahead. */
  spareIdleMs?: number;
  /**
   * Whether the pieces of a large answer are acknowledged at once by writing an empty line on its
   * connection, and whether such a connection carries the next request: 'off', 'close' (default),
   * or 'reuse' for remotes that skip empty lines before a request, as Virtuoso does (see AckPieces
   * in net/piece-acks.ts for what each costs). Both clients, http and https.
   */
  ackPieces?: AckPieces;
  /** How long the outcome of a health check of the remote stands; default HEALTH_CHECK_TTL_MS. */
  healthCheckTtlMs?: number;
}

export const DEFAULT_REMOTE_QUERY_TIMEOUT_MS = 60_000;
export const DEFAULT_REMOTE_UPDATE_TIMEOUT_MS = 300_000;

const UPDATE_ACCEPT = 'application/sparql-results+json, application/json;q=0.9, text/plain;q=0.8, */*;q=0.1';

/** What an exchange is for: queries and updates are counted in the metrics, health checks are not. */
type Purpose = 'query' | 'update' | 'check';

export class RemoteService implements SparqlService {
  private readonly queries: RemoteEndpoint;
  private readonly updates: RemoteEndpoint;
  private readonly running = new Map<RemoteExchange, Purpose>();
  private readonly graphStore = new RemoteGraphStore(this);
  private readonly statistics = new RemoteRequestStatistics();
  private readonly healthCheck: RemoteHealthCheck;
  private closed = false;

  constructor(private readonly options: RemoteServiceOptions) {
    const credentials = { user: options.user, password: options.password, token: options.token };
    const policy = { keepAlive: options.keepAlive, spareIdleMs: options.spareIdleMs, ackPieces: options.ackPieces };
    this.queries = new RemoteEndpoint(options.queryEndpoint, credentials, policy);
    this.updates = new RemoteEndpoint(options.updateEndpoint ?? options.queryEndpoint, credentials, policy);
    this.healthCheck = new RemoteHealthCheck(this.queries.name, (timeoutMs) => this.askRemote(timeoutMs), options.healthCheckTtlMs);
  }

  /** The endpoints as shown in messages and logs (never with credentials). */
  get endpoints(): { query: string; update: string } {
    return { query: this.queries.name, update: this.updates.name };
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    if (request.explain) throw new ProtocolError('explain is not available in remote mode');
    this.assertOpen();
    const prepared = prepareQuery(request);
    const limit = effectiveTimeout(this.options.queryTimeoutMs ?? DEFAULT_REMOTE_QUERY_TIMEOUT_MS, request.timeoutMs);
    const exchange = this.startExchange(this.queries, limit, request.signal, 'query');
    const isGraph = prepared.form === 'construct' || prepared.form === 'describe';
    try {
      const response = await this.queries.post(prepared.fields, isGraph ? QUADS_ACCEPT : SOLUTIONS_ACCEPT, exchange, true);
      if (isGraph) return await quadsFromResponse(response, exchange, prepared.prefixes);
      return await solutionsFromResponse(response, exchange, prepared.form === 'ask');
    } catch (error) {
      exchange.release();
      throw error;
    }
  }

  /** The remote's figures are not relayed: undefined. */
  async update(request: UpdateRequest): Promise<undefined> {
    this.assertOpen();
    const fields = prepareUpdate(request);
    const limit = effectiveTimeout(this.options.updateTimeoutMs ?? DEFAULT_REMOTE_UPDATE_TIMEOUT_MS, request.timeoutMs);
    const exchange = this.startExchange(this.updates, limit, request.signal, 'update');
    // The remote's report of what it did (Virtuoso: "Insert into <g>, 3 triples") is not ours to relay.
    await postIgnoringAnswer(this.updates, fields, UPDATE_ACCEPT, exchange, false);
  }

  /** Statistics of the remote are not known (counting there could be expensive): none. */
  async describe(): Promise<ServiceDescriptionData> {
    return {};
  }

  getGraph(graph: GraphName, limits?: RequestLimits): Promise<QueryResult | undefined> {
    return this.graphStore.get(graph, limits);
  }

  putGraph(graph: GraphName, documents: GraphDocument | GraphDocument[], limits?: RequestLimits): Promise<GraphWriteResult> {
    return this.graphStore.write('put', graph, [documents].flat(), limits);
  }

  postGraph(graph: GraphName, documents: GraphDocument | GraphDocument[], limits?: RequestLimits): Promise<GraphWriteResult> {
    return this.graphStore.write('post', graph, [documents].flat(), limits);
  }

  deleteGraph(graph: GraphName, limits?: RequestLimits): Promise<boolean> {
    return this.graphStore.delete(graph, limits);
  }

  /** Healthy while the remote answers a trivial query (checked at most every HEALTH_CHECK_TTL_MS). */
  async health(): Promise<ServiceHealth> {
    if (this.closed) return { status: 'unavailable', store: 'closed', writable: false };
    const remote = await this.healthCheck.current();
    const up = remote.answering && !this.closed;
    return { status: up ? 'ok' : 'unavailable', store: up ? 'open' : 'closed', writable: up, remote };
  }

  /** Requests under way at the remote (nothing waits here: the remote queues), and counts since the start. */
  async metrics(): Promise<ServiceMetrics> {
    const purposes = [...this.running.values()];
    return {
      queriesRunning: purposes.filter((p) => p === 'query').length,
      queriesQueued: 0,
      updatesRunning: purposes.filter((p) => p === 'update').length,
      updatesQueued: 0,
      remote: this.statistics.snapshot(),
    };
  }

  /** Requests still running are stopped (their clients get 503): the remote stops their work too. */
  async close(): Promise<void> {
    this.closed = true;
    for (const exchange of [...this.running.keys()]) exchange.end('closed');
    this.queries.close();
    this.updates.close();
  }

  private startExchange(endpoint: RemoteEndpoint, timeoutMs: number, signal: CancelSignal | undefined, purpose: Purpose): RemoteExchange {
    const exchange = new RemoteExchange(endpoint.name, timeoutMs, signal, (done) => this.finished(done, purpose));
    // An exchange whose client is already gone has ended (and released itself) at birth.
    if (!exchange.aborted) this.running.set(exchange, purpose);
    return exchange;
  }

  private finished(exchange: RemoteExchange, purpose: Purpose): void {
    this.running.delete(exchange);
    if (purpose !== 'check') this.statistics.observe(exchange.elapsedMs, exchange.unsuccessful);
  }

  /** ASK {} at the remote, read to its end: resolves when the remote answers, rejects with our error otherwise. */
  private async askRemote(timeoutMs: number): Promise<void> {
    const exchange = this.startExchange(this.queries, timeoutMs, undefined, 'check');
    await postIgnoringAnswer(this.queries, new URLSearchParams({ query: 'ASK {}' }), SOLUTIONS_ACCEPT, exchange, true);
  }

  private assertOpen(): void {
    if (this.closed) throw new OverloadedError('the service is shutting down');
  }
}

export function createRemoteService(options: RemoteServiceOptions): RemoteService {
  return new RemoteService(options);
}

async function drain(body: RemoteBody): Promise<void> {
  for await (const chunk of body.chunks()) void chunk;
}

/** Posts a request whose success is all that matters: its answer is read to the end and dropped. */
async function postIgnoringAnswer(
  endpoint: RemoteEndpoint,
  form: URLSearchParams,
  accept: string,
  exchange: RemoteExchange,
  retryStale: boolean,
): Promise<void> {
  try {
    const response = await endpoint.post(form, accept, exchange, retryStale);
    await drain(response.body);
    exchange.answeredCompletely();
  } catch (error) {
    throw exchange.failure(error);
  } finally {
    exchange.release();
  }
}
