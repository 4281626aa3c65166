/**
 * The slice of the lmdb-js database API the store uses, typed for our keys (arrays of IDs, term
 * keys, hashed term keys) which lmdb-js' own declarations do not describe.
 */
import type { Transaction } from 'lmdb';

export type { Transaction };

export interface ReadOptions {
  transaction?: Transaction;
}

export interface KeyRange<K> extends ReadOptions {
  start?: K;
  end?: K;
  inclusiveEnd?: boolean;
  limit?: number;
  reverse?: boolean;
}

export interface PutFlags {
  /** MDB_NOOVERWRITE: the put fails (returns false) when the key exists. */
  noOverwrite?: boolean;
  /** MDB_APPEND: the key sorts after every key in the database. */
  append?: boolean;
}

export interface KvDatabase<K, V> {
  /** The value, in a buffer that the next read overwrites. */
  getBinaryFast(key: K, options?: ReadOptions): Buffer | undefined;
  get(key: K, options?: ReadOptions): V | undefined;
  getKeys(range: KeyRange<K>): Iterable<K>;
  getKeysCount(range: KeyRange<K>): number;
  getRange(range: KeyRange<K> & { values?: boolean }): Iterable<{ key: K; value: V }>;
  /** Every value under one key (dupsort databases). */
  getValues(key: K, options?: ReadOptions): Iterable<V>;
  putSync(key: K, value: V, flags?: PutFlags): boolean;
  removeSync(key: K): boolean;
  /** Removes every entry (inside the current write transaction). */
  clearSync(): void;
}

/** An ID index: keys are IDs in index order, values empty. */
export type IdIndexDatabase = KvDatabase<ArrayLike<number>, Uint8Array>;
