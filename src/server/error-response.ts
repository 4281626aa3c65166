/**
 * Turning any failure into a status code, headers and a body. Lower layers throw the classes of
 * src/errors.ts (mapped to statuses here); Fastify's own errors carry `statusCode`; anything else is
 * an internal error (500) whose message is still shown, as the seed asks.
 */
import {
  CancelledError,
  EvaluationError,
  OverloadedError,
  ProtocolError,
  QuiverError,
  ResourceLimitError,
  StorageFullError,
  StoreClosedError,
  SparqlSyntaxError,
  TimeoutError,
} from '../errors.js';
import { HttpError } from './http-error.js';
import { SerializationError } from '../formats/index.js';
import { RemoteEndpointError, RemoteTimeoutError } from '../service/index.js';
import { escapeHtml, htmlPage } from './html.js';

export type ErrorFormat = 'text' | 'html' | 'json' | 'xml';

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  499: 'Client Closed Request',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

/** The status of each error class of the lower layers; a QuiverError not listed is a 500. */
const STATUS_OF_ERROR: [new (...args: never[]) => QuiverError, number][] = [
  [SparqlSyntaxError, 400],
  [ProtocolError, 400],
  [EvaluationError, 500],
  [ResourceLimitError, 500],
  [TimeoutError, 504],
  [CancelledError, 499],
  [OverloadedError, 503],
  [StoreClosedError, 503],
  [StorageFullError, 507],
  [SerializationError, 406],
  [RemoteEndpointError, 502],
  [RemoteTimeoutError, 504],
];

export function statusOf(error: unknown): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof QuiverError) return STATUS_OF_ERROR.find(([type]) => error instanceof type)?.[1] ?? 500;
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 600) return statusCode;
  return 500;
}

/** Said after a query's memory failure: the engine knows the budget, only the server knows its flag. */
export const MEMORY_BUDGET_HINT = 'the budget of one query is set with quiver serve --query-memory (QUIVER_QUERY_MEMORY)';

function messageOf(error: unknown, status: number): string {
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message !== 'string' || message === '') return REASONS[status] ?? 'error';
  return error instanceof ResourceLimitError ? `${message}; ${MEMORY_BUDGET_HINT}` : message;
}

/** The error body format asked for by `output` (short name or media type); plain text otherwise. */
export function errorFormatFor(output: string | undefined): ErrorFormat {
  const value = output?.trim().toLowerCase();
  if (value === undefined) return 'text';
  if (value === 'html' || value === 'text/html') return 'html';
  if (value === 'json' || value.endsWith('json')) return 'json';
  if (value === 'xml' || value.endsWith('xml')) return 'xml';
  return 'text';
}

export function errorResponse(error: unknown, format: ErrorFormat): ErrorResponse {
  const status = statusOf(error);
  const message = messageOf(error, status);
  // The body may echo the request (a query's text, an Origin): never let a browser sniff it into a page.
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff' };
  if (error instanceof OverloadedError) headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error instanceof HttpError) Object.assign(headers, error.headers);
  const reason = REASONS[status] ?? 'Error';
  switch (format) {
    case 'json':
      headers['content-type'] = 'application/json; charset=utf-8';
      return { status, headers, body: JSON.stringify({ status, error: reason, message }) + '\n' };
    case 'xml':
      headers['content-type'] = 'application/xml; charset=utf-8';
      return {
        status,
        headers,
        body: `<?xml version="1.0" encoding="utf-8"?>\n<error status="${status}"><reason>${escapeXml(reason)}</reason><message>${escapeXml(message)}</message></error>\n`,
      };
    case 'html':
      headers['content-type'] = 'text/html; charset=utf-8';
      return {
        status,
        headers,
        body: htmlPage(`${status} ${reason}`, `<h1>${status} ${escapeHtml(reason)}</h1>\n<pre class="error">${escapeHtml(message)}</pre>`),
      };
    default:
      headers['content-type'] = 'text/plain; charset=utf-8';
      return { status, headers, body: message + '\n' };
  }
}

function escapeXml(text: string): string {
  // Characters XML 1.0 forbids cannot be escaped; they are replaced so the document stays well-formed.
  return (
    text
      .replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
      // eslint-disable-next-line no-control-regex -- matching the control characters is the point
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
  );
}
