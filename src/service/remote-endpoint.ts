/**
 * One HTTP exchange with the remote SPARQL endpoint at a time: a form POST (the one request shape
 * every SPARQL 1.1 Protocol server accepts, with no limit on the query's length), credentials that
 * go to the remote only, and an exchange that stops the request when the time limit passes, the
 * client goes away or the service closes — whether the remote is still thinking or still streaming.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
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
 * ends it early destroys the request under way, which closes the connection and so stops the
 * remote's work too. (No AbortController: a signal and its listeners on every request cost more
 * than the request's own JavaScript; the exchange knows the one request it has to stop.)
 */
export class RemoteExchange {
  private readonly timer: NodeJS.Timeout;
  private reason: EndReason | undefined;
  private readonly onClientGone = (): void => this.end('cancelled');
  private released = false;
  private answered = false;
  private failed = false;
  private stopped = false;
  /** The request to the remote under way (the last one sent: a redirect or a retry replaces it). */
  private request: ClientRequest | undefined;
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

  /** Whether the exchange was stopped: no request may be sent for it any more. */
  get aborted(): boolean {
    return this.stopped;
  }

  /** The request now sent for this exchange, destroyed if the exchange stops before its answer is read. */
  attach(request: ClientRequest): void {
    this.request = request;
    if (this.stopped) request.destroy(abortError());
  }

  /** Stops the exchange (if it still runs) for a reason our client will be told. */
  end(reason: EndReason): void {
    this.reason ??= reason;
    this.stop();
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
    // A body not read to its end would keep its connection busy: destroying it closes it. (Not
    // otherwise: that costs an exception object and keeps a kept-alive connection from being reused.)
    if (!this.answered) this.stop();
    this.request = undefined;
    this.onRelease(this);
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const request = this.request;
    if (request !== undefined && !request.destroyed) request.destroy(abortError());
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
  private readonly destination: Destination;
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
    this.destination = destinationOf(url);
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
  async post(form: Iterable<[string, string]>, accept: string, exchange: RemoteExchange, retryStale: boolean): Promise<RemoteResponse> {
    const body = formBody(form);
    let response: IncomingMessage;
    try {
      // Only a request that may be sent again takes a connection opened ahead: the remote could
      // close one just as we use it.
      response = await this.sendFollowingRedirects(body, accept, exchange, retryStale);
    } catch (error) {
      if (!retryStale || !isStaleConnection(error) || exchange.aborted) throw exchange.failure(error);
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
    let response = await this.send(this.destination, body, accept, this.authorization, exchange, mayTakeSpare);
    let target = this.target;
    for (let hops = 0; hops < MAX_REDIRECTS; hops++) {
      const location = isRedirect(response.statusCode) ? response.headers.location : undefined;
      if (location === undefined) return response;
      response.resume();
      target = new URL(location, target);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new RemoteEndpointError(`the remote endpoint ${this.name} redirected to a ${target.protocol} URL`);
      // Credentials are for the remote we were given, not for wherever it sends us.
      const authorization = target.origin === this.target.origin ? this.authorization : undefined;
      response = await this.send(destinationOf(target), body, accept, authorization, exchange, false);
    }
    return response;
  }

  /**
   * One POST, its headers and form in a single write (Content-Length known), on the connection
   * opened ahead when there is one; once the answer has been read, the next one is opened.
   */
  private send(destination: Destination, body: Buffer, accept: string, authorization: string | undefined, exchange: RemoteExchange, mayTakeSpare: boolean): Promise<IncomingMessage> {
    if (exchange.aborted) return Promise.reject(abortError());
    const headers: OutgoingHttpHeaders = { 'content-type': FORM_MEDIA_TYPE, 'content-length': body.length, accept };
    if (authorization) headers.authorization = authorization;
    const socket = mayTakeSpare ? this.spare?.take() : undefined;
    // Without an agent, a request goes out on the connection createConnection returns, and closes it
    // after the answer. Options rather than a URL: Node would convert the URL on every request.
    const options: RequestOptions = { ...destination.options, headers };
    if (socket) options.createConnection = () => socket;
    else options.agent = destination.https ? this.agents.https : this.agents.http;
    return new Promise((resolve, reject) => {
      const request = (destination.https ? httpsRequest : httpRequest)(options, (response) => {
        // Once the answer is read, after that turn of the event loop (it has been sent on to our
        // client by then): opening a connection costs a wake-up of the remote and of us, which
        // would only slow the rest of a large answer down.
        if (mayTakeSpare && this.spare) response.once('end', this.replenishSoon);
        resolve(response);
      });
      // A spare has had Nagle's algorithm turned off when it was opened.
      if (!socket) request.once('socket', noDelay);
      request.once('error', reject);
      exchange.attach(request);
      request.end(body);
    });
  }
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';

/** Where a request goes: node:http's options for a URL, worked out once. */
interface Destination {
  https: boolean;
  options: Readonly<Pick<RequestOptions, 'method' | 'protocol' | 'hostname' | 'port' | 'path'>>;
}

function destinationOf(url: URL): Destination {
  const https = url.protocol === 'https:';
  // The hostname of a URL keeps an IPv6 address in brackets; node:http wants it bare.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { https, options: { method: 'POST', protocol: url.protocol, hostname, port: url.port || (https ? 443 : 80), path: `${url.pathname}${url.search}` } };
}

/**
 * The form as application/x-www-form-urlencoded bytes. encodeURIComponent rather than
 * URLSearchParams' serializer (which builds its string a character at a time: 17 KB of garbage
 * per BSBM query): it leaves a few more characters as they are (`!'()*~`, which a form decoder
 * reads as themselves) and writes a space as %20, which every decoder reads as a space.
 */
export function formBody(form: Iterable<[string, string]>): Buffer {
  let text = '';
  for (const [name, value] of form) text += `${text === '' ? '' : '&'}${formComponent(name)}=${formComponent(value)}`;
  // Percent-encoded: ASCII only, so latin1 is exact (and cheaper than utf8).
  return Buffer.from(text, 'latin1');
}

function formComponent(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate (only from an API caller: request bodies are decoded text): sent as U+FFFD, as URLSearchParams does.
    return new URLSearchParams({ v: text }).toString().slice(2);
  }
}

function noDelay(socket: Socket): void {
  socket.setNoDelay(true);
}

/** What a request is destroyed with when its exchange stops (the error an AbortSignal would give). */
function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
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
