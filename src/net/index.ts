/** What net/ offers to the layers above it. Kept up to date by scripts/layer-imports.mjs. */
export { TargetPolicy } from './fetch-targets.js';
export {
  type ByteLimit,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_MAX_FETCH_BYTES,
  FetchBudget,
  fetchOutbound,
  type FetchSettings,
  formatBytes,
} from './outbound-http.js';
