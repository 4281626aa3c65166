/**
 * One HTTP exchange with the remote SPARQL endpoint at a time: a form POST (the one request shape
 * every SPARQL 1.1 Protocol server accepts, with no limit on the query's length), credentials that
 * go to the remote only, and a signal that ends the exchange when the time limit passes, the client
 * goes away or the service closes — whether the remote is still thinking or still streaming.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { CancelledError, OverloadedError, QuiverError, SyntaxError as QuiverSyntaxError, TimeoutError } from '../errors.js';
import { errorForRemoteStatus, isStaleConnection, networkCause, redactedEndpoint, RemoteEndpointError } from './remote-errors.js';
import { SpareConnection } from './remote-spare-connection.js';

export interface RemoteCredentials {
  /** HTTP Basic authentication. */
  user?: string;
  password?: string;
  /** A bearer token (wins over user and password). */
  token?: string;
}

type EndReason = 'timeout' | 'cancelled' | 'closed';

/**
 * The life of one request to the remote: from sending it to the last byte of its answer. Whatever
 * ends it early aborts the request, which closes the connection and so stops the remote's work too.
 */
export class RemoteExchange {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private reason: EndReason | undefined;
  private readonly onClientGone = (): void => this.end('cancelled');
  private released = false;
  private answered = false;
  private failed = false;
  private readonly startedAt = performance.now();

  constructor(
    readonly endpoint: string,
    private readonly timeoutMs: number,
    private readonly clientSignal: AbortSignal | undefined,
    private readonly onRelease: (exchange: RemoteExchange) => void,
  ) {
    this.timer = setTimeout(() => this.end('timeout'), timeoutMs);
    if (clientSignal?.aborted) this.end('cancelled');
    else clientSignal?.addEventListener('abort', this.onClientGone, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the exchange (if it still runs) for a reason our client will be told. */
  end(reason: EndReason): void {
    this.reason ??= reason;
    this.controller.abort();
    this.release();
  }

  /** The remote's answer has been read to its last byte: its connection can serve the next request. */
  answeredCompletely(): void {
    this.answered = true;
  }

  /** Milliseconds since the request was sent. */
  get elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** Whether the exchange ended without a complete answer through no doing of our client or our shutdown. */
  get unsuccessful(): boolean {
    return this.failed || this.reason === 'timeout';
  }

  /** The answer was read to its end, or nobody will read the rest: free the connection and timer. */
  release(): void {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    this.clientSignal?.removeEventListener('abort', this.onClientGone);
    // A body not read to its end would keep its connection busy: abort closes it. (Not otherwise:
    // an abort costs an exception object and keeps a kept-alive connection from being reused.)
    if (!this.answered) this.controller.abort();
    this.onRelease(this);
  }

  /** Our error for anything that went wrong while talking to the remote or reading its answer. */
  failure(error: unknown): Error {
    if (this.reason === undefined) this.failed = true;
    switch (this.reason) {
      case 'timeout':
        return new TimeoutError(`the remote endpoint ${this.endpoint} did not answer within the time limit (${this.timeoutMs} ms)`);
      case 'cancelled':
        return new CancelledError();
      case 'closed':
        return new OverloadedError('the service is shutting down');
    }
    // A syntax error here is in the remote's answer (an RDF document), not in our client's request.
    if (error instanceof QuiverError && !(error instanceof QuiverSyntaxError)) return error;
    const { code, message } = networkCause(error);
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
      return new RemoteEndpointError(`the remote endpoint ${this.endpoint} cannot be reached (${code}): ${message}`);
    }
    if (error instanceof Error && !code) {
      // A parser's complaint about the remote's answer (its results or RDF do not follow their format).
      return new RemoteEndpointError(`the answer of the remote endpoint ${this.endpoint} could not be read: ${error.message}`);
    }
    return new RemoteEndpointError(`the connection to the remote endpoint ${this.endpoint} failed${code ? ` (${code})` : ''}: ${message}`);
  }
}

/** Bytes of a remote error body we read for its message; the rest is dropped. */
const MAX_ERROR_BODY = 64 * 1024;

/** Redirects followed before giving up (a loop, or a login page that keeps sending us around). */
const MAX_REDIRECTS = 5;

/** A 2xx answer of the remote, its body still unread. */
export interface RemoteResponse {
  status: number;
  /** The media type of the body, lower case, without parameters ('' when the remote sent none). */
  mediaType: string;
  /** Bytes of the body when the remote said (Content-Length). */
  length?: number;
  body: IncomingMessage;
}

export interface ConnectionPolicy {
  /**
   * Whether connections are kept open between requests. Default: only for https, where a new
   * connection costs a TLS handshake. Over plain http every request has a connection of its own:
   * servers that leave Nagle's algorithm on and write an answer in pieces (Virtuoso 7: headers,
   * then the body in 32 KiB writes) wait for our ACK of each piece, and on a kept-alive connection
   * Linux delays that ACK by 40 ms (delayed ACK in interactive mode); a fresh connection
   * acknowledges at once. A connection costs well under a millisecond on a local network, and
   * for queries it is opened ahead (see SpareConnection).
   */
  keepAlive?: boolean;
  /** How long a connection opened ahead waits for its request; 0: none is opened ahead. Default SPARE_IDLE_MS. */
  spareIdleMs?: number;
}

export class RemoteEndpoint {
  readonly url: string;
  /** For messages and logs: without credentials or query string. */
  readonly name: string;
  private readonly authorization: string | undefined;
  private readonly agents: { http: HttpAgent; https: HttpsAgent };
  private readonly target: URL;
  /** A connection opened ahead for the next query (plain http without keep-alive only). */
  private readonly spare: SpareConnection | undefined;
  private readonly replenishSpare = (): void => this.spare?.replenish();
  private readonly replenishSoon = (): void => void setImmediate(this.replenishSpare);

