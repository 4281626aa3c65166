/**
 * Cross-origin access. By default any origin may call the endpoints (they are an API, like most
 * public SPARQL endpoints); a list of origins restricts that, an empty list switches CORS off.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const EXPOSED_HEADERS = 'Content-Disposition, Retry-After, Location, WWW-Authenticate';
const DEFAULT_ALLOWED_HEADERS = 'Accept, Authorization, Content-Type';

export function registerCors(app: FastifyInstance, allowedOrigins: string[]): void {
  if (allowedOrigins.length === 0) return;
  const anyOrigin = allowedOrigins.includes('*');
  // A callback hook, not an async one: no promise per request for a few headers.
  app.addHook('onRequest', (request, reply, done) => {
    allowOrigin(request, reply, anyOrigin, allowedOrigins);
    done();
  });
}

function allowOrigin(request: FastifyRequest, reply: FastifyReply, anyOrigin: boolean, allowedOrigins: string[]): void {
  const origin = request.headers.origin;
  if (anyOrigin) {
    reply.header('access-control-allow-origin', '*');
  } else {
    reply.header('vary', 'Origin');
    if (origin === undefined || !allowedOrigins.includes(origin)) return;
    reply.header('access-control-allow-origin', origin);
  }
  reply.header('access-control-expose-headers', EXPOSED_HEADERS);
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
