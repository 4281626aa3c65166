/**
 * The route patterns of the server ({base} included), and the short endpoint names that label them
 * in logs and metrics: a fixed set, whatever URLs clients try.
 */
import { graphStorePath } from './graph-store.js';

export interface ServerRoutes {
  single: string;
  select: string;
  update: string;
  store: string;
  health: string;
  metrics: string;
  /** The store's classes, properties and prefixes, for the query editor's completion. */
  vocabulary: string;
}

export function serverRoutes(basePath: string): ServerRoutes {
  return {
    single: `${basePath}/sparql`,
    select: `${basePath}/sparql/select`,
    update: `${basePath}/sparql/update`,
    store: graphStorePath(basePath),
    health: `${basePath}/health`,
    metrics: `${basePath}/metrics`,
    vocabulary: `${basePath}/sparql/vocabulary`,
  };
}

export type EndpointName = 'sparql' | 'select' | 'update' | 'store' | 'health' | 'metrics' | 'other';

/** The endpoint of a matched route pattern (undefined: no route matched). */
export function endpointName(route: string | undefined, routes: ServerRoutes): EndpointName {
  switch (route) {
    case routes.single:
      return 'sparql';
    case routes.select:
      return 'select';
    case routes.update:
      return 'update';
    case routes.store:
    case `${routes.store}/*`:
      return 'store';
    case routes.health:
      return 'health';
    case routes.metrics:
      return 'metrics';
    default:
      return 'other';
  }
}
