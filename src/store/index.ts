/**
 * What store/ offers to the layers above it: opening a store (openStore), its reader and writer
 * contract over term IDs (quad-store.ts: snapshots, transactions, statistics, the union of graphs),
 * the term hash, and pattern scans by term keys. The export list is kept up to date by
 * scripts/layer-imports.mjs; this paragraph is not.
 */
export { openStore, storeExists } from './lmdb-store.js';
export {
  ANY,
  DEFAULT_GRAPH_ID,
  type QuadStore,
  QUERY_LOCAL_ID_BASE,
  type StoreReader,
  type StoreStatistics,
  type StoreWriter,
  type TermId,
  UNBOUND,
  UNION_GRAPH,
} from './quad-store.js';
export { warmUpSort } from './sorted-keys.js';
export { hasRoomToWrite } from './storage-full.js';
export { avalanche, hashTermKeyBytes } from './term-hash.js';
export { codedPlainLiteral } from './term-text-code.js';
export { keyedPattern, type KeyedPattern, matchingQuads, patternOfKeys, type QuadPattern, removeMatching } from './term-pattern-scan.js';
export { hashTermKeysWords } from './term-hash-words.js';
