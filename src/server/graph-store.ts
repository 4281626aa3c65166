/**
 * The SPARQL 1.1 Graph Store HTTP Protocol (https://www.w3.org/TR/sparql11-http-rdf-update/) at
 * {base}/sparql/store, with indirect graph identification: `?default` or `?graph=IRI`.
 * GET (and HEAD) answer the graph in any RDF format by Accept; PUT replaces it, POST adds to it,
 * DELETE removes it, each with a body in any RDF format by Content-Type, as one transaction.
 * GET on the store itself, naming no graph, answers the whole dataset in a quad format (TriG or
 * N-Quads): GSP 1.1 leaves that request undefined; SPARQL 1.2's Graph Store Protocol draft and
 * Fuseki give the dataset, which beats a 400.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import { parseableRdfFormat } from '../formats/index.js';
import { iriSyntaxError } from '../rdf/index.js';
import type { GraphDocument, GraphName, SparqlService } from '../service/index.js';
import { answerOptions } from './cors.js';
import type { HandlerContext } from './handler-context.js';
import { HttpError, unsupportedMediaType } from './http-error.js';
import { negotiate } from './negotiation.js';
import { outputValues } from './protocol-params.js';
import { ClientGone } from './client-gone.js';
import { varyOnAccept } from './query-handler.js';
import { absoluteUrl, readBody, urlParams, type RequestBody } from './request-context.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { prepareResult, serializeResult } from './result-body.js';
import { RDF_FORMATS, contentTypeOf, type ResultFormat } from './result-formats.js';
import { factory, type Quad } from '../rdf/index.js';
import type { QueryResult, SolutionRow } from '../service/index.js';

const ALLOW = 'GET, HEAD, PUT, POST, DELETE, OPTIONS';
const GRAPH_VOCABULARY = {
  names: RDF_FORMATS.flatMap((f) => f.outputNames),
  mediaTypes: RDF_FORMATS.flatMap((f) => [f.mediaType, ...f.alsoAccepts]),
  kinds: [RDF_FORMATS],
};
/** Formats that carry named graphs, for the whole dataset; TriG first (the default). */
const DATASET_FORMATS = ['trig', 'nquads'].map((id) => RDF_FORMATS.find((f) => f.id === id)!);
const DATASET_QUERY = 'SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';

export function graphStorePath(basePath: string): string {
  return `${basePath}/sparql/store`;
}

export function registerGraphStore(app: FastifyInstance, context: HandlerContext): void {
  const store = graphStorePath(context.config.basePath);
  registerResource(app, context, store);
  // Direct identification: the graph's IRI is the URL of the request, under the store's URL.
  registerResource(app, context, `${store}/*`);
}

function registerResource(app: FastifyInstance, context: HandlerContext, url: string): void {
  app.get(url, (request, reply) => getGraph(context, request, reply));
  app.put(url, (request, reply) => writeGraph(context, request, reply, 'put'));
  app.post(url, (request, reply) => writeGraph(context, request, reply, 'post'));
  app.delete(url, (request, reply) => deleteGraph(context, request, reply));
  app.options(url, async (request, reply) => answerOptions(request, reply, ALLOW));
  app.route({
    method: ['PATCH'],
    url,
    handler: async (request) => {
      throw new HttpError(405, `${request.method} is not allowed on ${url}; allowed: ${ALLOW}`, { allow: ALLOW });
    },
  });
}

/**
 * The graph named by `?default` or `?graph=IRI` (exactly one of them); with neither, undefined
 * when `mayBeNew` (POST to the store itself creates a graph), else a 400.
 */
export function targetGraph(request: FastifyRequest, mayBeNew = false): GraphName | undefined {
  const params = urlParams(request);
  const path = request.url.split('?')[0]!;
  if (request.routeOptions.url?.endsWith('/*')) {
    if (params.has('graph') || params.has('default')) throw new ProtocolError(`a graph URL takes neither ?graph nor ?default`);
    return absoluteUrl(request, path);
  }
  const graph = params.single('graph');
  const isDefault = params.has('default');
  if (isDefault && graph !== undefined) throw new ProtocolError(`name either ?default or ?graph=IRI, not both`);
  if (isDefault) return null;
  if (graph === undefined && mayBeNew) return undefined;
  if (graph === undefined) throw new ProtocolError(`name the graph: ?default for the default graph, or ?graph=IRI`);
  const invalid = iriSyntaxError(graph);
  if (invalid !== undefined) throw new ProtocolError(`?graph needs an absolute IRI, not '${graph}': ${invalid}`);
  return graph;
}

function serviceOf(context: HandlerContext): Required<Pick<SparqlService, 'getGraph' | 'putGraph' | 'postGraph' | 'deleteGraph'>> {
  const service = context.service;
  if (!service.getGraph || !service.putGraph || !service.postGraph || !service.deleteGraph) {
    throw new HttpError(405, 'this service does not offer the Graph Store Protocol', { allow: 'OPTIONS' });
  }
  return service as Required<SparqlService>;
}

