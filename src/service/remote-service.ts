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
import { RemoteEndpoint, RemoteExchange, type RemoteCredentials } from './remote-endpoint.js';
import { RemoteGraphStore } from './remote-graph-store.js';
import { prepareQuery, prepareUpdate } from './remote-request.js';
import { QUADS_ACCEPT, SOLUTIONS_ACCEPT, quadsFromResponse, solutionsFromResponse } from './remote-results.js';
import type {
  GraphDocument,
  GraphName,
  GraphWriteResult,
  QueryRequest,
  QueryResult,
  RequestLimits,
  ServiceDescriptionData,
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
}

export const DEFAULT_REMOTE_QUERY_TIMEOUT_MS = 60_000;
export const DEFAULT_REMOTE_UPDATE_TIMEOUT_MS = 300_000;

const UPDATE_ACCEPT = 'application/sparql-results+json, application/json;q=0.9, text/plain;q=0.8, */*;q=0.1';

export class RemoteService implements SparqlService {
  private readonly queries: RemoteEndpoint;
  private readonly updates: RemoteEndpoint;
  private readonly running = new Set<RemoteExchange>();
  private readonly graphStore = new RemoteGraphStore(this);
  private closed = false;

  constructor(private readonly options: RemoteServiceOptions) {
    const credentials = { user: options.user, password: options.password, token: options.token };
    this.queries = new RemoteEndpoint(options.queryEndpoint, credentials);
    this.updates = new RemoteEndpoint(options.updateEndpoint ?? options.queryEndpoint, credentials);
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
    const exchange = this.startExchange(this.queries, limit, request.signal);
    const isGraph = prepared.form === 'construct' || prepared.form === 'describe';
    try {
      const response = await this.queries.post(prepared.fields, isGraph ? QUADS_ACCEPT : SOLUTIONS_ACCEPT, exchange, true);
      if (isGraph) return quadsFromResponse(response, exchange, prepared.prefixes);
      return await solutionsFromResponse(response, exchange, prepared.form === 'ask');
    } catch (error) {
      exchange.release();
      throw error;
    }
  }

  async update(request: UpdateRequest): Promise<void> {
    this.assertOpen();
    const fields = prepareUpdate(request);
    const limit = effectiveTimeout(this.options.updateTimeoutMs ?? DEFAULT_REMOTE_UPDATE_TIMEOUT_MS, request.timeoutMs);
    const exchange = this.startExchange(this.updates, limit, request.signal);
    try {
      const response = await this.updates.post(fields, UPDATE_ACCEPT, exchange, false);
      // The remote's report of what it did (Virtuoso: "Insert into <g>, 3 triples") is not ours to relay.
      await response.arrayBuffer();
      exchange.answeredCompletely();
    } catch (error) {
      throw exchange.failure(error);
    } finally {
      exchange.release();
    }
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

  /** Requests still running are stopped (their clients get 503): the remote stops their work too. */
  async close(): Promise<void> {
    this.closed = true;
    for (const exchange of [...this.running]) exchange.end('closed');
  }

  private startExchange(endpoint: RemoteEndpoint, timeoutMs: number, signal: AbortSignal | undefined): RemoteExchange {
    const exchange = new RemoteExchange(endpoint.name, timeoutMs, signal, (done) => this.running.delete(done));
    // An exchange whose client is already gone has ended (and released itself) at birth.
    if (!exchange.signal.aborted) this.running.add(exchange);
    return exchange;
  }

  private assertOpen(): void {
    if (this.closed) throw new OverloadedError('the service is shutting down');
  }
}

export function createRemoteService(options: RemoteServiceOptions): RemoteService {
  return new RemoteService(options);
}

/** The server's limit, lowered (never raised) by the request's own. */
function effectiveTimeout(serverLimitMs: number, requestedMs: number | undefined): number {
  if (requestedMs === undefined || !Number.isFinite(requestedMs) || requestedMs <= 0) return serverLimitMs;
  return Math.min(serverLimitMs, requestedMs);
}
