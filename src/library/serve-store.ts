/**
 * `quiver serve` from a program: the HTTP endpoint (the three SPARQL resources, the Graph Store
 * Protocol, the pages) in front of a store the program has open. Closing the endpoint leaves the
 * store open; the program closes it when it is done with it.
 */
import { buildServer } from '../server/index.js';
import type { ServerConfig } from '../server/index.js';
import type { QuiverStore } from './quiver-store.js';

export interface ServeOptions extends ServerConfig {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port, see `url`. */
  port?: number;
}

export interface RunningEndpoint {
  /** The query endpoint, e.g. http://127.0.0.1:41235/sparql. */
  readonly url: string;
  /** Stops listening once running requests are answered. */
  close(): Promise<void>;
}

export async function serveStore(store: QuiverStore, options: ServeOptions = {}): Promise<RunningEndpoint> {
  const { host = '127.0.0.1', port = 0, ...config } = options;
  const app = buildServer(store.service, config);
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${boundPort}${config.basePath ?? ''}/sparql`,
    close: () => app.close(),
  };
}
