/** A real server on 127.0.0.1 and an ephemeral port, for the HTTP suites. */
import type { AddressInfo } from 'node:net';
import { buildServer } from '../../src/server/app.js';
import type { ServerConfig } from '../../src/server/config.js';
import { createLocalService, type LocalServiceOptions } from '../../src/service/local-service.js';
import type { SparqlService } from '../../src/service/sparql-service.js';

export interface RunningServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  url(path: string): string;
  close(): Promise<void>;
}

export async function startServer(service: SparqlService, config: ServerConfig = {}): Promise<RunningServer> {
  const app = buildServer(service, config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => origin + path,
    close: async () => {
      await app.close();
      await service.close();
    },
  };
}

/** The server over a real LocalService on a throw-away store (with `options` of its own, if given). */
export async function startLocalServer(config: ServerConfig = {}, options: LocalServiceOptions = {}): Promise<RunningServer> {
  const service = await createLocalService({ memory: true, workers: 2, ...options });
  return startServer(service, config);
}

export function encodeQuery(params: Record<string, string | string[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, v);
  }
  return search.toString();
}

export const FORM = 'application/x-www-form-urlencoded';
export const MISSPELLED_FORM = 'application/x-www-url-form-urlencoded';
export const SPARQL_QUERY = 'application/sparql-query';
export const SPARQL_UPDATE = 'application/sparql-update';