async function getGraph(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  await context.config.authorizeQuery?.({ method: request.method, path: request.url, headers: request.headers });
  if (namesNoGraph(request)) return getDataset(context, request, reply);
  const graph = targetGraph(request)!;
  const outputs = outputValues(urlParams(request));
  const format = negotiate(RDF_FORMATS, outputs, request.headers.accept, GRAPH_VOCABULARY) as ResultFormat;
  const cancel = ClientGone.watching(reply.raw);
  const result = await serviceOf(context).getGraph(graph, { timeoutMs: context.config.queryTimeoutMs, signal: cancel });
  if (result === undefined) throw new HttpError(404, `no graph <${graph}> in the store`);
  const prepared = await prepareResult(result);
  reply.header('content-type', contentTypeOf(format));
  varyOnAccept(reply);
  reply.header('content-disposition', `inline; filename="graph.${format.extension}"`);
  const body = serializeResult(prepared, format.id, { nonce: randomBytes(12).toString('base64') });
  return reply.send(Readable.from(body, { objectMode: false }));
}

/** A request to the store's own URL with neither ?default nor ?graph. */
function namesNoGraph(request: FastifyRequest): boolean {
  if (request.routeOptions.url?.endsWith('/*')) return false;
  const params = urlParams(request);
  return !params.has('graph') && !params.has('default');
}

async function getDataset(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const outputs = outputValues(urlParams(request));
  const format = negotiate(DATASET_FORMATS, outputs, request.headers.accept, GRAPH_VOCABULARY) as ResultFormat;
  const cancel = ClientGone.watching(reply.raw);
  const result = await context.service.query({ query: DATASET_QUERY, timeoutMs: context.config.queryTimeoutMs, signal: cancel });
  const prepared = await prepareResult(quadsOf(result));
  reply.header('content-type', contentTypeOf(format));
  varyOnAccept(reply);
  reply.header('content-disposition', `inline; filename="dataset.${format.extension}"`);
  const body = serializeResult(prepared, format.id, { nonce: randomBytes(12).toString('base64') });
  return reply.send(Readable.from(body, { objectMode: false }));
}

/** The rows of DATASET_QUERY as quads (an unbound ?g: the default graph). */
function quadsOf(result: QueryResult): QueryResult {
  if (result.kind !== 'bindings') throw new Error('the dataset query answered no rows');
  const rows = result.rows;
  async function* quads(): AsyncIterable<Quad[]> {
    for await (const batch of rows) yield batch.map(quadOfRow);
  }
  return { kind: 'quads', prefixes: {}, quads: quads() };
}

function quadOfRow([s, p, o, g]: SolutionRow): Quad {
  return factory.quad(s as Quad['subject'], p as Quad['predicate'], o as Quad['object'], (g ?? factory.defaultGraph()) as Quad['graph']);
}

async function writeGraph(context: HandlerContext, request: FastifyRequest, reply: FastifyReply, operation: 'put' | 'post'): Promise<unknown> {
  // Credentials before anything of the request is looked at (the server's guard checked them already).
  await context.config.authorizeUpdate?.({ method: request.method, path: request.url, headers: request.headers });
  const named = targetGraph(request, operation === 'post');
  const path = request.url.split('?')[0]!;
  // POST to the store itself: a new graph, named under the store's URL and announced in Location.
  const graph = named === undefined ? `${absoluteUrl(request, path)}/${randomUUID()}` : named;
  const documents = documentsOf(readBody(request), graph ?? absoluteUrl(request, path));
  const cancel = ClientGone.watching(reply.raw);
  const service = serviceOf(context);
  const limits = { timeoutMs: context.config.updateTimeoutMs, signal: cancel };
  const { created } = operation === 'put' ? await service.putGraph(graph, documents, limits) : await service.postGraph(graph, documents, limits);
  if (named === undefined) reply.header('location', graph);
  return reply.code(created ? 201 : 204).send();
}

/** The RDF documents of a body: the body itself, or each part of a multipart/form-data body. */
function documentsOf(body: RequestBody, baseIri: string): GraphDocument[] {
  const parts = isMultipart(body.type) ? parseMultipart(body.text, body.type!) : [body];
  return parts.map((part) => ({ text: part.text, contentType: rdfMediaType(part.type?.essence), baseIri }));
}

function rdfMediaType(essence: string | undefined): string {
  const known = RDF_FORMATS.map((f) => f.mediaType).join(', ');
  if (essence === undefined) throw unsupportedMediaType(`send the graph with a Content-Type: one of ${known}`);
  if (parseableRdfFormat(essence) === undefined) throw unsupportedMediaType(`${essence} is not an RDF format this store reads; use one of ${known}`);
  return essence;
}

async function deleteGraph(context: HandlerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  await context.config.authorizeUpdate?.({ method: request.method, path: request.url, headers: request.headers });
  const graph = targetGraph(request)!;
  const cancel = ClientGone.watching(reply.raw);
  const found = await serviceOf(context).deleteGraph(graph, { timeoutMs: context.config.updateTimeoutMs, signal: cancel });
  if (!found) throw new HttpError(404, `no graph <${graph}> in the store`);
  return reply.code(204).send();
}
