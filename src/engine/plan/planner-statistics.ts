/**
 * The store statistics the optimizer estimates from, shared by the queries on one store. Reading
 * them whole (every predicate's and graph's count) costs more than planning a small query. Where
 * the reader has a content version, statistics read under one version serve every snapshot of
 * that version: exact, and checked with a single read. Otherwise an estimate does not need them
 * exact: they are re-read when the store's quad counts change, and at least every
 * STATISTICS_MAX_AGE_MS. Stale figures can only make a plan slower, never an answer wrong.
 */
import { ANY, DEFAULT_GRAPH_ID, type QuadStore, type StoreReader, type StoreStatistics } from '../../store/index.js';

const STATISTICS_MAX_AGE_MS = 1000;

interface Cached {
  statistics: StoreStatistics;
  /** The content version they were read under, if the reader had one. */
  version: number | undefined;
  /** The quad counts they were read with (default graph, named graphs), for readers without versions. */
  fingerprint: string;
  readAt: number;
}

const byStore = new WeakMap<QuadStore, Cached>();

/** A statistics source for one query on `reader`, a snapshot of `store`. */
export function sharedStatistics(store: QuadStore, reader: StoreReader): () => StoreStatistics {
  return () => {
    const cached = byStore.get(store);
    const version = reader.contentVersion?.();
    if (version !== undefined) {
      if (cached?.version === version) return cached.statistics;
      const statistics = reader.statistics();
      byStore.set(store, { statistics, version, fingerprint: '', readAt: Date.now() });
      return statistics;
    }
    const fingerprint = `${reader.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID)}/${reader.count(ANY, ANY, ANY, ANY)}`;
    const now = Date.now();
    if (cached && cached.version === undefined && cached.fingerprint === fingerprint && now - cached.readAt < STATISTICS_MAX_AGE_MS) return cached.statistics;
    const statistics = reader.statistics();
    byStore.set(store, { statistics, version: undefined, fingerprint, readAt: now });
    return statistics;
  };
}
