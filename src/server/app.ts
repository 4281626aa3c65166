/**
 * The HTTP face of Quiver: the SPARQL 1.1 Protocol endpoints of the service contract, in Fastify.
 * It only knows the SparqlService interface, so the same server fronts the embedded store and a
 * remote engine.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactoryHandler } from 'fastify';
import type { SparqlService } from '../service/index.js';
import { registerAccessGuard } from './access-guard.js';
import { resolveServerConfig, type ResolvedServerConfig, type ServerConfig } from './config.js';
import { registerCors } from './cors.js';
import { CLIENT_CLOSED_REQUEST, DirectQueries } from './direct-queries.js';
import { errorResponse, statusOf } from './error-response.js';
import { endpointPaths } from './handler-context.js';
import { htmlProtection } from './html.js';
import { createHttpServer } from './http-connections.js';
import { errorFormatOf } from './request-context.js';
import { parseUrlEncoded, type ProtocolParams } from './protocol-params.js';
import { registerMetricsRoute, RequestMetrics } from './metrics.js';
import { formatLogLine, observedService, runObserved, type FinishedRequest, type LogSink, type RequestObservation } from './request-log.js';
import { registerRoutes } from './routes.js';
import { endpointName, serverRoutes, type ServerRoutes } from './server-routes.js';
import { registerWriteOriginGuard } from './write-origin.js';

export type { ServerConfig } from './config.js';

export function buildServer(service: SparqlService, config: ServerConfig = {}): FastifyInstance {
  const resolved = resolveServerConfig(config);
  let direct: DirectQueries | undefined;
  const app = Fastify({
    logger: resolved.logger,
    bodyLimit: resolved.maxBody,
    trustProxy: resolved.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // Ids that stay unique across restarts, so log lines of different runs never collide.
    genReqId: () => randomUUID(),
    // Our own server, for both front doors: its time limits and request order (http-connections.ts).
    serverFactory: (handler: FastifyServerFactoryHandler<Server>) => directFirstServer(handler, resolved, () => direct),
  });
  const routes = serverRoutes(resolved.basePath);
  acceptEveryBodyAsBytes(app);
  registerCors(app, resolved.corsOrigins);
  // Before credentials: a forged cross-site write learns nothing about them.
  registerWriteOriginGuard(app, resolved, routes);
  // After CORS: a refused browser request still carries the headers that let its page read the 401.
  registerAccessGuard(app, resolved, routes);
  protectHtml(app);
  handleErrors(app);
  closeUnusedConnectionsOnClose(app);
  const metrics = new RequestMetrics();
  observeRequests(app, resolved, routes, metrics);
  if (resolved.metrics) registerMetricsRoute(app, routes.metrics, metrics, service);
  const served = resolved.requestLog ? observedService(service) : service;
  const context = { service: served, config: resolved, paths: endpointPaths(resolved.basePath) };
  registerRoutes(app, context);
  if (hasDirectQueries(resolved)) {
    const answering = new DirectQueries(context, recordRequest(metrics, resolved.requestLog), (error) => app.log.error(error));
    direct = answering;
    app.addHook('preClose', (done) => {
      answering.close();
      done();
    });
  }
  return app;
}

/** Fastify's own logger (pino) logs every request it handles: with it on, all requests go through Fastify. */
function hasDirectQueries(config: ResolvedServerConfig): boolean {
  return config.directQueries && !config.logger;
}

/** The HTTP server with the direct query path, when there is one, tried before Fastify's handler. */
function directFirstServer(fastifyHandler: FastifyServerFactoryHandler<Server>, config: ResolvedServerConfig, direct: () => DirectQueries | undefined): Server {
  return createHttpServer(
    (request, response) => {
      if (!direct()?.tryAnswer(request, response)) fastifyHandler(request, response);
    },
    { bodyTimeoutMs: config.bodyTimeoutMs, keepAliveTimeoutMs: config.keepAliveTimeoutMs },
    isGetUpdate(endpointPaths(config.basePath).update),
  );
}

/**
 * A GET on {base}/sparql/update that carries an update: a write, though GET is a safe method. The
 * path and the parameter names are read percent-decoded, as the router and the handler read them
 * (`/sparql/%75pdate?%75pdate=…` is an update too); a URL that does not decode counts as a write,
 * the stricter reading.
 */
