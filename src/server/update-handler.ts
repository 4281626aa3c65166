/**
 * Running an update for an HTTP request. Success is an empty 200 as the protocol has it, carrying
 * what the update changed in the headers Quiver-Inserted and Quiver-Deleted (quad counts); a client
 * whose Accept names application/json gets those figures, per graph too, as a JSON body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import type { ProtocolParams } from './protocol-params.js';
import { parseAccept } from './media-type.js';
import type { UpdateSummary } from '../service/index.js';
import { absoluteUrl, timeoutMs } from './request-context.js';
import { ClientGone } from './client-gone.js';
import type { HandlerContext } from './handler-context.js';
import { refuseCrossSiteWrite } from './write-origin.js';

export async function answerUpdate(
  context: HandlerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  params: ProtocolParams,
  update: string | undefined,
): Promise<void> {
  // Where it comes from and credentials first: a refused client learns nothing about its request,
  // not even that it is empty. (Forms on {base}/sparql are known to be updates only here.)
  refuseCrossSiteWrite(context.config, request.headers);
  await context.config.authorizeUpdate?.({ method: request.method, path: request.url, headers: request.headers });
  if (update === undefined || update.trim() === '') {
    throw new ProtocolError(`no update request: send one in the 'update' parameter (legacy: 'query') or as an application/sparql-update body`);
  }
  const limitMs = timeoutMs(params, context.config.updateTimeoutMs);
  const cancel = ClientGone.watching(reply.raw);
  const usingGraphUris = params.all('using-graph-uri');
  const usingNamedGraphUris = params.all('using-named-graph-uri');
  const summary = await context.service.update({
    update,
    usingGraphUris: usingGraphUris.length > 0 ? usingGraphUris : undefined,
    usingNamedGraphUris: usingNamedGraphUris.length > 0 ? usingNamedGraphUris : undefined,
    baseIri: absoluteUrl(request, request.url.split('?')[0]!),
    timeoutMs: limitMs,
    signal: cancel,
  });
  return sendSummary(reply.code(200), summary, request.headers.accept);
}

function sendSummary(reply: FastifyReply, summary: UpdateSummary | undefined, accept: string | undefined): FastifyReply {
  if (summary === undefined) return reply.send();
  reply.header('quiver-inserted', String(summary.inserted)).header('quiver-deleted', String(summary.deleted));
  if (!asksForJson(accept)) return reply.send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(summary));
}

/** Only an Accept that names application/json itself: a wildcard keeps the protocol's empty body. */
function asksForJson(accept: string | undefined): boolean {
  return parseAccept(accept).some((r) => r.type === 'application' && r.subtype === 'json' && r.q > 0);
}

/** On the update endpoint `update` wins over the legacy `query` when both are sent. */
export function updateText(params: ProtocolParams): string | undefined {
  const update = params.single('update');
  if (update !== undefined) return update;
  return params.single('query');
}
