/**
 * The most common requests of all, a query POSTed (as an application/sparql-query body or a form)
 * or sent with GET, answered straight from Node's HTTP server instead of through Fastify's routing,
 * hooks and reply.
 *
 * Why: with one client waiting on each answer, a BSBM query's own evaluation takes about 0.1 ms, and
 * Fastify's layers around it took as much again (0.11 ms of main-thread CPU per query, 15% of the
 * throughput of a lone client; bench/RESULTS-LOG.md, eighth session). Everything that decides the answer
 * is shared with the Fastify route: `queryAnswer` runs and serializes the query, `errorResponse`
 * words failures, and `corsHeaders`, `htmlProtection` and the metrics and log line (`recordRequest`
 * in app.ts) are the same. What is here is only the transport.
 *
 * Only requests whose handling is plain take this path: POST to {base}/sparql with a UTF-8
 * application/sparql-query body, or to {base}/sparql/select with such a body or a form, either of a
 * declared length within the body limit; GET {base}/sparql/select with a `query` parameter and no
 * body; URL parameters that decode; and, as far as the URL and Accept tell, an answer that will not
 * be an HTML page (a form may still ask for one in its body: it gets the same page headers). Anything
 * else (forms on {base}/sparql, which may be updates, pages, redirects, chunked bodies, oversized
 * ones) goes on to Fastify, as do all requests once the server is closing (Fastify answers those
 * 503). A server with Fastify's own logger (pino) has no direct path: it logs every request Fastify
 * handles.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import { pipeline, Readable } from 'node:stream';
import { ClientGone } from './client-gone.js';
import { corsHeaders } from './cors.js';
import { errorFormatFor, errorResponse, statusOf, type ErrorFormat } from './error-response.js';
import { htmlProtection } from './html.js';
import type { HandlerContext } from './handler-context.js';
import { isForm, parseMediaType, SPARQL_QUERY_MEDIA_TYPE, type MediaType } from './media-type.js';
import { decodeUtf8, outputValues, parseUrlEncoded, ProtocolParams } from './protocol-params.js';
import { queryAnswer, withVary, type QueryAnswer } from './query-handler.js';
import { runObserved, type FinishedRequest, type RequestObservation } from './request-log.js';
import { acceptableResultFormat, isHtml } from './result-formats.js';
import { selectPostQuery } from './request-context.js';
import type { EndpointName } from './server-routes.js';

/** One finished request, for the metrics and the request log: the same call the Fastify side makes. */
export type RecordRequest = (request: FinishedRequest) => void;

/** The status nginx made the convention for a request whose client left before the answer ended. */
export const CLIENT_CLOSED_REQUEST = 499;

export class DirectQueries {
  private open = true;

  constructor(
    private readonly context: HandlerContext,
    private readonly record: RecordRequest,
    private readonly logError: (error: unknown) => void,
  ) {}

  /** From now on every request goes to Fastify (which refuses new ones while the server closes). */
  close(): void {
    this.open = false;
  }

  /** Starts answering the request and returns true, or returns false to leave it to Fastify. */
  tryAnswer(request: IncomingMessage, response: ServerResponse): boolean {
    const { method } = request;
    if (!this.open || (method !== 'POST' && method !== 'GET')) return false;
    const url = request.url ?? '';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    const endpoint: EndpointName | undefined = path === this.context.paths.select ? 'select' : path === this.context.paths.single ? 'sparql' : undefined;
    if (endpoint === undefined) return false;
    const params = mark < 0 ? new ProtocolParams() : urlParamsOrUndefined(url.slice(mark + 1));
    if (params === undefined || mayBeHtml(outputValues(params), request.headers.accept)) return false;
    if (method === 'GET') {
      // GET {base}/sparql redirects, and a GET without `query` is a page or the service description.
      if (endpoint !== 'select' || !params.has('query') || hasBody(request)) return false;
      this.start(request, response, endpoint, path, params, undefined);
      return true;
    }
    const type = this.plainBodyType(request, endpoint);
    if (type === undefined) return false;
    this.start(request, response, endpoint, path, params, type);
    return true;
  }

  /** Answers in the background; should even the error answer fail, the connection is cut and the server goes on. */
  private start(
    request: IncomingMessage,
    response: ServerResponse,
    endpoint: EndpointName,
    path: string,
    params: ProtocolParams,
    bodyType: MediaType | undefined,
  ): void {
    this.answer(request, response, endpoint, path, params, bodyType).catch((error: unknown) => {
      this.logError(error);
      response.destroy();
    });
  }

  /**
   * The media type of a POSTed body this path can take: a query, or a form on {base}/sparql/select
   * (on {base}/sparql a form may be an update), in UTF-8, of a declared length within the limit.
   */
  private plainBodyType(request: IncomingMessage, endpoint: EndpointName): MediaType | undefined {
    const length = Number(request.headers['content-length']);
    if (!(length > 0 && length <= this.context.config.maxBody) || request.headers['transfer-encoding'] !== undefined) return undefined;
    const type = parseMediaType(request.headers['content-type']);
    if (type?.essence !== SPARQL_QUERY_MEDIA_TYPE && !(endpoint === 'select' && isForm(type))) return undefined;
    const charset = type!.params['charset']?.toLowerCase();
    return charset === undefined || charset === 'utf-8' || charset === 'utf8' ? type : undefined;
  }

