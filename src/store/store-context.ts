/**
 * What the readers and the writer of one open store share: the LMDB databases, the term caches and
 * whether this thread is inside a write transaction.
 */
import type { LmdbEnvironment } from './lmdb-types.js';
import { BoundedMap } from '../bounded-map.js';
import type { TermId } from './quad-store.js';
import { TermCache } from './term-cache.js';
import type { IdIndexDatabase } from './lmdb-types.js';
import type { IdToTermDatabase, TermToIdDatabase } from './term-dictionary.js';
import type { StatisticsDatabases } from './statistics.js';
import type { LoadLogDatabase } from './load-undo.js';

export interface StoreDatabases extends StatisticsDatabases {
  /** Permutation indexes by layout name (spo, pos, osp, gspo, ...). */
  readonly indexes: ReadonlyMap<string, IdIndexDatabase>;
  readonly idToTerm: IdToTermDatabase;
  readonly termToId: TermToIdDatabase;
  /** A staged load's log of new quads made of old terms (load-undo.ts); opened by writable handles only. */
  readonly loadLog?: LoadLogDatabase;
}

/** Entries kept by the term -> ID cache; a few MB, enough for the vocabulary and hot resources. */
export const TERM_CACHE_SIZE = 100_000;

export class StoreContext {
  /**
   * Committed dictionary entries only: an ID once committed names the same term forever (IDs are
   * never reused), so every snapshot may share these, whereas an ID issued by a write transaction
   * that then aborts may be issued again for another term. The one exception, a staged load undone
   * (which clears the store, and with it the ID counter), happens only while no other handle has the
   * store open (store-lock.ts), and clears these caches of its own handle.
   *
   * Nothing else here outlives a write transaction: each transaction's writer reads the next ID and
   * the statistics it adds to inside that transaction, so writers in several processes, whose
   * transactions LMDB serializes, each start from the other's last commit.
   */
  readonly termsById = new TermCache();
  readonly idsByKey = new BoundedMap<string, TermId>(TERM_CACHE_SIZE);
  /** True while this thread runs a write callback. */
  writing = false;
  readonly isWriting = (): boolean => this.writing;

  constructor(
    readonly env: LmdbEnvironment,
    readonly dbs: StoreDatabases,
    readonly readOnly: boolean,
  ) {}

  index(name: string): IdIndexDatabase {
    const db = this.dbs.indexes.get(name);
    if (!db) throw new Error(`no index ${name}`);
    return db;
  }
}
