/** What every request handler needs: the service, the configuration and the mounted paths. */
import type { SparqlService } from '../service/index.js';
import type { ResolvedServerConfig } from './config.js';

export interface EndpointPaths {
  /** {base}/sparql */
  single: string;
  /** {base}/sparql/select */
  select: string;
  /** {base}/sparql/update */
  update: string;
  /** {base}/health */
  health: string;
}

export interface HandlerContext {
  service: SparqlService;
  config: ResolvedServerConfig;
  paths: EndpointPaths;
}

export function endpointPaths(basePath: string): EndpointPaths {
  return {
    single: `${basePath}/sparql`,
    select: `${basePath}/sparql/select`,
    update: `${basePath}/sparql/update`,
    health: `${basePath}/health`,
  };
}
