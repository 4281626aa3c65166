/**
 * What a GET without a request gets: a browser the HTML page, an RDF client the service
 * description in its format, anyone else the service description in Turtle.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StringSink } from '../formats/index.js';
import type { RdfFormat } from '../formats/index.js';
import { createQuadsSerializer } from '../formats/index.js';
import { HttpError } from './http-error.js';
import { negotiate, prefersHtml } from './negotiation.js';
import { varyOnAccept } from './query-handler.js';
import { pageOptionsFor, queryPage, sendPage } from './pages.js';
import { outputValues, type ProtocolParams } from './protocol-params.js';
import { absoluteUrl } from './request-context.js';
import { OUTPUT_VOCABULARY, RDF_FORMATS, contentTypeOf, type ResultFormat } from './result-formats.js';
import { describeService, SD_PREFIXES } from './service-description.js';
import type { HandlerContext } from './handler-context.js';

const HTML_PAGE: ResultFormat = {
  id: 'page',
  mediaType: 'text/html',
  alsoAccepts: ['application/xhtml+xml'],
  outputNames: ['html'],
  extension: 'html',
};

export async function answerQueryPageOrDescription(
  context: HandlerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  params: ProtocolParams,
): Promise<void> {
  const format = chooseDescriptionFormat(outputValues(params), request.headers.accept);
  varyOnAccept(reply);
  if (format === HTML_PAGE) {
    return sendPage(reply, queryPage(context.paths, pageOptionsFor(context)));
  }
  const data = await context.service.describe();
  const quads = describeService(
    {
      single: absoluteUrl(request, context.paths.single),
      select: absoluteUrl(request, context.paths.select),
      update: absoluteUrl(request, context.paths.update),
    },
    data,
  );
  const sink = new StringSink();
  const serializer = createQuadsSerializer(format.id as RdfFormat, sink, {});
  serializer.begin(SD_PREFIXES);
  serializer.quads(quads);
  serializer.end();
  return reply.type(contentTypeOf(format)).send(sink.text);
}

function chooseDescriptionFormat(outputs: readonly string[], accept: string | undefined): ResultFormat {
  if (outputs.length > 0) return negotiate([...RDF_FORMATS, HTML_PAGE], outputs, undefined, OUTPUT_VOCABULARY) as ResultFormat;
  if (prefersHtml(accept)) return HTML_PAGE;
  try {
    return negotiate(RDF_FORMATS, [], accept, OUTPUT_VOCABULARY) as ResultFormat;
  } catch (error) {
    if (error instanceof HttpError && error.status === 406) return RDF_FORMATS[0]!;
    throw error;
  }
}
