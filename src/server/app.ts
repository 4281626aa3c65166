/**
 * The HTTP face of Quiver: the SPARQL 1.1 Protocol endpoints of the service contract, in Fastify.
 * It only knows the SparqlService interface, so the same server fronts the embedded store and a
 * remote engine.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { SparqlService } from '../service/sparql-service.js';
import { resolveServerConfig, type ServerConfig } from './config.js';
import { registerCors } from './cors.js';
import { errorResponse, statusOf } from './error-response.js';
import { endpointPaths } from './handler-context.js';
import { HTML_CONTENT_SECURITY_POLICY } from './html.js';
import { errorFormatOf } from './request-context.js';
import { registerRoutes } from './routes.js';

export type { ServerConfig } from './config.js';

export function buildServer(service: SparqlService, config: ServerConfig = {}): FastifyInstance {
  const resolved = resolveServerConfig(config);
  const app = Fastify({
    logger: resolved.logger,
    bodyLimit: resolved.maxBody,
    trustProxy: resolved.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // Results may stream for as long as the query runs; the query timeout bounds that, not Node.
    requestTimeout: 0,
  });
  acceptEveryBodyAsBytes(app);
  registerCors(app, resolved.corsOrigins);
  protectHtml(app);
  handleErrors(app);
  registerRoutes(app, { service, config: resolved, paths: endpointPaths(resolved.basePath) });
  return app;
}

/**
 * Bodies arrive as raw bytes whatever their type: the routes decide what a media type means (and
 * answer 400/415 themselves), and decoding checks that the bytes really are UTF-8.
 */
function acceptEveryBodyAsBytes(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

/** Every HTML response carries the Content-Security-Policy, whichever code path wrote it. */
function protectHtml(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      reply.header('content-security-policy', HTML_CONTENT_SECURITY_POLICY);
      reply.header('x-content-type-options', 'nosniff');
    }
    return payload;
  });
}

function handleErrors(app: FastifyInstance): void {
  app.setErrorHandler(async (error, request, reply) => {
    if (reply.raw.headersSent) {
      // A late failure while streaming: cut the connection so the client sees an incomplete body.
      reply.raw.destroy();
      return;
    }
    const status = statusOf(error);
    if (status >= 500 && status !== 503 && status !== 504) request.log.error(error);
    const response = errorResponse(error, errorFormatOf(request));
    return reply.code(status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const response = errorResponse(
      { statusCode: 404, message: `nothing at ${request.url.split('?')[0]}` },
      errorFormatOf(request),
    );
    return reply.code(404).headers(response.headers).send(response.body);
  });
}
