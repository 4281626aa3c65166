/**
 * Credentials are checked as soon as the request line and headers are in, before the body is read:
 * a refused write never has its body parsed, let alone turned into an update. Which kind of request
 * it is follows from the route, the method, the URL parameters and the Content-Type alone, except
 * for a form POSTed to {base}/sparql (a query or an update, by its fields): that one the handlers
 * check once the form is decoded (answerQuery and answerUpdate call the same hooks), still before
 * the text is parsed as SPARQL.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthorizationInput, ResolvedServerConfig } from './config.js';
import { isForm, parseMediaType, SPARQL_QUERY_MEDIA_TYPE, SPARQL_UPDATE_MEDIA_TYPE } from './media-type.js';
import { wantsHtml } from './negotiation.js';
import { outputValues, parseUrlEncoded, rawQueryString, type ProtocolParams } from './protocol-params.js';
import type { ServerRoutes } from './server-routes.js';

/** What a request needs: update credentials, query credentials, nothing, or a look at its body. */
export type AccessKind = 'update' | 'query' | 'open' | 'by-body';

export interface RequestShape {
  method: string;
  /** The matched route pattern (undefined: no route, a 404). */
  route: string | undefined;
  contentType: string | undefined;
  accept: string | undefined;
  /** The raw query string of the URL, without '?'. */
  queryString: string;
}

export function registerAccessGuard(app: FastifyInstance, config: ResolvedServerConfig, routes: ServerRoutes): void {
  if (!config.authorizeUpdate && !config.authorizeQuery) return;
  app.addHook('onRequest', async (request) => {
    const kind = accessKind(shapeOf(request), routes);
    if (kind === 'update') await config.authorizeUpdate?.(authorizationInput(request));
    else if (kind === 'query') await config.authorizeQuery?.(authorizationInput(request));
  });
}

export function authorizationInput(request: FastifyRequest): AuthorizationInput {
  return { method: request.method, path: request.url, headers: request.headers };
}

function shapeOf(request: FastifyRequest): RequestShape {
  return {
    method: request.method,
    route: request.routeOptions.url,
    contentType: request.headers['content-type'],
    accept: request.headers.accept,
    queryString: rawQueryString(request.raw.url ?? ''),
  };
}

/** When in doubt (say, a URL that does not decode) the stricter kind wins. */
export function accessKind(request: RequestShape, routes: ServerRoutes): AccessKind {
  const { method, route } = request;
  const reading = method === 'GET' || method === 'HEAD';
  if (method === 'OPTIONS' || route === undefined) return 'open';
  if (route === routes.update) {
    if (method === 'POST') return 'update';
    return reading && carriesRequest(request, ['update', 'query']) ? 'update' : 'open';
  }
  if (route === routes.store || route === `${routes.store}/*`) {
    if (reading) return 'query';
    return ['PUT', 'POST', 'DELETE'].includes(method) ? 'update' : 'open';
  }
  if (route === routes.single && method === 'POST') return singlePostKind(request.contentType);
  if (route === routes.select) {
    if (method === 'POST') return 'query';
    if (!reading) return 'open';
    // The HTML query page stays reachable; the service description names graphs and sizes.
    return carriesRequest(request, ['query']) || !wantsPage(request) ? 'query' : 'open';
  }
  if (route === routes.metrics || route === routes.vocabulary) return 'query';
  return 'open';
}

function singlePostKind(contentType: string | undefined): AccessKind {
  const type = parseMediaType(contentType);
  if (type?.essence === SPARQL_UPDATE_MEDIA_TYPE) return 'update';
  if (type?.essence === SPARQL_QUERY_MEDIA_TYPE) return 'query';
  // Anything else is either a form (decided by its fields) or refused with 400/415 unread.
  return isForm(type) ? 'by-body' : 'open';
}

function carriesRequest(request: RequestShape, names: string[]): boolean {
  const params = paramsOf(request.queryString);
  return params === undefined || names.some((name) => params.has(name));
}

function wantsPage(request: RequestShape): boolean {
  const params = paramsOf(request.queryString);
  if (params === undefined) return false;
  return wantsHtml(outputValues(params), request.accept);
}

function paramsOf(queryString: string): ProtocolParams | undefined {
  try {
    return parseUrlEncoded(queryString, 'the URL query string');
  } catch {
    return undefined;
  }
}
