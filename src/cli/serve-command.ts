/**
 * `quiver serve`: the HTTP service over a store directory (or a throw-away memory store), with a
 * graceful stop on SIGTERM/SIGINT: stop accepting, let running requests finish up to a deadline,
 * then close the store.
 */
import { buildServer } from '../server/index.js';
import { normalizeBasePath, type ServerConfig } from '../server/index.js';
import { createLocalService, inlineQueriesSetting, INLINE_QUERIES_MODES, type InlineQueriesMode } from '../service/index.js';
import { createRemoteService, RemoteService } from '../service/index.js';
import { ACK_PIECES_SETTINGS, type AckPieces } from '../net/index.js';
import { SECURITY_OPTIONS, securitySettings } from './security-options.js';
import { FETCH_OPTIONS, fetchOptionSettings, type FetchOptionSettings } from './fetch-options.js';
import { MEMORY_OPTIONS, memorySettings } from './memory-options.js';
import {
  byteSize,
  helpText,
  oneOf,
  parseOptions,
  positiveInteger,
  positiveNumber,
  stringOption,
  UsageError,
  type OptionSpec,
  type ParsedOptions,
} from './options.js';

/** The memory defaults, where the serve tests and earlier callers look for them. */
export { defaultQueryMemory, formatByteSize, MAX_DEFAULT_QUERY_MEMORY } from './memory-options.js';

/**
 * Loopback by default: a fresh install should not expose a writable endpoint to the network; use
 * --host 0.0.0.0 in a container or behind a proxy. Port 7878 is clear of the usual development
 * ports (3000, 8080) and is the port of Oxigraph, the closest comparable server.
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7878;

export const SERVE_OPTIONS: OptionSpec[] = [
  { name: 'store', type: 'string', value: 'DIR', default: './data', description: 'store directory (created when missing)' },
  { name: 'memory', type: 'boolean', description: 'use a throw-away store instead of --store' },
  {
    name: 'union-default-graph',
    type: 'boolean',
    description: "the default graph of queries is the union of all graphs; writes without GRAPH still go to the store's own default graph",
  },
  { name: 'remote', type: 'string', value: 'URL', description: 'remote mode: forward to this SPARQL query endpoint instead of a store' },
  { name: 'remote-update', type: 'string', value: 'URL', description: 'remote mode: the update endpoint (default: --remote)' },
  { name: 'remote-user', type: 'string', value: 'USER', description: 'remote mode: HTTP Basic user for the remote' },
  { name: 'remote-password', type: 'string', value: 'PASSWORD', description: 'remote mode: its password (prefer the environment variable)' },
  { name: 'remote-token', type: 'string', value: 'TOKEN', description: 'remote mode: bearer token for the remote (prefer the environment variable)' },
  {
    name: 'remote-ack-pieces',
    type: 'string',
    value: 'MODE',
    description:
      'remote mode: acknowledge the pieces of a large answer at once with an empty line, for remotes that write in pieces with Nagle on (Virtuoso): close = and close that connection after the answer (default), reuse = and keep it (only for remotes that skip empty lines before a request, as Virtuoso does), off = never',
  },
  { name: 'host', type: 'string', value: 'HOST', default: DEFAULT_HOST, description: 'interface to listen on' },
  { name: 'port', type: 'string', value: 'PORT', default: String(DEFAULT_PORT), description: 'TCP port (0: any free port)' },
  { name: 'base-path', type: 'string', value: '/PREFIX', description: 'path prefix of the endpoints, e.g. /marmotta (default: none)' },
  { name: 'query-timeout', type: 'string', value: 'S', default: '60', description: 'time limit of a query, in seconds' },
  { name: 'update-timeout', type: 'string', value: 'S', default: '300', description: 'time limit of an update, in seconds' },
  { name: 'max-body', type: 'string', value: 'BYTES', default: '10MiB', description: 'largest request body' },
  {
    name: 'body-timeout',
    type: 'string',
    value: 'S',
    default: '30',
    description: 'a request, headers and body, must arrive within S seconds; beyond: 408 and the connection closes',
  },
  { name: 'workers', type: 'string', value: 'N', description: 'queries evaluated at once (default: one per CPU)' },
  { name: 'max-queue', type: 'string', value: 'N', default: '64', description: 'queries that may wait; beyond: 503' },
  {
    name: 'inline-queries',
    type: 'string',
    value: 'MODE',
    default: 'auto',
    description:
      'queries proven cheap (< 1 ms) run on the main thread, saving two thread hand-offs: auto = unless the main thread is saturated while a core idles, idle = only while no other query is in flight, always = whenever one is cheap, off = every query on a worker',
  },
  {
    name: 'direct-queries',
    type: 'string',
    value: 'on|off',
    default: 'on',
    description: 'plain query requests answered before Fastify routing (same answers); off = every request through Fastify',
  },
  ...MEMORY_OPTIONS,
  { name: 'no-get-update', type: 'boolean', description: 'refuse updates sent with GET' },
  { name: 'cors-origins', type: 'string', value: 'LIST', default: '*', description: "comma-separated allowed origins; 'none' switches CORS off" },
  { name: 'trust-proxy', type: 'boolean', description: 'honour X-Forwarded-Proto/Host (behind your own proxy)' },
  { name: 'shutdown-timeout', type: 'string', value: 'S', default: '10', description: 'on SIGTERM, how long running requests may finish' },
  { name: 'log', type: 'boolean', description: 'log every request: one JSON line each on stdout (default: off)' },
  ...SECURITY_OPTIONS,
  ...FETCH_OPTIONS,
  { name: 'help', type: 'boolean', description: 'show this help', noEnv: true },
];

export const SERVE_HELP = helpText(
  'Usage: quiver serve [--store DIR | --memory | --remote URL] [--host HOST] [--port PORT] [options]',
  'Serves the SPARQL 1.1 endpoints {base}/sparql, {base}/sparql/select, {base}/sparql/update, the graph store\n' +
    '{base}/sparql/store, {base}/health (200 or 503) and {base}/metrics (Prometheus text format).',
  SERVE_OPTIONS,
);

export interface ServeSettings {
  store?: string;
  /** Remote mode: the endpoints and credentials of the SPARQL service doing the work. */
  remote?: RemoteSettings;
  memory: boolean;
  /** --union-default-graph: queries that name no graphs read the union of all graphs. */
  unionDefaultGraph: boolean;
  host: string;
  port: number;
  workers?: number;
  maxQueue?: number;
  inlineQueries: InlineQueriesMode;
  /** --query-memory in bytes (undefined: no budget). */
  queryMemoryBudget?: number;
  /** --max-memory in bytes (undefined: no limit). */
  maxMemory?: number;
  /** LOAD policy of the local store: --no-load, --load-dir (its real path). */
  allowLoad: boolean;
  loadDir?: string;
  /** What LOAD and SERVICE may fetch: --no-service, --fetch-allow, --max-fetch-bytes, --fetch-timeout. */
  fetch: FetchOptionSettings;
  shutdownTimeoutMs: number;
  server: ServerConfig;
}

