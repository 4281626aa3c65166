/**
 * The remote endpoints of a federation test (qt:serviceData), stood in for by Quiver endpoints of
 * our own on loopback: each a memory store loaded with the endpoint's data and served over HTTP on
 * a free port. The query runs as written: the endpoint IRIs it names (http://example.org/sparql)
 * reach these servers through fetch aliases (FetchSettings.aliases), as `quiver serve
 * --fetch-alias` would map them. The endpoints get the same aliases, for the SERVICE calls nested
 * in the patterns they are sent.
 */
import { fileURLToPath } from 'node:url';
import { openQuiver, serveStore, type FetchSettings, type QuiverStore, type RunningEndpoint } from '../../src/library/index.js';
import type { ServiceData } from './manifest.js';

/** The servers listen on loopback, which the target policy opens only when asked. */
const LOOPBACK = ['127.0.0.1'];

export class ServiceEndpoints {
  private constructor(
    private readonly stores: QuiverStore[],
    private readonly servers: RunningEndpoint[],
    /** What the query under test may fetch: the endpoints, by the IRIs the test names them with. */
    readonly fetchSettings: FetchSettings,
  ) {}

  static async start(services: ServiceData[]): Promise<ServiceEndpoints> {
    // Filled once every endpoint listens, before any query: each query reads the table afresh.
    const aliases: Record<string, string> = {};
    const fetchSettings: FetchSettings = { allow: LOOPBACK, aliases };
    const endpoints = new ServiceEndpoints([], [], fetchSettings);
    const start = async (service: ServiceData) => {
      // Queries on the calling thread: none waits for a query worker to start.
      const store = await openQuiver({ memory: true, workers: 1, inlineQueries: 'always', fetch: fetchSettings });
      endpoints.stores.push(store);
      for (const { file, name } of service.data) await store.loadFile(fileURLToPath(file), { baseIri: file, graph: name });
      const server = await serveStore(store);
      endpoints.servers.push(server);
      aliases[service.endpoint] = server.url;
    };
    try {
      // At once: opening a store starts its worker threads, the slowest part.
      const started = await Promise.allSettled(services.map(start));
      for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    } catch (error) {
      await endpoints.close();
      throw error;
    }
    return endpoints;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.servers.map((server) => server.close()));
    await Promise.allSettled(this.stores.map((store) => store.close()));
  }
}
