/** Running an update for an HTTP request; success is an empty 200. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import type { ProtocolParams } from './protocol-params.js';
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
    throw new ProtocolError(
      `no update request: send one in the 'update' parameter (legacy: 'query') or as an application/sparql-update body`,
    );
  }
  const limitMs = timeoutMs(params, context.config.updateTimeoutMs);
  const cancel = ClientGone.watching(reply.raw);
  const usingGraphUris = params.all('using-graph-uri');
  const usingNamedGraphUris = params.all('using-named-graph-uri');
  await context.service.update({
    update,
    usingGraphUris: usingGraphUris.length > 0 ? usingGraphUris : undefined,
    usingNamedGraphUris: usingNamedGraphUris.length > 0 ? usingNamedGraphUris : undefined,
    baseIri: absoluteUrl(request, request.url.split('?')[0]!),
    timeoutMs: limitMs,
    signal: cancel,
  });
  return reply.code(200).send();
}

/** On the update endpoint `update` wins over the legacy `query` when both are sent. */
export function updateText(params: ProtocolParams): string | undefined {
  const update = params.single('update');
  if (update !== undefined) return update;
  return params.single('query');
}
