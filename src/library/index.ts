/**
 * What the library offers: open a store, query and update it, load and dump RDF, explain a query,
 * use it as an RDF/JS Source and Store, and serve it over HTTP. Errors are the classes of
 * errors.ts, which carry no HTTP status.
 */
export { openQuiver, QuiverStore } from './quiver-store.js';
export type { CallOptions, DumpOptions, LoadOptions, OpenOptions, QueryOptions, UpdateOptions } from './quiver-store.js';
export type { AskAnswer, Bindings, QuadsAnswer, QueryAnswer, SelectAnswer } from './query-answers.js';
export { serveStore, type ServeOptions, type RunningEndpoint } from './serve-store.js';
export type { PlanNode, QueryExplanation } from '../service/index.js';
export type { InlineQueriesMode } from '../service/index.js';
export type { GraphChanges, UpdateSummary } from '../engine/index.js';
export type { FetchSettings } from '../net/index.js';
export {
  CancelledError,
  EvaluationError,
  OverloadedError,
  ProtocolError,
  QuiverError,
  ResourceLimitError,
  StorageFullError,
  StoreClosedError,
  StoreOpenError,
  SparqlSyntaxError,
  TimeoutError,
} from '../errors.js';
