/**
 * The one HTTP client for every request Quiver sends to another server: remote mode's queries and
 * updates (a pooled, kept-alive dispatcher per remote endpoint: EndpointClient) and what LOAD and
 * SERVICE fetch (a dispatcher per fetch whose connections are opened through a `lookup` of the
 * caller's: sendOnce, used by outbound-http.ts to check every address at connect time). Both are
 * undici's: one client for http and https, with its own HTTP/1.1 parser, pooling and backpressure,
 * and a connector that takes node:net's and node:tls's options (so `lookup` reaches the connect).
 *
 * undici is loaded by the first request: most processes send none, and a one-shot `quiver query`
 * would spend more on loading it than on its query.
 *
 * Remote mode over plain http has a faster path of its own (service/remote-http1.ts), which the
 * endpoint takes unless QUIVER_REMOTE_HTTP1=0; this client serves https, and plain http then.
 *
 * EndpointClient acknowledges the pieces of an answer as remote-http1.ts does (piece-acks.ts),
 * which takes the connection an answer arrives on: undici does not say it, so the connector marks
 * each connection as the one being read while its 'readable' event runs (undici reads in that
 * event's listener, which comes after ours: see watchReads). That relies on how undici 7 reads a
 * connection; should it read elsewhere, no connection is marked and nothing is acknowledged
 * (http-client.test.ts fails), but every answer is still read whole.
 */
import type { LookupFunction, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { buildConnector, Dispatcher } from 'undici';
import { BodyQueue } from './body-queue.js';
import { DEFAULT_ACK_PIECES, PieceAcks, type AckPieces } from './piece-acks.js';

type Undici = typeof import('undici');

let undici: Promise<Undici> | undefined;

/** Loads undici (once): a caller whose time limit starts with its first request loads it before. */
export function loadUndici(): Promise<Undici> {
  undici ??= import('undici');
  return undici;
}

/** The body of an answer, however it was received (this client, or remote mode's own HTTP/1.1 client). */
export interface ResponseBody {
  /** All of it (for answers of known, modest length); the promise rejects if the answer breaks off. */
  whole(): Promise<Buffer>;
  /** Its chunks as they arrive, read at the consumer's pace; leaving the loop early closes the connection. */
  chunks(): AsyncIterable<Buffer>;
  /** Nobody will read it: a kept-alive connection is freed for the next request (or closed). */
  discard(): void;
  /** Closes the connection at once. */
  destroy(): void;
}

/** The head of an answer, its body still unread. */
export interface HttpResponse {
  status: number;
  statusMessage: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  body: ResponseBody;
}

/** One request in flight: its answer, and a way to stop it wherever it is. */
export interface HttpExchange {
  readonly response: Promise<HttpResponse>;
  /** Whether it is over: answered to the last byte, failed or destroyed. */
  readonly destroyed: boolean;
  /** Stops it: a pending `response` or body read rejects with `error`, and the connection is closed. */
  destroy(error?: Error): void;
}

export interface EndpointRequest {
  url: URL;
  method: 'GET' | 'POST';
  /** Header names in lower case; `connection` is the client's to set. */
  headers: Record<string, string>;
  body?: Buffer | string;
}

export interface EndpointClientOptions {
  /** Keep connections open between requests (default: yes); false: `Connection: close` on each. */
  keepAlive?: boolean;
  /** How long a kept-alive connection waits unused before it is closed, ms; 0: none is kept. */
  idleMs?: number;
  /** Whether the pieces of an answer are acknowledged at once (piece-acks.ts); default DEFAULT_ACK_PIECES. */
  ackPieces?: AckPieces;
}

/**
 * undici gives up connecting after 10 s by default; here the caller's time limit decides, as it
 * does for the rest of the exchange (a query's, a fetch's), whatever it is.
 */
const NO_CONNECT_TIMEOUT = { timeout: 0 };

/**
 * The connections to one remote endpoint (and to wherever it redirects), kept alive and reused
 * between requests, as many at once as requests run at once.
 */
export class EndpointClient {
  private readonly reset: boolean;
  private readonly ackPieces: AckPieces;
  private dispatcher: Dispatcher | undefined;
  private loading: Promise<Dispatcher> | undefined;
  private closed = false;

  constructor(private readonly options: EndpointClientOptions = {}) {
    this.reset = options.keepAlive === false || options.idleMs === 0;
    // Only a kept connection needs acknowledging (a new one's ACKs are quick), nor could one closed
    // after the answer take our bytes (they could be answered with a reset, and the rest lost).
    this.ackPieces = this.reset ? 'off' : (options.ackPieces ?? DEFAULT_ACK_PIECES);
  }

  /** Sends a request; its answer resolves once its head is in. */
  send(request: EndpointRequest): HttpExchange {
    const exchange = new DispatchedExchange(this.ackPieces);
    const dispatch = (dispatcher: Dispatcher): void => {
      if (exchange.destroyed) return;
      try {
        dispatcher.dispatch(
          {
            origin: request.url.origin,
            path: `${request.url.pathname}${request.url.search}`,
            method: request.method,
            headers: request.headers,
            body: request.body,
            reset: this.reset,
          },
          exchange,
        );
      } catch (error) {
        // A request undici refuses to send (a header it does not allow): the exchange's failure.
        exchange.destroy(error as Error);
      }
    };
    if (this.dispatcher !== undefined) dispatch(this.dispatcher);
    else this.load().then(dispatch, (error: Error) => exchange.destroy(error));
    return exchange;
  }

  /** Closes every connection (requests under way are stopped). */
  close(): void {
    this.closed = true;
    void this.dispatcher?.destroy().catch(ignore);
  }

  private load(): Promise<Dispatcher> {
    this.loading ??= loadUndici().then(({ Agent, buildConnector }) => {
      const idleMs = this.options.idleMs;
      // The remote's Keep-Alive hint may shorten the idle time, never lengthen it past ours.
      const idle = idleMs === undefined || idleMs === 0 ? {} : { keepAliveTimeout: idleMs, keepAliveMaxTimeout: idleMs };
      const connect = this.ackPieces === 'off' ? NO_CONNECT_TIMEOUT : watchReads(buildConnector(NO_CONNECT_TIMEOUT));
      this.dispatcher = new Agent({ ...idle, connect });
      if (this.closed) void this.dispatcher.destroy().catch(ignore);
      return this.dispatcher;
    });
    return this.loading;
  }
}

/** The connection whose 'readable' event is running: the one undici reads now. */
let reading: Socket | undefined;

const readingDone = (): void => void (reading = undefined);

/**
 * A connector whose connections say when they are read: its listener of 'readable' comes before
 * undici's (added once the connector has handed the connection over), and the mark is gone once the
 * event's listeners have run.
 */
function watchReads(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...args) => {
      const socket = args[1];
      socket?.prependListener('readable', () => {
        reading = socket;
        queueMicrotask(readingDone);
      });
      callback(...args);
    });
}

