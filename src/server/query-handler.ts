/**
 * Running a query for an HTTP request: validate the protocol parameters, start the query, negotiate
 * the format once the kind of result is known, then stream it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import type { CancelSignal, DocumentFormat, DocumentFormats, QueryExplanation, QueryResult } from '../service/index.js';
import type { HtmlOptions } from '../formats/index.js';
import { ClientGone } from './client-gone.js';
import { assertPossibleOutput } from './negotiation.js';
import { pageOptionsFor, queryResultsFrame } from './pages.js';
import { explainRequested, outputValues, type ProtocolParams } from './protocol-params.js';
import { absoluteUrl, timeoutMs } from './request-context.js';
import { discardPrepared, discardResult, prepareResult, serializeResult } from './result-body.js';
import {
  OUTPUT_VOCABULARY,
  acceptableResultFormat,
  contentTypeOf,
  isHtml,
  negotiateResultFormat,
  type ResultFormat,
  type ResultKind,
} from './result-formats.js';
import type { HandlerContext } from './handler-context.js';

/** A query request as the SPARQL Protocol sees it, whichever way it reached the server. */
export interface ProtocolQuery {
  method: string;
  /** The URL as sent: path and query string. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The endpoint's absolute URL, the query's base IRI. */
  endpointUrl: string;
  params: ProtocolParams;
  query: string | undefined;
  /** Aborted when the client goes away. */
  signal: CancelSignal;
}

/** A successful answer: its headers and its body, whole or (a large result) streaming. */
export interface QueryAnswer {
  headers: Record<string, string>;
  body: string | Buffer | Readable;
}

export async function answerQuery(
  context: HandlerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  params: ProtocolParams,
  query: string | undefined,
): Promise<void> {
  const answer = await queryAnswer(context, {
    method: request.method,
    url: request.url,
    headers: request.headers,
    endpointUrl: absoluteUrl(request, request.url.split('?')[0]!),
    params,
    query,
    signal: ClientGone.watching(reply.raw),
  });
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, name === 'vary' ? withVary(reply.getHeader('vary'), value) : value);
  return reply.send(answer.body);
}

/** Runs the query and answers it in the negotiated format; failures throw, to be answered by the caller. */
export async function queryAnswer(context: HandlerContext, request: ProtocolQuery): Promise<QueryAnswer> {
  const { params, query } = request;
  if (query === undefined || query.trim() === '') {
    throw new ProtocolError(`no query: send one in the 'query' parameter or as an application/sparql-query body`);
  }
  const outputs = outputValues(params);
  assertPossibleOutput(outputs, OUTPUT_VOCABULARY);
  const limitMs = timeoutMs(params, context.config.queryTimeoutMs);
  const explain = explainRequested(params);
  const accept = request.headers.accept;
  await context.config.authorizeQuery?.({ method: request.method, path: request.url, headers: request.headers });

  const started = Date.now();
  const result = await context.service.query({
    query,
    defaultGraphUris: nonEmpty(params.all('default-graph-uri')),
    namedGraphUris: nonEmpty(params.all('named-graph-uri')),
    baseIri: request.endpointUrl,
    timeoutMs: limitMs,
    signal: request.signal,
    ...(explain ? { explain } : WRITE_RESULTS_ON_WORKER ? { documentFormats: documentFormatsFor(outputs, accept) } : {}),
  });
  if (result.kind === 'explain') return explanationAnswer(result.explanation);

  const format = await negotiateOrDiscard(result, outputs, accept);
  const document = documentInFormat(result, format);
  if (document !== undefined) {
    await discardResult(result);
    return { headers: resultHeaders(format), body: document };
  }
  const prepared = await prepareResult(result);
  try {
    const headers = resultHeaders(format);
    const htmlOptions: HtmlOptions = { elapsedMs: () => Date.now() - started };
    if (isHtml(format)) {
      // The query page around the results, so the query can be edited and run again.
      const frame = queryResultsFrame(context.paths, pageOptionsFor(context), query);
      htmlOptions.frame = frame;
      headers['content-security-policy'] = frame.contentSecurityPolicy;
    }
    const body = serializeResult(prepared, format.id, htmlOptions);
    const start = await startOfBody(body);
    // A small answer goes out in one write; a larger one streams on from where the start ends.
    return { headers, body: start.complete ? start.chunks.join('') : Readable.from(resumed(start, body), { objectMode: false }) };
  } catch (error) {
    await discardPrepared(prepared);
    throw error;
  }
}

interface BodyStart {
  chunks: string[];
  complete: boolean;
  /** A pull that had not settled yet: the stream continues with it. */
  pending?: Promise<IteratorResult<string>>;
}

