/**
 * The slice of the lmdb-js database API the store uses, typed for our keys (arrays of IDs, term
 * keys, hashed term keys) which lmdb-js' own declarations do not describe.
 */
/**
 * An lmdb-js read transaction, opaque here: naming lmdb's own type would put lmdb's declarations
 * (which a strict ESM TypeScript project cannot check) in this package's public types.
 */
export interface Transaction {
  done(): void;
}

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
  /** Removes the key; in a dupsort database with `value`, only that one of its values. */
  removeSync(key: K, value?: V): boolean;
  /** Removes every entry (inside the current write transaction). */
  clearSync(): void;
}

/** An ID index: keys are IDs in index order, values empty. */
export type IdIndexDatabase = KvDatabase<ArrayLike<number>, Uint8Array>;

/**
 * The slice of lmdb-js' root database (the environment) that the store uses, for the same reason
 * as Transaction: lmdb's own declarations stay out of this package's public types.
 */
export interface LmdbEnvironment {
  transactionSync<T>(action: () => T, flags?: number): T;
  resetReadTxn(): void;
  useReadTransaction(): Transaction;
  close(): Promise<void>;
}
