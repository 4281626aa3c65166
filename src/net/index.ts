/**
 * What net/ offers to the layers above it: the HTTP client for every request to another server
 * (http-client.ts: remote mode's pooled EndpointClient), and fetching what a request makes the
 * server fetch (LOAD documents, SERVICE answers) within a target policy, a byte budget and a time
 * limit, with the settings that describe them (FetchSettings). The export list is kept up to date by
 * scripts/layer-imports.mjs; this paragraph is not.
 */
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
export { BodyQueue } from './body-queue.js';
export { EndpointClient, type ResponseBody } from './http-client.js';
export { ACK_PIECES_SETTINGS, type AckPieces, DEFAULT_ACK_PIECES, PieceAcks } from './piece-acks.js';
