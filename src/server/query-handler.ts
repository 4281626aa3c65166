/**
 * Running a query for an HTTP request: validate the protocol parameters, start the query, negotiate
 * the format once the kind of result is known, then stream it.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import type { QueryResult } from '../service/sparql-service.js';
import { negotiate, assertKnownOutput } from './negotiation.js';
import type { ProtocolParams } from './protocol-params.js';
import { absoluteUrl, timeoutMs } from './request-context.js';
import { discardPrepared, discardResult, prepareResult, serializeResult } from './result-body.js';
import { OUTPUT_VOCABULARY, QUAD_FORMATS, SOLUTION_FORMATS, contentTypeOf, isHtml, type ResultFormat } from './result-formats.js';
import type { HandlerContext } from './handler-context.js';

export async function answerQuery(
  context: HandlerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  params: ProtocolParams,
  query: string | undefined,
): Promise<void> {
  if (query === undefined || query.trim() === '') {
    throw new ProtocolError(`no query: send one in the 'query' parameter or as an application/sparql-query body`);
  }
  const output = params.single('output');
  assertKnownOutput(output, OUTPUT_VOCABULARY);
  const limitMs = timeoutMs(params, context.config.queryTimeoutMs);
  await context.config.authorizeQuery?.({ method: request.method, path: request.url, headers: request.headers });

  const cancel = abortOnClientGone(reply);
  const started = Date.now();
  const result = await context.service.query({
    query,
    defaultGraphUris: nonEmpty(params.all('default-graph-uri')),
    namedGraphUris: nonEmpty(params.all('named-graph-uri')),
    baseIri: absoluteUrl(request, request.url.split('?')[0]!),
    timeoutMs: limitMs,
    signal: cancel.signal,
  });

  const format = await negotiateOrDiscard(result, output, request.headers.accept);
  const prepared = await prepareResult(result);
  try {
    setResultHeaders(reply, format);
    const nonce = randomBytes(12).toString('base64');
    const body = serializeResult(prepared, format.id, { query, nonce, elapsedMs: () => Date.now() - started });
    return reply.send(Readable.from(body, { objectMode: false }));
  } catch (error) {
    await discardPrepared(prepared);
    throw error;
  }
}

/** The result format, chosen only now that the kind of result (solutions or RDF) is known. */
async function negotiateOrDiscard(result: QueryResult, output: string | undefined, accept: string | undefined): Promise<ResultFormat> {
  const formats = result.kind === 'quads' ? QUAD_FORMATS : SOLUTION_FORMATS;
  try {
    return negotiate(formats, output, accept, OUTPUT_VOCABULARY) as ResultFormat;
  } catch (error) {
    await discardResult(result);
    throw error;
  }
}

function setResultHeaders(reply: FastifyReply, format: ResultFormat): void {
  reply.header('content-type', contentTypeOf(format));
  varyOnAccept(reply);
  reply.header('x-content-type-options', 'nosniff');
  if (!isHtml(format)) reply.header('content-disposition', `inline; filename="result.${format.extension}"`);
}

/** The representation depends on Accept: caches must keep one per Accept value. */
export function varyOnAccept(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  reply.header('vary', typeof vary === 'string' && vary !== '' ? `${vary}, Accept` : 'Accept');
}

/** Aborts when the connection closes before the response was completely written. */
export function abortOnClientGone(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller;
}

function nonEmpty(list: string[]): string[] | undefined {
  return list.length > 0 ? list : undefined;
}
