/**
 * One HTTP exchange with the remote SPARQL endpoint at a time: a form POST (the one request shape
 * every SPARQL 1.1 Protocol server accepts, with no limit on the query's length), credentials that
 * go to the remote only, and an exchange that stops the request when the time limit passes, the
 * client goes away or the service closes — whether the remote is still thinking or still streaming.
 */
import { connect, type Socket } from 'node:net';
import { CancelledError, OverloadedError, QuiverError, SparqlSyntaxError, TimeoutError } from '../errors.js';
import { DEFAULT_ACK_PIECES, EndpointClient, type AckPieces } from '../net/index.js';
import { errorForRemoteStatus, isStaleConnection, networkCause, redactedEndpoint, RemoteEndpointError } from './remote-errors.js';
import { Http1Exchange, type RemoteBody } from './remote-http1.js';
import { SPARE_IDLE_MS, SpareConnections } from './remote-spare-connections.js';
import type { CancelSignal } from './sparql-service.js';

export type { RemoteBody } from './remote-http1.js';

export interface RemoteCredentials {
  /** HTTP Basic authentication. */
  user?: string;
  password?: string;
  /** A bearer token (wins over user and password). */
  token?: string;
}

type EndReason = 'timeout' | 'cancelled' | 'closed';

/** A request under way: net/'s client's exchange, or our own on a connection of its own (remote-http1.ts). */
interface RequestUnderWay {
  readonly destroyed: boolean;
  destroy(error?: Error): unknown;
}

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
  private request: RequestUnderWay | undefined;
  private readonly startedAt = performance.now();

  constructor(
    readonly endpoint: string,
    private readonly timeoutMs: number,
    private readonly clientSignal: CancelSignal | undefined,
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
  attach(request: RequestUnderWay): void {
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
    if (error instanceof QuiverError && !(error instanceof SparqlSyntaxError)) return error;
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
  body: RemoteBody;
}

/** An answer as received, redirects included. */
interface Received {
  status: number;
  statusMessage: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  body: RemoteBody;
}

export interface ConnectionPolicy {
  /**
   * Whether connections are kept open between requests (default: yes). false: every request has a
   * connection of its own (`Connection: close`). Either way, over plain http, when no kept
   * connection is ready, the next query's connection is opened ahead, once an answer has been read
   * (see SpareConnections).
   */
  keepAlive?: boolean;
  /**
   * Whether the pieces of an answer are
   * acknowledged at once, and whether a connection that carried such an acknowledgement is reused:
   * see AckPieces. Default DEFAULT_ACK_PIECES.
   */
  ackPieces?: AckPieces;
  /**
   * How long a connection kept or opened ahead waits for its request; 0: none is kept or opened
   * ahead (a new connection per request). Default SPARE_IDLE_MS.
   */
  spareIdleMs?: number;
}

export class RemoteEndpoint {
  readonly url: string;
  /** For messages and logs: without credentials or query string. */
  readonly name: string;
  private readonly authorization: string | undefined;
  /** https, and plain http when our own client is switched off (QUIVER_REMOTE_HTTP1=0): net/'s pooled client. */
  private readonly client: EndpointClient;
  private readonly keepAlive: boolean;
  private readonly ackPieces: AckPieces;
  private readonly target: URL;
  private readonly destination: Destination;
  /** Connections kept or opened ahead for the next queries (plain http only). */
  private readonly spare: SpareConnections | undefined;
  private readonly replenishSpare = (): void => this.spare?.replenish();
  private readonly replenishSoon = (): void => void setImmediate(this.replenishSpare);
  /**
   * After an answer: its connection, kept for the next query, or a new one opened for it, after
   * that turn of the event loop (the answer has been sent on to our client by then): opening a
   * connection costs a wake-up of the remote and of us.
   */
  private readonly answerRead = (reusable: Socket | undefined): void => {
    if (reusable !== undefined) this.spare!.keep(reusable);
    else this.replenishSoon();
  };
  /** After an update's answer: its connection, kept for the next query (none is opened ahead for updates). */
  private readonly keepConnection = (reusable: Socket | undefined): void => {
    if (reusable !== undefined) this.spare!.keep(reusable);
  };

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
    this.keepAlive = policy.keepAlive ?? true;
    this.ackPieces = policy.ackPieces ?? DEFAULT_ACK_PIECES;
    this.destination = destinationOf(url, this.keepAlive);
    this.client = new EndpointClient({ keepAlive: this.keepAlive, idleMs: policy.spareIdleMs ?? SPARE_IDLE_MS, ackPieces: this.ackPieces });
    const open = this.destination.ownConnection;
    if (open !== undefined && policy.spareIdleMs !== 0) this.spare = new SpareConnections(open, policy.spareIdleMs);
  }

  /**
   * Sends a form and resolves with the remote's 2xx response, its body still unread. Any other
   * status rejects with our error for it; a query (`retryStale`) is sent once more when a kept-alive
   * connection turns out to have been closed by the remote (it restarted) before answering.
   */
  async post(form: Iterable<[string, string]>, accept: string, exchange: RemoteExchange, retryStale: boolean): Promise<RemoteResponse> {
    const body = formBody(form);
    let response: Received;
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
    const status = response.status;
    if (status >= 200 && status < 300) return { status, mediaType: mediaTypeOf(response), length: contentLength(response), body: response.body };
    const text = await boundedText(response.body).catch(() => '');
    const error = exchange.failure(errorForRemoteStatus(status, response.statusMessage, text, this.name));
    exchange.release();
    throw error;
  }

  /** Closes the connections kept for reuse or opened ahead. */
  close(): void {
    this.spare?.close();
    this.client.close();
  }

  private async sendFollowingRedirects(body: Buffer, accept: string, exchange: RemoteExchange, mayTakeSpare: boolean): Promise<Received> {
    let response = await this.send(this.destination, body, accept, this.authorization, exchange, mayTakeSpare);
    let target = this.target;
    for (let hops = 0; hops < MAX_REDIRECTS; hops++) {
      const location = isRedirect(response.status) ? response.headers.location : undefined;
      if (typeof location !== 'string') return response;
      response.body.discard();
      target = new URL(location, target);
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new RemoteEndpointError(`the remote endpoint ${this.name} redirected to a ${target.protocol} URL`);
      // Credentials are for the remote we were given, not for wherever it sends us.
      const authorization = target.origin === this.target.origin ? this.authorization : undefined;
      response = await this.send(destinationOf(target, this.keepAlive), body, accept, authorization, exchange, false);
    }
    return response;
  }

  /**
   * One POST, its headers and form in a single write (Content-Length known). Over plain http, read
   * by our own client (remote-http1.ts), on a connection kept or opened ahead when there is one,
   * else a new one; once the answer has been read, its connection is kept for the next query or
   * another is opened ahead. Over https, net/'s client (http-client.ts) with its pooled connections
   * (and over plain http too, when our own client is switched off).
   */
  private send(
    destination: Destination,
    body: Buffer,
    accept: string,
    authorization: string | undefined,
    exchange: RemoteExchange,
    mayTakeSpare: boolean,
  ): Promise<Received> {
    if (exchange.aborted) return Promise.reject(abortError());
    if (destination.ownConnection !== undefined) {
      const spare = mayTakeSpare ? this.spare?.take() : undefined;
      const socket = spare ?? destination.ownConnection();
      // Connections to where a redirect sent us are not kept: spares are for our remote.
      const onComplete = this.spare === undefined || destination !== this.destination ? undefined : mayTakeSpare ? this.answerRead : this.keepConnection;
      const request = new Http1Exchange(socket, requestBytes(destination, body, accept, authorization), this.keepAlive, onComplete, this.ackPieces);
      exchange.attach(request);
      return request.response;
    }
    const headers: Record<string, string> = { 'content-type': FORM_MEDIA_TYPE, 'content-length': String(body.length), accept };
    if (authorization) headers.authorization = authorization;
    const request = this.client.send({ url: destination.url, method: 'POST', headers, body });
    exchange.attach(request);
    return request.response;
  }
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';

/** Where a request goes, worked out once per URL. */
interface Destination {
  url: URL;
  /** Plain http: opens a connection (our own client reads its answers); undefined: net/'s client does. */
  ownConnection?: () => Socket;
  /** The request line and the headers every request has, for our own client. */
  requestStart: string;
}

/**
 * Whether plain http goes through our own HTTP/1.1 client (remote-http1.ts): QUIVER_REMOTE_HTTP1=0
 * sends it through net/'s client instead, the path https takes, to compare the two or if ours is ever
 * suspected. Read for each destination, when its endpoint is made (or redirected to).
 */
function ownHttp1Client(): boolean {
  return process.env.QUIVER_REMOTE_HTTP1 !== '0';
}

function destinationOf(url: URL, keepAlive: boolean): Destination {
  const https = url.protocol === 'https:';
  // The hostname of a URL keeps an IPv6 address in brackets; connect wants it bare.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (https ? 443 : 80));
  const path = `${url.pathname}${url.search}`;
  const ownConnection = https || !ownHttp1Client() ? undefined : (): Socket => connect({ host: hostname, port }).setNoDelay(true);
  // The URL parser has percent-encoded the path and punycoded the host: both are ASCII.
  const requestStart = `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${keepAlive ? '' : 'Connection: close\r\n'}Content-Type: ${FORM_MEDIA_TYPE}\r\n`;
  return { url, ownConnection, requestStart };
}

/** The request for our own client: head and form in one buffer, for one write. */
function requestBytes(destination: Destination, form: Buffer, accept: string, authorization: string | undefined): Buffer {
  const head = `${destination.requestStart}Content-Length: ${form.length}\r\nAccept: ${accept}\r\n${authorization ? `Authorization: ${authorization}\r\n` : ''}\r\n`;
  // Every header is ASCII (see authorizationHeader), so a character is a byte.
  const bytes = Buffer.allocUnsafe(head.length + form.length);
  bytes.write(head, 0, 'latin1');
  form.copy(bytes, head.length);
  return bytes;
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

/** What a request is destroyed with when its exchange stops (the error an AbortSignal would give). */
function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

function isRedirect(status: number | undefined): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function mediaTypeOf(response: Received): string {
  return String(response.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
}

function contentLength(response: Received): number | undefined {
  const header = response.headers['content-length'];
  // Compressed or chunked bodies have no length we could rely on (we ask for neither encoding).
  if (typeof header !== 'string' || response.headers['content-encoding'] !== undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function authorizationHeader(credentials: RemoteCredentials): string | undefined {
  if (credentials.token) {
    // A header value, written as it is: printable ASCII only (RFC 6750's token characters are fewer still).
    if (!/^[\x21-\x7e]+$/.test(credentials.token)) throw new TypeError('the remote token may only contain printable ASCII characters (no spaces)');
    return `Bearer ${credentials.token}`;
  }
  if (credentials.user) return `Basic ${Buffer.from(`${credentials.user}:${credentials.password ?? ''}`).toString('base64')}`;
  return undefined;
}

async function boundedText(body: RemoteBody): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of body.chunks()) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length >= MAX_ERROR_BODY) break;
    }
  } finally {
    body.destroy();
  }
  return text;
}
