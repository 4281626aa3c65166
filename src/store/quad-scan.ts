/**
 * A pattern scan: one cursor over one index range, yielding one reused [s, p, o, g] array.
 *
 * Hand-written iterator rather than a generator: the key encoder has already decoded the IDs into
 * `lastKey` in quad positions, so a step is one native cursor move plus four array stores.
 */
import { lastKey, type IndexRange } from './index-layout.js';
import type { IdIndexDatabase, ReadOptions } from './lmdb-types.js';
import type { QuadIds } from './quad-store.js';

export class QuadScan implements Iterable<QuadIds> {
  constructor(
    private readonly db: IdIndexDatabase,
    private readonly range: IndexRange,
    private readonly read: ReadOptions,
  ) {}

  [Symbol.iterator](): Iterator<QuadIds> {
    const keys = this.db.getKeys({ start: this.range.start, end: this.range.end, inclusiveEnd: true, ...this.read });
    return new QuadIterator(keys[Symbol.iterator]());
  }
}

class QuadIterator implements Iterator<QuadIds> {
  private readonly quad = new Uint32Array(4);
  private readonly step: IteratorResult<QuadIds> = { done: false, value: this.quad };

  constructor(private readonly cursor: Iterator<unknown>) {}

  next(): IteratorResult<QuadIds> {
    const moved = this.cursor.next();
    if (moved.done) return { done: true, value: undefined };
    const quad = this.quad;
    quad[0] = lastKey[0];
    quad[1] = lastKey[1];
    quad[2] = lastKey[2];
    quad[3] = lastKey[3];
    return this.step;
  }

  return(): IteratorResult<QuadIds> {
    this.cursor.return?.();
    return { done: true, value: undefined };
  }
}

/** Number of keys in a range, counted natively by LMDB (no key crosses into JS). */
export function countRange(db: IdIndexDatabase, range: IndexRange, read: ReadOptions): number {
  return db.getKeysCount({ start: range.start, end: range.end, inclusiveEnd: true, ...read });
}

/** Whether a range holds any key: one cursor positioning. */
export function rangeIsEmpty(db: IdIndexDatabase, range: IndexRange, read: ReadOptions): boolean {
  const cursor = db.getKeys({ start: range.start, end: range.end, inclusiveEnd: true, limit: 1, ...read })[Symbol.iterator]();
  const first = cursor.next();
  if (!first.done) cursor.return?.();
  return first.done === true;
}
