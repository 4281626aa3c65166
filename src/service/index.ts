/**
 * What service/ offers to the layers above it: the SparqlService contract (queries, updates, the
 * Graph Store, description, health, metrics) and its two implementations, LocalService over the
 * embedded store and RemoteService in front of another SPARQL endpoint. The export list is kept up
 * to date by scripts/layer-imports.mjs; this paragraph is not.
 */
export {
  createLocalService,
  INLINE_QUERIES_MODES,
  type InlineQueriesMode,
  inlineQueriesSetting,
  type LocalService,
  type LocalServiceOptions,
} from './local-service.js';
export { RemoteEndpointError, RemoteTimeoutError } from './remote-errors.js';
export { createRemoteService, RemoteService } from './remote-service.js';
export {
  type CancelSignal,
  type DocumentFormat,
  type DocumentFormats,
  type GraphDocument,
  type GraphName,
  type PlanNode,
  type QueryExplanation,
  type QueryRequest,
  type QueryResult,
  type RemoteHealth,
  type RemoteRequestCounts,
  type ServiceDescriptionData,
  type ServiceHealth,
  type ServiceMetrics,
  type SolutionRow,
  type SparqlService,
  type UpdateRequest,
  type UpdateSummary,
} from './sparql-service.js';
export { queryReservation } from './worker-heap.js';
