/**
 * The node:http server under both front doors (Fastify's routes and direct-queries.ts), with the
 * rules that hold for every connection whichever door a request takes:
 *
 * - A connection cannot be held open for free. A request (its headers and its body) must arrive
 *   within the body timeout, or it is answered 408 and the connection closed; a connection that
 *   never sends a byte is closed the same way. A request answered before its body was read (a 401,
 *   a 413) is no exception: Node keeps reading what is left of the body, until the same deadline.
 *   The deadline ends once the request is in: a query that runs, or a result that streams, for
 *   longer is not cut (the query timeout bounds those). Idle keep-alive connections close after
 *   the keep-alive timeout.
 * - Requests pipelined on one connection are handled in order when one of them is unsafe (RFC 9112
 *   §9.3.2 allows parallel processing only for safe methods): a request after an unsafe one waits
 *   until that one is answered, and an unsafe one waits for every earlier one. So an ASK pipelined
 *   after an INSERT sees it. A connection that sends one request at a time never waits.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** Fastify's default: longer than the 60 s idle timeout of common load balancers, so they close first. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** Node's default time limit for the headers alone, when the body timeout is not shorter. */
const MAX_HEADERS_TIMEOUT_MS = 60_000;

export interface ConnectionLimits {
  /** A request, headers and body, must arrive within this many milliseconds. */
  bodyTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many milliseconds. */
  keepAliveTimeoutMs: number;
}

/**
 * `writesBySafeMethod`: requests that write although their method is safe (SPARQL's GET updates);
 * they keep their turn as unsafe requests do.
 */
export function createHttpServer(
  handler: RequestListener,
  limits: ConnectionLimits,
  writesBySafeMethod: (request: IncomingMessage) => boolean = () => false,
): Server {
  return createServer(
    {
      requestTimeout: limits.bodyTimeoutMs,
      // Node requires the headers' limit to be no longer than the whole request's.
      headersTimeout: Math.min(MAX_HEADERS_TIMEOUT_MS, limits.bodyTimeoutMs),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node looks for requests past their deadline (its default, 30 s, would let a
      // 30 s limit hold a connection for up to a minute).
      connectionsCheckingInterval: checkingInterval(limits.bodyTimeoutMs),
    },
    inOrderWhenUnsafe(handler, writesBySafeMethod),
  );
}

function checkingInterval(timeoutMs: number): number {
  return Math.min(5_000, Math.max(50, Math.floor(timeoutMs / 4)));
}

/** Methods RFC 9110 defines as safe: requests with them may run side by side. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

interface ConnectionTurns {
  /** Requests of this connection being handled now. */
  running: number;
  /** Whether the one request running is unsafe (nothing runs beside an unsafe request). */
  unsafeRunning: boolean;
  /** Requests that arrived while they could not start, in arrival order. */
  waiting: [IncomingMessage, ServerResponse][];
}

/** The handler, called for each request of a connection as soon as the ordering rule lets it run. */
export function inOrderWhenUnsafe(handler: RequestListener, writesBySafeMethod: (request: IncomingMessage) => boolean = () => false): RequestListener {
  const connections = new WeakMap<Socket, ConnectionTurns>();
  const isUnsafe = (request: IncomingMessage): boolean => !SAFE_METHODS.has(request.method ?? '') || writesBySafeMethod(request);
  const mayStart = (turns: ConnectionTurns, request: IncomingMessage): boolean => turns.running === 0 || (!turns.unsafeRunning && !isUnsafe(request));
  const start = (turns: ConnectionTurns, request: IncomingMessage, response: ServerResponse): void => {
    const unsafe = isUnsafe(request);
    turns.running++;
    turns.unsafeRunning = unsafe;
    // 'close' comes once the response is sent, or when the connection broke before that.
    response.once('close', () => {
      turns.running--;
      turns.unsafeRunning = false;
      while (turns.waiting.length > 0 && mayStart(turns, turns.waiting[0]![0])) {
        const [next, nextResponse] = turns.waiting.shift()!;
        start(turns, next, nextResponse);
      }
    });
    handler(request, response);
  };
  return (request, response) => {
    let turns = connections.get(request.socket);
    if (turns === undefined) {
      turns = { running: 0, unsafeRunning: false, waiting: [] };
      connections.set(request.socket, turns);
    }
    if (turns.waiting.length === 0 && mayStart(turns, request)) start(turns, request, response);
    else turns.waiting.push([request, response]);
  };
}
