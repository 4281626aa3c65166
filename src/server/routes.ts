/**
 * The three resources of the service contract and how each method and media type is dispatched to
 * a query, an update, a page or an error.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import { answerOptions } from './cors.js';
import { answerQueryPageOrDescription } from './description-handler.js';
import { errorFormatFor } from './error-response.js';
import type { HandlerContext } from './handler-context.js';
import { HttpError } from './http-error.js';
import { isForm, SPARQL_QUERY_MEDIA_TYPE, SPARQL_UPDATE_MEDIA_TYPE } from './media-type.js';
import { wantsHtml } from './negotiation.js';
import { pageOptionsFor, sendPage, updatePage } from './pages.js';
import { outputValues, rawQueryString, type ProtocolParams } from './protocol-params.js';
import { answerQuery } from './query-handler.js';
import { allParams, bodyQuery, readBody, selectPostQuery, setErrorFormat, urlParams, type RequestBody } from './request-context.js';
import { answerUpdate, updateText } from './update-handler.js';
import { graphStorePath, registerGraphStore } from './graph-store.js';
import { serverRoutes } from './server-routes.js';
import { registerVocabulary } from './store-vocabulary.js';
import { answerHealth } from './health.js';
import { registerUiAssets } from './ui-assets.js';

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export function registerRoutes(app: FastifyInstance, context: HandlerContext): void {
  const { paths } = context;
  const updateMethods = context.config.noGetUpdate ? 'POST, OPTIONS' : 'GET, HEAD, POST, OPTIONS';
  resource(app, paths.single, 'GET, HEAD, POST, OPTIONS', {
    GET: (request, reply) => singleGet(context, request, reply),
    POST: (request, reply) => singlePost(context, request, reply),
  });
  resource(app, paths.select, 'GET, HEAD, POST, OPTIONS', {
    GET: (request, reply) => selectGet(context, request, reply),
    POST: (request, reply) => selectPost(context, request, reply),
  });
  resource(app, paths.update, updateMethods, {
    GET: (request, reply) => updateGet(context, request, reply),
    POST: (request, reply) => updatePost(context, request, reply),
  });
  resource(app, paths.health, 'GET, HEAD, OPTIONS', {
    // Answered on the event loop from the service's cheap health check: fine for load balancers.
    GET: (request, reply) => answerHealth(context.service, request, reply),
  });
  // Fuseki and Oxigraph serve their pages at the root: here the root leads to the query page.
  app.get(`${context.config.basePath}/`, async (_request, reply) => reply.redirect(paths.select, 302));
  const store = graphStorePath(context.config.basePath);
  registerVocabulary(app, context.service, serverRoutes(context.config.basePath).vocabulary, [paths.single, paths.update, store, `${store}/*`]);
  registerGraphStore(app, context);
  registerUiAssets(app, context.config.basePath);
}

/** Registers the handlers of one path, OPTIONS, and 405 (with Allow) for every other method. */
function resource(app: FastifyInstance, url: string, allow: string, handlers: { GET: Handler; POST?: Handler }): void {
  app.get(url, handlers.GET);
  if (handlers.POST) app.post(url, handlers.POST);
  app.options(url, async (request, reply) => answerOptions(request, reply, allow));
  const others = ['PUT', 'DELETE', 'PATCH', ...(handlers.POST ? [] : ['POST'])];
  app.route({
    method: others,
    url,
    handler: async (request) => {
      throw new HttpError(405, `${request.method} is not allowed on ${url}; allowed: ${allow}`, { allow });
    },
  });
}

/** The error body format follows `output` as soon as the parameters could be read. */
function rememberErrorFormat(request: FastifyRequest, params: ProtocolParams): void {
  setErrorFormat(request, errorFormatFor(outputValues(params)[0]));
}

async function singleGet(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const params = urlParams(request);
  rememberErrorFormat(request, params);
  const query = params.single('query');
  const update = params.single('update');
  if (update !== undefined) {
    const both = query !== undefined ? 'both a query and an update were sent; ' : '';
    throw new ProtocolError(
      `${both}updates are not accepted by GET on ${context.paths.single}; send them with POST ${context.paths.single} or to ${context.paths.update}`,
    );
  }
  const queryString = rawQueryStringOf(request);
  const location = queryString === '' ? context.paths.select : `${context.paths.select}?${queryString}`;
  return reply.redirect(location, 303);
}

