/**
 * Cross-site request forgery: a page on another site can make a browser send a form POST, or a GET
 * update through a link or an image, to this server, and the browser adds the Basic credentials it
 * remembers for it. So wherever writes are meant to be limited (credentials are set, or CORS is
 * restricted to named origins), a write that a browser says comes from another site is refused with
 * 403 before anything is read or run.
 *
 * A browser tells where a request comes from with Origin (on every POST, and on cross-origin
 * requests) and Sec-Fetch-Site (on every request, also GET navigations, which carry no Origin).
 * Neither can be set by a page's script. A write is accepted when the browser says it is
 * same-origin (or typed by the user), when its Origin is this server's own (the Host it was sent
 * to) or one listed in --cors-origins; requests with neither header (curl, other servers) are not
 * a browser's and pass as before.
 *
 * `--cors-origins '*'` (the default) lets any origin write as before, except with HTTP Basic
 * credentials: a browser sends those by itself, to any page's request, so they prove nothing about
 * the page. A bearer token is only ever sent by a script that holds it, which is what CORS for any
 * origin is for.
 */
import type { FastifyInstance } from 'fastify';
import { accessKind } from './access-guard.js';
import type { ResolvedServerConfig } from './config.js';
import { HttpError } from './http-error.js';
import { rawQueryString } from './protocol-params.js';
import type { ServerRoutes } from './server-routes.js';

type Headers = Record<string, string | string[] | undefined>;

/** Checks every request the route, method and URL show to be a write (forms on {base}/sparql: answerUpdate). */
export function registerWriteOriginGuard(app: FastifyInstance, config: ResolvedServerConfig, routes: ServerRoutes): void {
  if (!guardsWrites(config)) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const shape = {
      method: request.method,
      route: request.routeOptions.url,
      contentType: request.headers['content-type'],
      accept: request.headers.accept,
      queryString: rawQueryString(request.raw.url ?? ''),
    };
    try {
      if (accessKind(shape, routes) === 'update') refuseCrossSiteWrite(config, request.headers);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}

/** Whether writes are limited at all: with open writes and CORS for every origin, anyone may write anyway. */
export function guardsWrites(config: Pick<ResolvedServerConfig, 'authorizeUpdate' | 'corsOrigins'>): boolean {
  return config.authorizeUpdate !== undefined || !config.corsOrigins.includes('*');
}

/** Throws a 403 when the write comes from another site's page; does nothing when writes are not limited. */
export function refuseCrossSiteWrite(config: Pick<ResolvedServerConfig, 'authorizeUpdate' | 'corsOrigins' | 'trustProxy'>, headers: Headers): void {
  if (!guardsWrites(config)) return;
  const anyOrigin = config.corsOrigins.includes('*') && !carriesBasicCredentials(headers);
  if (anyOrigin) return;
  const source = crossSiteSource(headers, ownHosts(headers, config.trustProxy), config.corsOrigins);
  if (source === undefined) return;
  throw new HttpError(
    403,
    `cross-site write refused: the request comes from ${source}, which is neither this server's origin nor one allowed by --cors-origins`,
  );
}

/** How the request shows it comes from another site (for the message), or undefined when it does not. */
export function crossSiteSource(headers: Headers, hosts: string[], allowedOrigins: string[]): string | undefined {
  const fetchSite = single(headers['sec-fetch-site'])?.toLowerCase();
  if (fetchSite === 'same-origin' || fetchSite === 'none') return undefined;
  const origin = single(headers['origin']);
  if (origin !== undefined) {
    return isAllowed(origin, allowedOrigins) || isOwn(origin, hosts) ? undefined : `Origin ${origin}`;
  }
  return fetchSite === 'cross-site' || fetchSite === 'same-site' ? `Sec-Fetch-Site: ${fetchSite}` : undefined;
}

/** Basic credentials are the ones a browser adds by itself, once the user gave them on this server. */
function carriesBasicCredentials(headers: Headers): boolean {
  return /^\s*basic\s/i.test(single(headers['authorization']) ?? '');
}

/** The names the client addressed this server by: Host, and the forwarded host behind a trusted proxy. */
function ownHosts(headers: Headers, trustProxy: boolean): string[] {
  const hosts = [single(headers['host'])];
  const forwarded = trustProxy ? single(headers['x-forwarded-host']) : undefined;
  if (forwarded !== undefined) hosts.push(forwarded.slice(forwarded.lastIndexOf(',') + 1).trim());
  return hosts.filter((host): host is string => host !== undefined && host !== '');
}

function isAllowed(origin: string, allowedOrigins: string[]): boolean {
  const wanted = normalOrigin(origin);
  return allowedOrigins.some((allowed) => allowed !== '*' && normalOrigin(allowed) === wanted);
}

/** Whether Origin names the host (and port) the request was sent to; 'null' and opaque origins never do. */
function isOwn(origin: string, hosts: string[]): boolean {
  const url = parsedOrigin(origin);
  if (url === undefined) return false;
  // The host as the origin's scheme writes it, so a default port written out still matches.
  return hosts.some((host) => parsedOrigin(`${url.protocol}//${host}`)?.host === url.host);
}

function normalOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

function parsedOrigin(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
