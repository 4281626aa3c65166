/**
 * How the remote endpoint's failures reach our client. A remote that refuses the request as
 * malformed (400) is the client's problem and stays a 400 with the remote's message; a remote that
 * is down, failing or answering nonsense is a bad gateway (502); a remote too slow for the time
 * limit is a gateway time-out (504, our TimeoutError).
 */
import { ProtocolError, QuiverError } from '../errors.js';

/** The remote endpoint could not be reached, failed, or answered something we cannot read. */
export class RemoteEndpointError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteEndpointError';
  }
}

/** The remote's own message is shown, but not a whole page of it (Virtuoso repeats the query). */
const MAX_REMOTE_MESSAGE = 2000;

/** The error for a remote answer with a status other than 2xx, from its status and body text. */
export function errorForRemoteStatus(status: number, statusText: string, body: string, endpoint: string): Error {
  const message = remoteMessage(body) || statusText || `status ${status}`;
  if (status === 400) return new ProtocolError(`the remote endpoint refused the request: ${message}`);
  if (status === 401 || status === 403) {
    return new RemoteEndpointError(
      `the remote endpoint ${endpoint} refused Quiver's credentials (${status}); check --remote-user/--remote-password or --remote-token: ${message}`,
    );
  }
  if (status === 408 || status === 504) return new RemoteTimeoutError(`the remote endpoint ${endpoint} timed out (${status}): ${message}`);
  return new RemoteEndpointError(`the remote endpoint ${endpoint} answered ${status}${statusText ? ` ${statusText}` : ''}: ${message}`);
}

/** A time-out the remote reported itself (our own time limit gives a TimeoutError). */
export class RemoteTimeoutError extends QuiverError {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteTimeoutError';
  }
}

function remoteMessage(body: string): string {
  const text = body.trim();
  return text.length > MAX_REMOTE_MESSAGE ? text.slice(0, MAX_REMOTE_MESSAGE) + '…' : text;
}

/** Why a request got no answer: the network-level cause (ECONNREFUSED, a reset socket…), on the error or its cause. */
export function networkCause(error: unknown): { code?: string; message: string } {
  const failure = error as { code?: unknown; message?: string; cause?: { code?: unknown; message?: string } } | null;
  // Only system-style codes (ECONNRESET, ABORT_ERR): parsers put phrases in `code` too.
  const code = [failure?.code, failure?.cause?.code].find((c): c is string => typeof c === 'string' && /^[A-Z][A-Z0-9_]+$/.test(c));
  const message = failure?.cause?.message ?? failure?.message ?? String(error);
  return { code, message };
}

/** A connection that failed before any answer, which is safe to retry for a query. */
export function isStaleConnection(error: unknown): boolean {
  const { code } = networkCause(error);
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** An endpoint URL fit for messages and logs: no user:password, no query string (it may carry keys). */
export function redactedEndpoint(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