  /** `bodyType` undefined: a GET, its query in the URL. */
  private async answer(
    request: IncomingMessage,
    response: ServerResponse,
    endpoint: EndpointName,
    path: string,
    params: ProtocolParams,
    bodyType: MediaType | undefined,
  ): Promise<void> {
    const started = performance.now();
    const method = bodyType ? 'POST' : 'GET';
    const clientGone = new ClientGone();
    // With the request log on, the service notes the query's hash and rows here (observedService).
    const observation: RequestObservation | undefined = this.context.config.requestLog ? {} : undefined;
    const finished = (status: number): void => this.record({ id: randomUUID(), method, endpoint, path, status, ms: performance.now() - started, observation });
    response.once('close', () => {
      if (response.writableFinished) return;
      clientGone.abort();
      finished(CLIENT_CLOSED_REQUEST);
    });
    response.once('finish', () => finished(response.statusCode));
    const respond = (): Promise<void> => this.respond(request, response, method, path, params, bodyType, clientGone);
    return observation ? runObserved(observation, respond) : respond();
  }

  private async respond(
    request: IncomingMessage,
    response: ServerResponse,
    method: 'GET' | 'POST',
    path: string,
    params: ProtocolParams,
    bodyType: MediaType | undefined,
    clientGone: ClientGone,
  ): Promise<void> {
    const cors = corsHeaders(request.headers.origin, this.context.config.corsOrigins);
    // As on the Fastify side: errors are plain text until the parameters (and `output`) are known.
    let errorFormat: ErrorFormat = 'text';
    try {
      // Refused before the body is read, as the access guard does on the Fastify side.
      await this.context.config.authorizeQuery?.({ method, path: request.url ?? '', headers: request.headers });
      let query: string | undefined;
      if (bodyType === undefined) {
        errorFormat = errorFormatFor(outputValues(params)[0]);
        query = params.single('query');
      } else {
        const body = { type: bodyType, text: decodeUtf8(await bodyOf(request)) };
        try {
          query = selectPostQuery(params, body);
        } finally {
          errorFormat = errorFormatFor(outputValues(params)[0]);
        }
      }
      const answer = await queryAnswer(this.context, {
        method,
        url: request.url ?? '',
        headers: request.headers,
        endpointUrl: this.endpointUrl(request, path),
        params,
        query,
        signal: clientGone,
      });
      send(response, cors, answer);
    } catch (error) {
      this.answerError(response, cors, errorFormat, error);
    }
  }

  /** As Fastify's request.protocol and request.host see it: forwarded values only from a trusted proxy, the last one given. */
  private endpointUrl(request: IncomingMessage, path: string): string {
    const forwarded = (name: string): string | undefined => {
      const value = this.context.config.trustProxy ? request.headers[name] : undefined;
      return typeof value === 'string' && value !== '' ? value.slice(value.lastIndexOf(',') + 1).trim() : undefined;
    };
    const protocol = forwarded('x-forwarded-proto') ?? ((request.socket as TLSSocket).encrypted ? 'https' : 'http');
    return `${protocol}://${forwarded('x-forwarded-host') ?? request.headers.host ?? ''}${path}`;
  }

  private answerError(response: ServerResponse, cors: Readonly<Record<string, string>>, format: ErrorFormat, error: unknown): void {
    if (response.headersSent || response.destroyed) {
      response.destroy();
      return;
    }
    const status = statusOf(error);
    if (status >= 500 && status !== 503 && status !== 504) this.logError(error);
    const { headers, body } = errorResponse(error, format);
    response.writeHead(status, { ...cors, ...headers, ...htmlProtection(headers['content-type']), 'content-length': Buffer.byteLength(body) });
    response.end(body);
  }
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';
}

function urlParamsOrUndefined(queryString: string): ProtocolParams | undefined {
  try {
    return parseUrlEncoded(queryString, 'the URL query string');
  } catch {
    return undefined;
  }
}

function bodyOf(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

function send(response: ServerResponse, cors: Readonly<Record<string, string>>, answer: QueryAnswer): void {
  const headers: Record<string, string | number> = { ...cors };
  for (const [name, value] of Object.entries(answer.headers)) headers[name] = name === 'vary' ? withVary(headers['vary'], value) : value;
  // A form may ask for an HTML page in its body (`output=html`), known only once it is read.
  for (const [name, value] of Object.entries(htmlProtection(headers['content-type']) ?? {})) headers[name] ??= value;
  const { body } = answer;
  if (body instanceof Readable) {
    response.writeHead(200, headers);
    // A failure after the headers cuts the connection, so the client sees an incomplete body.
    pipeline(body, response, (error) => {
      if (error) response.destroy();
    });
    return;
  }
  headers['content-length'] = Buffer.byteLength(body);
  response.writeHead(200, headers);
  response.end(body);
}

/** Whether the answer to these `output` and Accept values could be an HTML page (left to Fastify, with its page headers). */
function mayBeHtml(outputs: readonly string[], accept: string | undefined): boolean {
  return RESULT_KINDS.some((kind) => {
    const format = acceptableResultFormat(kind, outputs, accept);
    return format !== undefined && isHtml(format);
  });
}

const RESULT_KINDS = ['solutions', 'quads'] as const;
