/**
 * Cross-origin access. By default any origin may call the endpoints (they are an API, like most
 * public SPARQL endpoints); a list of origins restricts that, an empty list switches CORS off.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const EXPOSED_HEADERS = 'Content-Disposition, Retry-After, Location, WWW-Authenticate, Quiver-Inserted, Quiver-Deleted';
const DEFAULT_ALLOWED_HEADERS = 'Accept, Authorization, Content-Type';

export function registerCors(app: FastifyInstance, allowedOrigins: string[]): void {
  if (allowedOrigins.length === 0) return;
  // A callback hook, not an async one: no promise per request for a few headers.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(corsHeaders(request.headers.origin, allowedOrigins));
    done();
  });
}

const ANY_ORIGIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS,
});

/** The CORS headers of every response to a request from `origin` (none when CORS is off). */
export function corsHeaders(origin: string | undefined, allowedOrigins: string[]): Readonly<Record<string, string>> {
  if (allowedOrigins.length === 0) return {};
  if (allowedOrigins.includes('*')) return ANY_ORIGIN_HEADERS;
  // The answer depends on Origin, so caches must keep one per origin, allowed or not.
  if (origin === undefined || !allowedOrigins.includes(origin)) return { vary: 'Origin' };
  return { vary: 'Origin', 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS };
}

/** Answers an OPTIONS request: a CORS preflight or a plain question about the allowed methods. */
export function answerOptions(request: FastifyRequest, reply: FastifyReply, allow: string): void {
  reply.header('allow', allow);
  if (request.headers['access-control-request-method'] !== undefined && reply.hasHeader('access-control-allow-origin')) {
    reply.header('access-control-allow-methods', allow);
    reply.header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? DEFAULT_ALLOWED_HEADERS);
    reply.header('access-control-max-age', '600');
  }
  reply.code(204).send();
}