function isGetUpdate(updatePath: string): (request: IncomingMessage) => boolean {
  return (request) => {
    const url = request.url ?? '';
    const q = url.indexOf('?');
    if (q < 0) return false;
    const path = decodedPath(url.slice(0, q));
    if (path !== undefined && !path.startsWith(updatePath)) return false;
    const params = paramsOf(url.slice(q + 1));
    return params === undefined || params.has('update') || params.has('query');
  };
}

function decodedPath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

function paramsOf(queryString: string): ProtocolParams | undefined {
  try {
    return parseUrlEncoded(queryString, 'the URL query string');
  } catch {
    return undefined;
  }
}

/**
 * Every finished request counts in the metrics and, with the request log on, writes its line. The
 * handlers run inside the request's observation, where the service notes the query hash and rows.
 */
function observeRequests(app: FastifyInstance, config: ResolvedServerConfig, routes: ServerRoutes, metrics: RequestMetrics): void {
  const observations = new WeakMap<FastifyRequest, RequestObservation>();
  const sink = config.requestLog;
  if (sink) {
    // preHandler, not onRequest: the context must survive body parsing to reach the handler.
    app.addHook('preHandler', (request, _reply, done) => {
      const observation: RequestObservation = {};
      observations.set(request, observation);
      runObserved(observation, done);
    });
  }
  const observed = new WeakSet<FastifyRequest>();
  const finished = recordRequest(metrics, sink);
  const record = (request: FastifyRequest, reply: FastifyReply, status: number): void => {
    if (observed.has(request)) return;
    observed.add(request);
    finished({
      id: request.id,
      method: request.method,
      endpoint: endpointName(request.routeOptions.url, routes),
      path: request.url.split('?')[0]!,
      status,
      ms: reply.elapsedTime,
      observation: observations.get(request),
    });
  };
  // Fastify's onResponse waits for 'finish', which never comes when the client goes away mid-answer
  // (an aborted stream): such a request is recorded when its response closes, as 499.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) record(request, reply, CLIENT_CLOSED_REQUEST);
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    record(request, reply, reply.statusCode);
    done();
  });
}

/** Counts a finished request in the metrics and, with the request log on, writes its line. */
function recordRequest(metrics: RequestMetrics, sink: LogSink | undefined): (request: FinishedRequest) => void {
  return ({ id, method, endpoint, path, status, ms, observation }) => {
    metrics.observe(endpoint, method, status, ms / 1000);
    sink?.(
      formatLogLine({
        time: new Date().toISOString(),
        id,
        method,
        endpoint,
        path,
        status,
        durationMs: Math.round(ms * 10) / 10,
        queryHash: observation?.queryHash,
        rows: observation?.rows,
      }),
    );
  };
}

/**
 * Clients' connection pools open connections ahead of need (fetch does, after an aborted response).
 * Node counts one that never sent a byte as waiting for its first request, not idle, so close()
 * would wait for it until the headers timeout (a minute): it has no request to finish, so it is
 * closed at once, as close() does with idle keep-alive connections.
 */
function closeUnusedConnectionsOnClose(app: FastifyInstance): void {
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  app.addHook('preClose', async () => {
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  });
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
  // Callback style: an async hook would cost a promise on every response, HTML or not.
  app.addHook('onSend', (_request, reply, payload, done) => {
    for (const [name, value] of Object.entries(htmlProtection(reply.getHeader('content-type')) ?? {})) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    done(null, payload);
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
    // Fastify asks to close the connection when it refused a body before reading it (a 413 by
    // Content-Length). Closed at once, the client still sending gets a reset, not the answer:
    // instead Node reads and drops the rest of the body, within the body timeout
    // (http-connections.ts), and the client reads the 413.
    if (!request.raw.complete) reply.removeHeader('connection');
    return reply.code(status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const response = errorResponse({ statusCode: 404, message: `nothing at ${request.url.split('?')[0]}` }, errorFormatOf(request));
    return reply.code(404).headers(response.headers).send(response.body);
  });
}
