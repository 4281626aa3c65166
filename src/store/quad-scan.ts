/**
 * A pattern scan: one cursor over one index range, yielding one reused [s, p, o, g] array.
 *
 * Hand-written iterator rather than a generator: the key encoder has already decoded the IDs into
 * `lastKey` in quad positions, so a step is one native cursor move plus four array stores.
 */
import { lastKey, type IndexRange } from './index-layout.js';
import type { IdIndexDatabase, KeyRange, ReadOptions } from './lmdb-types.js';
import type { QuadIds } from './quad-store.js';

/** Where a scan gets its cursor: a key iterator over the range, not yet positioned. */
export interface RangeCursors {
  open(range: IndexRange): Iterator<unknown>;
}

/** A fresh lmdb-js range read per scan: right for any transaction, the write one included. */
export class FreshRangeCursors implements RangeCursors {
  constructor(
    private readonly db: IdIndexDatabase,
    private readonly read: ReadOptions,
  ) {}

  open(range: IndexRange): Iterator<unknown> {
    const keys = this.db.getKeys({ start: range.start, end: range.end, inclusiveEnd: true, transaction: this.read.transaction });
    return keys[Symbol.iterator]();
  }
}

const NO_KEY = new Uint32Array(0);

/**
 * One lmdb-js range read of one index, re-aimed for each scan. lmdb-js builds an iterable (with a
 * TextDecoder and several closures) per range read, most of a small scan's set-up cost; the
 * iterable reads its options again each time it is iterated, and the range bounds only when the
 * cursor is first positioned, which QuadIterator does at once, so later scans can re-aim it.
 * Only for lmdb-js' current read transaction: the iterable resolves the transaction per
 * iteration, and inside a write transaction it would switch itself to renewing cursors for good.
 */
export class SharedRangeCursors implements RangeCursors {
  private readonly bounds: KeyRange<ArrayLike<number>> & { values: false } = {
    start: NO_KEY,
    end: NO_KEY,
    inclusiveEnd: true,
    values: false,
  };
  private readonly keys: Iterable<unknown>;
  private readonly countBounds: KeyRange<ArrayLike<number>> & { values: false; onlyCount: true } = {
    start: NO_KEY,
    end: NO_KEY,
    inclusiveEnd: true,
    values: false,
    onlyCount: true,
  };
  private counter: CountingRange | undefined;

  constructor(private readonly db: IdIndexDatabase) {
    this.keys = db.getRange(this.bounds);
  }

  open(range: IndexRange): Iterator<unknown> {
    this.bounds.start = range.start;
    this.bounds.end = range.end;
    return this.keys[Symbol.iterator]();
  }

  /**
   * Number of keys in a range, counted natively. `iterate` is what lmdb-js' own getKeysCount calls
   * on a range read given `onlyCount`: it positions, counts and releases the cursor in one call.
   */
  count(range: IndexRange): number {
    this.countBounds.start = range.start;
    this.countBounds.end = range.end;
    this.counter ??= this.db.getRange(this.countBounds) as unknown as CountingRange;
    return this.counter.iterate();
  }

  isEmpty(range: IndexRange): boolean {
    const cursor = this.open(range);
    const first = cursor.next();
    if (!first.done) cursor.return?.();
    return first.done === true;
  }
}

interface CountingRange {
  iterate(): number;
}

export class QuadScan implements Iterable<QuadIds> {
  constructor(
    private readonly cursors: RangeCursors,
    private readonly range: IndexRange,
  ) {}

  [Symbol.iterator](): Iterator<QuadIds> {
    return new QuadIterator(this.cursors.open(this.range));
  }
}

const DONE: IteratorResult<QuadIds> = Object.freeze({ done: true, value: undefined });

class QuadIterator implements Iterator<QuadIds> {
  private readonly quad = new Uint32Array(4);
  private readonly step: IteratorResult<QuadIds> = { done: false, value: this.quad };
  /** The first key, read when the scan opened (see SharedRangeCursors) and not handed out yet. */
  private ahead: boolean;
  private finished = false;

  constructor(private readonly cursor: Iterator<unknown>) {
    this.ahead = this.advance();
  }

  next(): IteratorResult<QuadIds> {
    if (this.ahead) {
      this.ahead = false;
      return this.step;
    }
    if (this.finished) return DONE;
    return this.advance() ? this.step : DONE;
  }

  return(): IteratorResult<QuadIds> {
    this.ahead = false;
    this.finished = true;
    this.cursor.return?.();
    return DONE;
  }

  /** One cursor step; the key is copied out of `lastKey` before any other scan can overwrite it. */
  private advance(): boolean {
    const moved = this.cursor.next();
    if (moved.done) {
      this.finished = true;
      return false;
    }
    const quad = this.quad;
    quad[0] = lastKey[0];
    quad[1] = lastKey[1];
    quad[2] = lastKey[2];
    quad[3] = lastKey[3];
    return true;
  }
}

/** Number of keys in a range, counted natively by LMDB (no key crosses into JS). */
export function countRange(db: IdIndexDatabase, range: IndexRange, read: ReadOptions): number {
  return db.getKeysCount({ start: range.start, end: range.end, inclusiveEnd: true, transaction: read.transaction });
}

/** Whether a range holds any key: one cursor positioning. */
export function rangeIsEmpty(db: IdIndexDatabase, range: IndexRange, read: ReadOptions): boolean {
  const keys = db.getKeys({ start: range.start, end: range.end, inclusiveEnd: true, limit: 1, transaction: read.transaction });
  const cursor = keys[Symbol.iterator]();
  const first = cursor.next();
  if (!first.done) cursor.return?.();
  return first.done === true;
}