export function serveSettings(args: string[], env: NodeJS.ProcessEnv): ServeSettings | 'help' {
  const { values, positionals } = parseOptions(SERVE_OPTIONS, args, env);
  if (values['help']) return 'help';
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got: ${positionals.join(' ')}`);
  const port = Number(stringOption(values, 'port'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, not '${values['port']}'`);
  const queryTimeoutS = positiveNumber(values, 'query-timeout')!;
  const updateTimeoutS = positiveNumber(values, 'update-timeout')!;
  const workers = positiveInteger(values, 'workers');
  const cors = stringOption(values, 'cors-origins')!.trim();
  const remote = remoteSettings(values);
  const security = securitySettings(values);
  const memory = memorySettings(values, workers);
  return {
    store: stringOption(values, 'store'),
    memory: values['memory'] === true,
    unionDefaultGraph: values['union-default-graph'] === true,
    remote,
    host: stringOption(values, 'host')!,
    port,
    workers,
    maxQueue: positiveInteger(values, 'max-queue'),
    inlineQueries: inlineQueriesMode(values),
    queryMemoryBudget: memory.queryMemoryBudget,
    maxMemory: memory.maxMemory,
    allowLoad: security.allowLoad,
    loadDir: security.loadDir,
    fetch: fetchOptionSettings(values),
    shutdownTimeoutMs: positiveNumber(values, 'shutdown-timeout')! * 1000,
    server: {
      ...security.server,
      basePath: stringOption(values, 'base-path'),
      maxBody: byteSize(values, 'max-body'),
      bodyTimeoutMs: positiveNumber(values, 'body-timeout')! * 1000,
      queryTimeoutMs: queryTimeoutS * 1000,
      updateTimeoutMs: updateTimeoutS * 1000,
      noGetUpdate: values['no-get-update'] === true,
      corsOrigins:
        cors === 'none'
          ? []
          : cors
              .split(',')
              .map((origin) => origin.trim())
              .filter(Boolean),
      trustProxy: values['trust-proxy'] === true,
      requestLog: values['log'] === true,
      directQueries: oneOf('direct-queries', stringOption(values, 'direct-queries')!.trim().toLowerCase(), ['on', 'off'] as const) === 'on',
    },
  };
}

