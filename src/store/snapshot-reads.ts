/**
 * Point and range reads bound to one LMDB transaction: a reader's read snapshot, or (transaction
 * undefined) the write transaction the calling thread is in.
 *
 * Why not just pass `{ transaction }` to lmdb-js: its point reads (get, getBinaryFast) prefer the
 * thread's open write transaction over the one passed in, so a reader used inside a `write` callback
 * would see uncommitted data. Range reads honour the passed transaction, so while this thread writes,
 * a reader's point reads go through a one-key range instead.
 */
import type { KvDatabase, ReadOptions, Transaction } from './lmdb-types.js';

export class SnapshotReads {
  readonly options: ReadOptions;

  constructor(
    readonly transaction: Transaction | undefined,
    private readonly threadIsWriting: () => boolean,
  ) {
    this.options = transaction ? { transaction } : {};
  }

  /** The value under key, in a buffer that stays valid until the next read. */
  get<K>(db: KvDatabase<K, unknown>, key: K): Buffer | undefined {
    if (this.transaction && this.threadIsWriting()) return this.getThroughRange(db, key);
    return db.getBinaryFast(key, this.options);
  }

  private getThroughRange<K>(db: KvDatabase<K, unknown>, key: K): Buffer | undefined {
    for (const { value } of db.getRange({ start: key, end: key, inclusiveEnd: true, limit: 1, transaction: this.transaction })) {
      return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
    }
    return undefined;
  }
}
