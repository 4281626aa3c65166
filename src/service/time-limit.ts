/**
 * Time limits of requests, the same rule for every service: the server sets the limit, and a
 * request's own `timeout` may only lower it.
 */

/** The server's limit, lowered (never raised) by the request's own. */
export function effectiveTimeout(serverLimitMs: number, requestedMs: number | undefined): number {
  if (requestedMs === undefined || !Number.isFinite(requestedMs) || requestedMs <= 0) return serverLimitMs;
  return Math.min(serverLimitMs, requestedMs);
}
