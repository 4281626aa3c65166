/** What engine/ offers to the layers above it. Kept up to date by scripts/layer-imports.mjs. */
export { type EngineUpdateOptions } from './engine-api.js';
export { explainQuery, type PlanNode, type QueryExplanation } from './explain.js';
export { runQuery } from './query-engine.js';
export { applyUpdate, hasLoad, type PreparedUpdate, prepareUpdate } from './update/update-executor.js';
export { type EngineQueryResult } from './engine-api.js';
export { runUpdate } from './update/update-executor.js';
export { type GraphChanges, type UpdateSummary } from './update/update-summary.js';