  constructor(endpoint: string, credentials: RemoteCredentials = {}, policy: ConnectionPolicy = {}) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new TypeError(`the remote endpoint must be an absolute http(s) URL, not '${endpoint.replace(/\/\/[^@/]*@/, '//…@')}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the remote endpoint must be an http(s) URL, not ${url.protocol}`);
    // User and password in the URL become Basic credentials (unless others are given), never part of a request line.
    const fromUrl = { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = '';
    url.password = '';
    this.url = url.href;
    this.target = url;
    this.name = redactedEndpoint(url);
    this.authorization = authorizationHeader(credentials.user || credentials.token ? credentials : fromUrl);
    const keepAlive = policy.keepAlive ?? url.protocol === 'https:';
    this.agents = { http: new HttpAgent({ keepAlive }), https: new HttpsAgent({ keepAlive }) };
    if (!keepAlive && url.protocol === 'http:' && policy.spareIdleMs !== 0) {
      const port = Number(url.port || 80);
      // The hostname of a URL keeps an IPv6 address in brackets; connect wants it bare.
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      this.spare = new SpareConnection(() => connect({ host, port }), policy.spareIdleMs);
    }
  }

  /**
   * Sends a form and resolves with the remote's 2xx response, its body still unread. Any other
   * status rejects with our error for it; a query (`retryStale`) is sent once more when a kept-alive
   * connection turns out to have been closed by the remote (it restarted) before answering.
   */
  async post(form: URLSearchParams, accept: string, exchange: RemoteExchange, retryStale: boolean): Promise<RemoteResponse> {
    const body = Buffer.from(form.toString(), 'utf8');
    let response: IncomingMessage;
    try {
      // Only a request that may be sent again takes a connection opened ahead: the remote could
      // close one just as we use it.
      response = await this.sendFollowingRedirects(body, accept, exchange, retryStale);
    } catch (error) {
      if (!retryStale || !isStaleConnection(error) || exchange.signal.aborted) throw exchange.failure(error);
      try {
        response = await this.sendFollowingRedirects(body, accept, exchange, false);
      } catch (again) {
        throw exchange.failure(again);
      }
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return { status, mediaType: mediaTypeOf(response), length: contentLength(response), body: response };
    const text = await boundedText(response).catch(() => '');
    const error = exchange.failure(errorForRemoteStatus(status, response.statusMessage ?? '', text, this.name));
    exchange.release();
    throw error;
  }

  /** Stops the connections kept for reuse (over plain http: the one opened ahead). */
  close(): void {
    this.spare?.close();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async sendFollowingRedirects(body: Buffer, accept: string, exchange: RemoteExchange, mayTakeSpare: boolean): Promise<IncomingMessage> {
    let target = this.target;
    for (let hops = 0; ; hops++) {
      // Credentials are for the remote we were given, not for wherever it sends us.
      const authorization = target === this.target || target.origin === this.target.origin ? this.authorization : undefined;
      const response = await this.send(target, body, accept, authorization, exchange.signal, mayTakeSpare && target === this.target);
      const location = isRedirect(response.statusCode) ? response.headers.location : undefined;
      if (location === undefined || hops >= MAX_REDIRECTS) return response;
      response.resume();
      target = new URL(location, target);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new RemoteEndpointError(`the remote endpoint ${this.name} redirected to a ${target.protocol} URL`);
    }
  }

  /**
   * One POST, its headers and form in a single write (Content-Length known), on the connection
   * opened ahead when there is one; once the answer has been read, the next one is opened.
   */
  private send(target: URL, body: Buffer, accept: string, authorization: string | undefined, signal: AbortSignal, mayTakeSpare: boolean): Promise<IncomingMessage> {
    const headers: OutgoingHttpHeaders = {
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      'content-length': body.length,
      accept,
    };
    if (authorization) headers.authorization = authorization;
    const https = target.protocol === 'https:';
    const socket = mayTakeSpare ? this.spare?.take() : undefined;
    // Without an agent, a request goes out on the connection createConnection returns, and closes it after the answer.
    const options: RequestOptions = socket
      ? { method: 'POST', headers, signal, createConnection: () => socket }
      : { method: 'POST', headers, signal, agent: https ? this.agents.https : this.agents.http };
    return new Promise((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(target, options, (response) => {
        // Once the answer is read, after that turn of the event loop (it has been sent on to our
        // client by then): opening a connection costs a wake-up of the remote and of us, which
        // would only slow the rest of a large answer down.
        if (mayTakeSpare && this.spare) response.once('end', this.replenishSoon);
        resolve(response);
      });
      request.once('socket', (socket) => socket.setNoDelay(true));
      request.once('error', reject);
      request.end(body);
    });
  }
}

function isRedirect(status: number | undefined): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function mediaTypeOf(response: IncomingMessage): string {
  return (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function contentLength(response: IncomingMessage): number | undefined {
  const header = response.headers['content-length'];
  // Compressed or chunked bodies have no length we could rely on (we ask for neither encoding).
  if (header === undefined || response.headers['content-encoding'] !== undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function authorizationHeader(credentials: RemoteCredentials): string | undefined {
  if (credentials.token) return `Bearer ${credentials.token}`;
  if (credentials.user) return `Basic ${Buffer.from(`${credentials.user}:${credentials.password ?? ''}`).toString('base64')}`;
  return undefined;
}

async function boundedText(response: IncomingMessage): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length >= MAX_ERROR_BODY) break;
    }
  } finally {
    response.destroy();
  }
  return text;
}