/**
 * The chunks of the body that are ready now (up to SMALL_BODY characters): all of a small answer,
 * or the start of one still being computed, which then streams without waiting for more.
 */
async function startOfBody(body: AsyncGenerator<string>): Promise<BodyStart> {
  const chunks: string[] = [];
  let length = 0;
  while (length < SMALL_BODY) {
    const next = body.next();
    const step = await Promise.race([next, notReadyYet()]);
    if (step === NOT_READY) {
      // Awaited by the stream; if the stream never starts (client gone), its failure is no one's concern.
      next.catch(() => undefined);
      return { chunks, complete: false, pending: next };
    }
    if (step.done) return { chunks, complete: true };
    chunks.push(step.value);
    length += step.value.length;
  }
  return { chunks, complete: false };
}

/** The rest of the body after its start. */
async function* resumed(start: BodyStart, body: AsyncGenerator<string>): AsyncGenerator<string> {
  yield* start.chunks;
  if (start.pending) {
    const step = await start.pending;
    if (step.done) return;
    yield step.value;
  }
  yield* body;
}

const NOT_READY = Symbol('not ready');

/** Settles after the promises already settled have had their turn. */
function notReadyYet(): Promise<typeof NOT_READY> {
  return new Promise((resolve) => setImmediate(() => resolve(NOT_READY)));
}

/** Bodies up to this many characters are sent whole (one write, with a Content-Length). */
const SMALL_BODY = 64 * 1024;

/** The plan of an `explain=true` request, as JSON whatever the Accept header. */
function explanationAnswer(explanation: QueryExplanation): QueryAnswer {
  return {
    headers: { 'x-content-type-options': 'nosniff', 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(explanation),
  };
}

/** The result format, chosen only now that the kind of result (solutions or RDF) is known. */
async function negotiateOrDiscard(result: QueryResult, outputs: readonly string[], accept: string | undefined): Promise<ResultFormat> {
  try {
    return negotiateResultFormat(result.kind === 'quads' ? 'quads' : 'solutions', outputs, accept);
  } catch (error) {
    await discardResult(result);
    throw error;
  }
}

/**
 * Off: a result written by its query worker saved the main thread 15-25% of its CPU but cost the
 * worker more (its garbage collections), so the server spent more CPU per BSBM mix, not less
 * (bench/RESULTS-LOG.md, fourth session). Worth turning on once the worker's collections are cheap.
 */
const WRITE_RESULTS_ON_WORKER = false;

/**
 * The format each kind of result would be answered in, known before the query runs, so that the
 * service can write a small result where it evaluates it. A kind that cannot be answered (a 406 to
 * come) or would be an HTML page (which needs the nonce and the time taken) is left out.
 */
function documentFormatsFor(outputs: readonly string[], accept: string | undefined): DocumentFormats {
  return { solutions: documentFormatOf('solutions', outputs, accept), quads: documentFormatOf('quads', outputs, accept) };
}

function documentFormatOf(kind: ResultKind, outputs: readonly string[], accept: string | undefined): DocumentFormat | undefined {
  const format = acceptableResultFormat(kind, outputs, accept);
  return format === undefined || isHtml(format) ? undefined : { format: format.id, mediaType: format.mediaType };
}

/**
 * The result's own document when it is in the format negotiated (remote mode, or a small local result
 * written by its query worker): no need to write it again.
 */
function documentInFormat(result: QueryResult, format: ResultFormat): string | Buffer | Readable | undefined {
  if ((result.kind !== 'bindings' && result.kind !== 'quads') || result.document?.mediaType !== format.mediaType) return undefined;
  const { bytes, chunks } = result.document;
  // Streamed: each piece goes out as it arrives (a failure then cuts the connection, see app.ts).
  if (chunks) return Readable.from(chunks, { objectMode: false });
  return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : result.document.text;
}

function resultHeaders(format: ResultFormat): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': contentTypeOf(format), vary: 'Accept', 'x-content-type-options': 'nosniff' };
  if (!isHtml(format)) headers['content-disposition'] = `inline; filename="result.${format.extension}"`;
  return headers;
}

/** The representation depends on Accept: caches must keep one per Accept value. */
export function varyOnAccept(reply: FastifyReply): void {
  reply.header('vary', withVary(reply.getHeader('vary'), 'Accept'));
}

/** A Vary header naming one more request header (CORS may have named Origin already). */
export function withVary(existing: unknown, added: string): string {
  return typeof existing === 'string' && existing !== '' ? `${existing}, ${added}` : added;
}

function nonEmpty(list: string[]): string[] | undefined {
  return list.length > 0 ? list : undefined;
}