/** A request and its answer, as undici's dispatcher reports them. */
class DispatchedExchange implements HttpExchange, Dispatcher.DispatchHandler {
  readonly response: Promise<HttpResponse>;
  private resolveResponse!: (response: HttpResponse) => void;
  private rejectResponse!: (error: Error) => void;
  private controller: Dispatcher.DispatchController | undefined;
  private body: DispatchedBody | undefined;
  private finished = false;
  /** Why it was stopped before undici gave us a way to stop it. */
  private stopped: Error | undefined;
  /** The acknowledgements of the answer's pieces, when its connection is known and kept open. */
  private acks: PieceAcks | undefined;
  private connection: Socket | undefined;
  private readPending = false;

  constructor(private readonly ackPieces: AckPieces) {
    this.response = new Promise((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
    });
  }

  get destroyed(): boolean {
    return this.finished || this.stopped !== undefined;
  }

  destroy(error: Error = abortError()): void {
    if (this.destroyed) return;
    this.stopped = error;
    if (this.controller !== undefined) this.controller.abort(error);
    else this.failWith(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped !== undefined) controller.abort(this.stopped);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    // Interim answers (100 Continue, 103 Early Hints) come before the real one.
    if (status < 200) return;
    if (this.ackPieces !== 'off' && reading !== undefined && !closesAfter(headers)) {
      this.connection = reading;
      this.acks = new PieceAcks(reading, this.ackPieces);
      // The read that brought the head counts: the remote may hold its body back until it is acknowledged.
      this.scheduleAck();
    }
    this.body = new DispatchedBody(controller, () => this.destroy());
    this.resolveResponse({ status, statusMessage: statusMessage ?? '', headers, body: this.body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.receive(chunk);
    // A read of the connection (not our consumer resuming a paused one, where no read runs).
    if (this.acks !== undefined && reading === this.connection) this.scheduleAck();
  }

  /** Acknowledges the read under way once undici has parsed all of it, if the answer is not complete by then. */
  private scheduleAck(): void {
    if (this.readPending) return;
    this.readPending = true;
    queueMicrotask(this.acknowledgeRead);
  }

  private readonly acknowledgeRead = (): void => {
    this.readPending = false;
    if (!this.finished) this.acks!.read();
  };

  onResponseEnd(): void {
    this.finished = true;
    if (this.acks !== undefined && !this.acks.complete()) {
      // Its empty lines must not come before another request: closed once undici is done with it
      // (it hands the connection to the next request only a turn of the event loop later).
      const connection = this.connection!;
      queueMicrotask(() => connection.destroy());
    }
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.failWith(this.stopped ?? connectionError(error));
  }

  private failWith(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    if (this.body !== undefined) this.body.fail(error);
    else this.rejectResponse(error);
  }
}

/** The body as it arrives, queued for its consumer (body-queue.ts), undici's controller its source. */
class DispatchedBody implements ResponseBody {
  private readonly queue: BodyQueue;
  private discarding = false;

  constructor(
    private readonly controller: Dispatcher.DispatchController,
    stop: () => void,
  ) {
    this.queue = new BodyQueue({ pause: () => controller.pause(), resume: () => controller.resume(), destroy: stop });
  }

  receive(chunk: Buffer): void {
    if (!this.discarding) this.queue.push(chunk);
  }

  end(): void {
    this.queue.end();
  }

  fail(error: Error): void {
    this.queue.fail(error);
  }

  whole(): Promise<Buffer> {
    return this.queue.whole();
  }

  chunks(): AsyncGenerator<Buffer> {
    return this.queue.chunks();
  }

  /** Read to its end and dropped: the connection stays for the next request. */
  discard(): void {
    this.discarding = true;
    this.queue.drop();
    this.controller.resume();
  }

  destroy(): void {
    this.queue.destroy();
  }
}

export interface OnceRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** How the name in the URL is resolved when the connection is opened (net.connect's `lookup`). */
  lookup?: LookupFunction;
  signal: AbortSignal;
}

/** The head of an answer to sendOnce, its body a stream; `close` ends the connection (whether read or not). */
export interface OnceResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  close(): void;
}

/**
 * One request on a connection of its own (`Connection: close`), never reused: a pooled connection
 * would skip the check its `lookup` makes of the address it goes to. The connection closes with the
 * body (read to its end or destroyed) or when `signal` aborts.
 */
export async function sendOnce(request: OnceRequest): Promise<OnceResponse> {
  const { Client } = await loadUndici();
  const client = new Client(request.url.origin, { connect: { ...NO_CONNECT_TIMEOUT, lookup: request.lookup }, pipelining: 1 });
  const close = (): void => void client.destroy().catch(ignore);
  try {
    const response = await client.request({
      path: `${request.url.pathname}${request.url.search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body,
      reset: true,
      signal: request.signal,
    });
    response.body.once('close', close);
    return { status: response.statusCode, headers: response.headers, body: response.body, close };
  } catch (error) {
    close();
    throw connectionError(error as Error);
  }
}

/** Whether the remote closes the connection after this answer (then nothing may be written on it). */
function closesAfter(headers: Record<string, string | string[] | undefined>): boolean {
  const connection = headers.connection;
  return (Array.isArray(connection) ? connection.join(',') : (connection ?? '')).toLowerCase().includes('close');
}

/**
 * undici's error for a connection that broke off, with the code node:net gives it (ECONNRESET):
 * callers tell a stale kept-alive connection or a reset by that code, whichever client they use.
 */
function connectionError(error: Error): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'UND_ERR_SOCKET') return error;
  return Object.assign(new Error(error.message, { cause: error }), { code: 'ECONNRESET' });
}

/** What a request is stopped with when no reason is given (the error an AbortSignal would give). */
function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

function ignore(): void {}