export async function serve(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const settings = serveSettings(args, env);
  if (settings === 'help') {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const service = settings.remote
    ? createRemoteService({ ...settings.remote, queryTimeoutMs: settings.server.queryTimeoutMs, updateTimeoutMs: settings.server.updateTimeoutMs })
    : await createLocalService({
        store: settings.memory ? undefined : settings.store,
        memory: settings.memory,
        unionDefaultGraph: settings.unionDefaultGraph,
        workers: settings.workers,
        maxQueue: settings.maxQueue,
        inlineCheapQueries: inlineQueriesSetting(settings.inlineQueries),
        queryMemoryBudget: settings.queryMemoryBudget,
        maxMemory: settings.maxMemory,
        allowLoad: settings.allowLoad,
        loadDir: settings.loadDir,
        allowService: settings.fetch.allowService,
        fetchSettings: settings.fetch.fetchSettings,
        queryTimeoutMs: settings.server.queryTimeoutMs,
        updateTimeoutMs: settings.server.updateTimeoutMs,
      });
  const app = buildServer(service, settings.server);
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await service.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  process.stdout.write(`listening on http://${host}:${port}${normalizeBasePath(settings.server.basePath ?? '')}/sparql\n`);
  if (service instanceof RemoteService) process.stdout.write(`remote mode: queries go to ${service.endpoints.query}, updates to ${service.endpoints.update}\n`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        process.stderr.write(`${signal} again: stopping now\n`);
        process.exit(1);
      }
      stopping = true;
      process.stderr.write(`${signal}: finishing running requests, then stopping\n`);
      const deadline = setTimeout(() => app.server.closeAllConnections(), settings.shutdownTimeoutMs);
      deadline.unref();
      app
        .close()
        .then(() => service.close())
        .then(
          () => resolve(0),
          (error: unknown) => {
            process.stderr.write(`error while stopping: ${(error as Error).message}\n`);
            resolve(1);
          },
        );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

function inlineQueriesMode(values: ParsedOptions['values']): InlineQueriesMode {
  return oneOf('inline-queries', stringOption(values, 'inline-queries')!.trim().toLowerCase(), INLINE_QUERIES_MODES);
}

export interface RemoteSettings {
  queryEndpoint: string;
  updateEndpoint?: string;
  user?: string;
  password?: string;
  token?: string;
  /** --remote-ack-pieces; undefined: the service's default. */
  ackPieces?: AckPieces;
}

/** The --remote* flags; credentials without --remote are a mistake worth saying. */
function remoteSettings(values: ParsedOptions['values']): RemoteSettings | undefined {
  const queryEndpoint = stringOption(values, 'remote');
  const others = ['remote-update', 'remote-user', 'remote-password', 'remote-token', 'remote-ack-pieces'].filter(
    (name) => stringOption(values, name) !== undefined,
  );
  if (queryEndpoint === undefined) {
    if (others.length > 0) throw new UsageError(`--${others[0]} needs --remote URL`);
    return undefined;
  }
  if (values['memory'] === true) throw new UsageError('--remote and --memory exclude each other: remote mode has no store');
  if (values['union-default-graph'] === true) throw new UsageError("--union-default-graph needs a store: in remote mode the remote's own setting decides");
  for (const name of ['remote', 'remote-update']) {
    const url = stringOption(values, name);
    if (url !== undefined && !/^https?:\/\/[^/]/i.test(url)) throw new UsageError(`--${name} must be an http(s) URL of a SPARQL endpoint`);
  }
  if (stringOption(values, 'remote-token') !== undefined && stringOption(values, 'remote-user') !== undefined) {
    throw new UsageError('give either --remote-token or --remote-user/--remote-password, not both');
  }
  return {
    queryEndpoint,
    updateEndpoint: stringOption(values, 'remote-update'),
    user: stringOption(values, 'remote-user'),
    password: stringOption(values, 'remote-password'),
    token: stringOption(values, 'remote-token'),
    ackPieces: ackPiecesSetting(stringOption(values, 'remote-ack-pieces')),
  };
}

function ackPiecesSetting(value: string | undefined): AckPieces | undefined {
  return value === undefined ? undefined : oneOf('remote-ack-pieces', value.trim().toLowerCase(), ACK_PIECES_SETTINGS);
}
