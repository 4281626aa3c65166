/**
 * What engine/ offers to the layers above it: a query or update evaluated over a store snapshot
 * (runQuery, runUpdate, prepareUpdate), its plan with estimated and actual rows (explainQuery), the
 * options and answers of those calls (engine-api.ts), and what an update changed (UpdateSummary).
 * Planning, operators, functions and SERVICE calls stay inside. The export list is kept up to date
 * by scripts/layer-imports.mjs; this paragraph is not.
 */
export { type EngineUpdateOptions } from './engine-api.js';
export { explainQuery, type PlanNode, type QueryExplanation } from './explain.js';
export { runQuery } from './query-engine.js';
export { setJoinTableCacheBytes } from './operators/keyed-quads.js';
export { applyUpdate, hasLoad, type PreparedUpdate, prepareUpdate } from './update/update-executor.js';
export { type EngineQueryResult } from './engine-api.js';
export { runUpdate } from './update/update-executor.js';
export { type GraphChanges, type UpdateSummary } from './update/update-summary.js';
