import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from './http-connections.js';
import { stdoutSink, type LogSink } from './request-log.js';

/**
 * The knobs of the HTTP layer. Everything here is plain data so the CLI, tests and embedders build
 * the same server from flags, environment variables or literals.
 */

export interface ServerConfig {
  /** Path prefix of the three resources, e.g. '/marmotta'; '' (the default) mounts them at the root. */
  basePath?: string;
  /** Largest accepted request body in bytes (default 10 MiB); larger bodies get 413. */
  maxBody?: number;
  /**
   * A request, headers and body, must arrive within this many milliseconds (default 30 s); past it
   * the answer is 408 and the connection closes. Answers and running queries are not bound by it.
   */
  bodyTimeoutMs?: number;
  /** An idle keep-alive connection closes after this many milliseconds (default 72 s). */
  keepAliveTimeoutMs?: number;
  /** Default and maximum time limit of a query, in milliseconds (default 60 s). */
  queryTimeoutMs?: number;
  /** Default and maximum time limit of an update, in milliseconds (default 300 s). */
  updateTimeoutMs?: number;
  /** Refuse updates sent with GET on {base}/sparql/update (they are not safe against CSRF). */
  noGetUpdate?: boolean;
  /** Origins allowed by CORS; ['*'] (the default) allows any origin, [] switches CORS off. */
  corsOrigins?: string[];
  /** Honour X-Forwarded-Proto / X-Forwarded-Host (only behind a proxy you control). */
  trustProxy?: boolean;
  /** Fastify's own log (pino), for debugging the server itself; off by default. */
  logger?: boolean;
  /**
   * The request log: one JSON line per request (see request-log.ts). true writes to stdout; a
   * function receives each line. Off by default.
   */
  requestLog?: boolean | LogSink;
  /** Serve {base}/metrics (Prometheus text format); on by default. */
  metrics?: boolean;
  /**
   * Called before every write (update, graph store PUT/POST/DELETE) request, before its body is
   * read where the route alone tells it is a write; may throw an error with `status` 401 to refuse
   * it. auth.ts builds it from an update token or Basic credentials (accessHooks).
   */
  authorizeUpdate?: (request: AuthorizationInput) => void | Promise<void>;
  /** Same, for queries (and graph store reads, the service description, {base}/metrics). */
  authorizeQuery?: (request: AuthorizationInput) => void | Promise<void>;
  /**
   * Answer plain POSTed queries without Fastify's layers (direct-queries.ts); on by default. Off
   * makes every request take the Fastify route, which the tests compare it with.
   */
  directQueries?: boolean;
}

/** What an authorization hook sees of a request. */
export interface AuthorizationInput {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

export const DEFAULT_MAX_BODY = 10 * 1024 * 1024;
export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;
export const DEFAULT_UPDATE_TIMEOUT_MS = 300_000;

export interface ResolvedServerConfig {
  basePath: string;
  maxBody: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  queryTimeoutMs: number;
  updateTimeoutMs: number;
  noGetUpdate: boolean;
  corsOrigins: string[];
  trustProxy: boolean;
  logger: boolean;
  requestLog?: LogSink;
  metrics: boolean;
  authorizeUpdate?: ServerConfig['authorizeUpdate'];
  authorizeQuery?: ServerConfig['authorizeQuery'];
  directQueries: boolean;
}

export function resolveServerConfig(config: ServerConfig): ResolvedServerConfig {
  return {
    basePath: normalizeBasePath(config.basePath ?? ''),
    maxBody: config.maxBody ?? DEFAULT_MAX_BODY,
    bodyTimeoutMs: config.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    queryTimeoutMs: config.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    updateTimeoutMs: config.updateTimeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS,
    noGetUpdate: config.noGetUpdate ?? false,
    corsOrigins: config.corsOrigins ?? ['*'],
    trustProxy: config.trustProxy ?? false,
    logger: config.logger ?? false,
    requestLog: config.requestLog === true ? stdoutSink : config.requestLog || undefined,
    metrics: config.metrics ?? true,
    authorizeUpdate: config.authorizeUpdate,
    authorizeQuery: config.authorizeQuery,
    directQueries: config.directQueries ?? true,
  };
}

/** '/marmotta/' and 'marmotta' both become '/marmotta'; '/' and '' become ''. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : '/' + trimmed;
}
