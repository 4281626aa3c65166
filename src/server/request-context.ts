/** Reading a request the way the SPARQL Protocol sees it: URL parameters, body, absolute URLs. */
import type { FastifyRequest } from 'fastify';
import { ProtocolError } from '../errors.js';
import { assertUtf8Charset, isForm, parseMediaType, type MediaType } from './media-type.js';
import { decodeUtf8, OUTPUT_PARAMETERS, parseUrlEncoded, rawQueryString, ProtocolParams } from './protocol-params.js';
import type { ErrorFormat } from './error-response.js';

export interface RequestBody {
  /** Undefined when the request has no Content-Type. */
  type: MediaType | undefined;
  /** The body decoded as UTF-8 ('' when there is none). */
  text: string;
}

export function urlParams(request: FastifyRequest): ProtocolParams {
  return parseUrlEncoded(rawQueryString(request.raw.url ?? ''), 'the URL query string');
}

/** The body as text; a declared charset other than UTF-8 is a 415, undecodable bytes a 400. */
export function readBody(request: FastifyRequest): RequestBody {
  const type = parseMediaType(request.headers['content-type']);
  const raw = request.body;
  if (raw === undefined || raw === null) return { type, text: '' };
  assertUtf8Charset(type);
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
  return { type, text: decodeUtf8(bytes) };
}

/**
 * The query of a POST to {base}/sparql/select, whatever its media type: the body, unless it is a form
 * with query fields, whose fields then join the URL's `params`.
 */
export function selectPostQuery(params: ProtocolParams, body: RequestBody): string | undefined {
  const form = isForm(body.type) ? queryForm(body.text) : undefined;
  if (form !== undefined) {
    params.addAll(form);
    return params.single('query');
  }
  // Not a form with query fields (a raw query may come with a form media type): the body is the query.
  return bodyQuery(params, body);
}

/** A body that is the query; an empty one leaves it to the URL's `query`. */
export function bodyQuery(params: ProtocolParams, body: RequestBody): string | undefined {
  if (body.text.trim() === '') return params.single('query');
  if (params.has('query')) throw new ProtocolError(`a query was sent both in the body and in the 'query' URL parameter`);
  return body.text;
}

const QUERY_FORM_FIELDS = ['query', ...OUTPUT_PARAMETERS, 'default-graph-uri', 'named-graph-uri', 'timeout'];

/** The body's form fields when it is a form with a query field; undefined when it is not a form. */
function queryForm(text: string): ProtocolParams | undefined {
  try {
    const form = parseUrlEncoded(text, 'the form body');
    return QUERY_FORM_FIELDS.some((name) => form.has(name)) ? form : undefined;
  } catch {
    // Not decodable as a form: a raw query whose '%' signs are not escapes.
    return undefined;
  }
}

/** URL parameters plus, for a form body, the form's fields (a name in both counts twice). */
export function allParams(request: FastifyRequest, body: RequestBody): ProtocolParams {
  const params = urlParams(request);
  if (isForm(body.type)) params.addAll(parseUrlEncoded(body.text, 'the form body'));
  return params;
}

/** Absolute URL of a path on this server, as the client sees it (proxy headers only when trusted). */
export function absoluteUrl(request: FastifyRequest, path: string): string {
  return `${request.protocol}://${request.host}${path}`;
}

/** The per-request time limit: `timeout` seconds, never above the server maximum. */
export function timeoutMs(params: ProtocolParams, maximumMs: number): number {
  const value = params.single('timeout');
  if (value === undefined || value.trim() === '') return maximumMs;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new ProtocolError(`the timeout parameter must be a positive number of seconds, not '${value}'`);
  }
  return Math.min(Math.round(seconds * 1000), maximumMs);
}

/** How each request wants its error body; set by a handler as soon as it knows `output`. */
const errorFormats = new WeakMap<FastifyRequest, ErrorFormat>();

export function setErrorFormat(request: FastifyRequest, format: ErrorFormat): void {
  errorFormats.set(request, format);
}

export function errorFormatOf(request: FastifyRequest): ErrorFormat {
  return errorFormats.get(request) ?? 'text';
}