async function singlePost(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = readBody(request);
  const essence = body.type?.essence;
  if (essence === SPARQL_QUERY_MEDIA_TYPE) return directQuery(context, request, reply, body);
  if (essence === SPARQL_UPDATE_MEDIA_TYPE) return directUpdate(context, request, reply, body);
  if (isForm(body.type)) {
    const params = allParams(request, body);
    rememberErrorFormat(request, params);
    const query = params.single('query');
    const update = params.single('update');
    if (query !== undefined && update !== undefined) {
      throw new ProtocolError(`send either a 'query' or an 'update' field to ${context.paths.single}, not both`);
    }
    if (query !== undefined) return answerQuery(context, request, reply, params, query);
    if (update !== undefined) return answerUpdate(context, request, reply, params, update);
  }
  throw new ProtocolError(
    `POST ${context.paths.single} expects a query (an application/sparql-query body, or a form field 'query') or an update (an application/sparql-update body, or a form field 'update') in an application/x-www-form-urlencoded form; got ${isForm(body.type) ? 'a form with neither field' : essence === undefined ? 'a body without Content-Type' : `Content-Type ${essence}`}`,
  );
}

async function selectGet(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const params = urlParams(request);
  rememberErrorFormat(request, params);
  const query = params.single('query');
  if (query === undefined) return answerQueryPageOrDescription(context, request, reply, params);
  return answerQuery(context, request, reply, params, query);
}

async function selectPost(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = readBody(request);
  const params = urlParams(request);
  let query: string | undefined;
  try {
    query = selectPostQuery(params, body);
  } finally {
    rememberErrorFormat(request, params);
  }
  return answerQuery(context, request, reply, params, query);
}

/** The body is the query: an application/sparql-query POSTed to {base}/sparql ({base}/sparql/select: selectPostQuery). */
async function directQuery(context: HandlerContext, request: FastifyRequest, reply: FastifyReply, body: RequestBody): Promise<unknown> {
  const params = urlParams(request);
  rememberErrorFormat(request, params);
  return answerQuery(context, request, reply, params, bodyQuery(params, body));
}

async function updateGet(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const params = urlParams(request);
  rememberErrorFormat(request, params);
  const update = updateText(params);
  if (update === undefined) {
    if (wantsHtml(outputValues(params), request.headers.accept)) {
      return sendPage(reply, updatePage(context.paths, pageOptionsFor(context)));
    }
    throw new ProtocolError(`no update request: send one with POST ${context.paths.update} or in the 'update' parameter`);
  }
  if (context.config.noGetUpdate) {
    throw new HttpError(405, `updates by GET are switched off on this server; use POST ${context.paths.update}`, {
      allow: 'POST, OPTIONS',
    });
  }
  return answerUpdate(context, request, reply, params, update);
}

async function updatePost(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = readBody(request);
  if (body.type?.essence === SPARQL_UPDATE_MEDIA_TYPE) return directUpdate(context, request, reply, body);
  if (isForm(body.type)) {
    const params = allParams(request, body);
    rememberErrorFormat(request, params);
    return answerUpdate(context, request, reply, params, updateText(params));
  }
  const params = urlParams(request);
  rememberErrorFormat(request, params);
  if (body.type === undefined && body.text === '') return answerUpdate(context, request, reply, params, undefined);
  throw new HttpError(
    415,
    `POST ${context.paths.update} accepts application/sparql-update or application/x-www-form-urlencoded bodies, not ${body.type?.essence ?? 'a body without Content-Type'}`,
  );
}

/** The body is the update request (application/sparql-update). */
async function directUpdate(context: HandlerContext, request: FastifyRequest, reply: FastifyReply, body: RequestBody): Promise<unknown> {
  const params = urlParams(request);
  rememberErrorFormat(request, params);
  if (params.has('update') || params.has('query')) {
    throw new ProtocolError(`an update was sent both in the body and in a URL parameter`);
  }
  return answerUpdate(context, request, reply, params, body.text);
}

function rawQueryStringOf(request: FastifyRequest): string {
  return rawQueryString(request.raw.url ?? '');
}
