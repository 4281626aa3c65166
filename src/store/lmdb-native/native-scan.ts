/**
 * Index range reads straight through lmdb-js' native cursor functions, for a reader's snapshot.
 * A query makes about a thousand small range reads (a look-up per solution, most yielding a row or
 * two), and lmdb-js spends more JavaScript on each than LMDB spends finding the keys: an iterable
 * with closures per read, transaction bookkeeping, the end key copied into a save buffer, its
 * cursor recycling. Here a reader keeps its own cursors on its own transaction, and a read is the
 * start key written, one native `position`, one native `iterate` per further key: ~0.3 us for a
 * one-row look-up where lmdb-js' range read took ~0.9 us (BSBM 1k, bench/RESULTS-LOG.md).
 *
 * What this relies on is internal to lmdb-js (its src/cursor.cpp), so it is checked when a store
 * is first read and the reader falls back to lmdb-js' range reads where anything is missing or
 * reads differently (the model is native-put.ts):
 *  - `nativeAddon` exports `Cursor` (constructed on a database handle and a transaction address),
 *    `position(cursor, flags, offset, keySize, endKeyAddress)`, `iterate(cursor)`, `getAddress`;
 *  - `position` reads the start key from lmdb-js' key buffer (one per thread, 4 KiB, the buffer its
 *    key encoders write into), the end key from the given address (a uint32 size, then the bytes),
 *    and both calls write the key they land on into that buffer from byte 32, returning its size
 *    (0 past the range's end, negative on an error); with ONLY_COUNT, `position` counts instead.
 *  - with RENEW_CURSOR, `position` first renews the cursor onto the environment's current read
 *    transaction, which is lmdb-js' shared read transaction while that is current (lmdb-js renews
 *    its own spare cursor per range read this way); LMDB lets a read-only cursor be renewed onto
 *    a new transaction whether its old one is live or dead.
 * Cursors outlive their reader: a released reader leaves them to the store's next readers, which
 * renew them at their first read when their transaction is lmdb-js' current one (opening a cursor
 * cost ~1.1 us, a few per query). A cursor is closed only while its transaction is live (LMDB's
 * close reads the transaction); those left idle when the store closes are dropped unclosed.
 * Set QUIVER_NATIVE_SCAN=0 to use lmdb-js' range reads everywhere.
 */
import * as lmdb from 'lmdb';
import { DEFAULT_GRAPH_ID, type QuadIds, type TermId } from '../quad-store.js';
import { ALL_INDEXES, G, indexFor, keyTargetCapture, type IndexLayout } from '../index-layout.js';
import type { StoreContext } from '../store-context.js';
import type { Transaction } from '../lmdb-types.js';

interface NativeCursor {
  readonly address: number;
  close(): void;
}

interface NativeAddon {
  Cursor: new (dbi: object, transactionAddress: number) => NativeCursor;
  position(cursor: number, flags: number, offset: number, keySize: number, endKeyAddress: number): number;
  iterate(cursor: number): number;
  getAddress(buffer: ArrayBufferLike): number;
}

const addon = (lmdb as unknown as { nativeAddon?: Partial<NativeAddon> }).nativeAddon;
const nativeAddon =
  typeof addon?.Cursor === 'function' && typeof addon.position === 'function' && typeof addon.iterate === 'function' && typeof addon.getAddress === 'function'
    ? (addon as NativeAddon)
    : undefined;
let nativeAllowed = process.env.QUIVER_NATIVE_SCAN !== '0';

/** Whether readers created from now on may read natively (tests compare both ways); returns the previous setting. */
export function allowNativeScans(allowed: boolean): boolean {
  const previous = nativeAllowed;
  nativeAllowed = allowed;
  return previous;
}

/** Whether this lmdb-js offers what native reads need (whether a store's reads then agree is checked per store). */
export const nativeScansAvailable = nativeAddon !== undefined;

/** lmdb-js' cursor flags (src/cursor.cpp). */
const INCLUSIVE_END = 0x8000;
const ONLY_COUNT = 0x1000;
/** Renews the cursor onto the environment's current read transaction before positioning. */
const RENEW_CURSOR = 0x2000;
/** Where the native side writes the key it lands on, in the key buffer. */
const FOUND_KEY = 32;
const KEY_BUFFER_BYTES = 4096;
const MAX_ID = 0xffffffff;

/** What an lmdb-js database object carries that this module uses. */
interface NativeDatabase {
  db?: object;
  getBinaryFast(key: unknown, options?: object): unknown;
  getKeys(range: object): Iterable<unknown>;
}

let keyBuffer: Uint8Array | undefined;
let keyView: DataView | undefined;

/**
 * lmdb-js' key buffer: the target its point reads hand our key encoder (index-layout.ts), checked
 * to be the buffer it registered with the native side (4 KiB from the start of its own memory).
 */
function findKeyBuffer(db: NativeDatabase, transaction: Transaction): Uint8Array | undefined {
  keyTargetCapture.active = true;
  keyTargetCapture.target = undefined;
  try {
    db.getBinaryFast([0, 0, 0, 0], { transaction });
  } catch {
    return undefined;
  } finally {
    keyTargetCapture.active = false;
  }
  const target = keyTargetCapture.target as (Uint8Array & { buffer: ArrayBufferLike & { address?: number } }) | undefined;
  keyTargetCapture.target = undefined;
  if (!target || target.byteOffset !== 0 || target.byteLength !== KEY_BUFFER_BYTES) return undefined;
  if (target.buffer.address === undefined || target.buffer.address !== nativeAddon!.getAddress(target.buffer)) return undefined;
  return target;
}

/** Per store: whether native reads agree with lmdb-js' own on its indexes (checked once). */
const checkedStores = new WeakMap<StoreContext, boolean>();

/** Native reads for a reader's snapshot, or undefined where they are unavailable or unproven. */
export function nativeScansFor(context: StoreContext, transaction: Transaction): NativeScans | undefined {
  if (!nativeAddon || !nativeAllowed) return undefined;
  let usable = checkedStores.get(context);
  if (usable === undefined) {
    const check = selfCheck(context, transaction);
    usable = check !== 'differs';
    // A snapshot without quads reads the same either way, but proves nothing for the next one.
    if (check !== 'empty') checkedStores.set(context, usable);
  }
  return usable ? new NativeScans(context, transaction) : undefined;
}

/** The first keys of each index, read both ways, must agree. */
function selfCheck(context: StoreContext, transaction: Transaction): 'agrees' | 'differs' | 'empty' {
  try {
    const some = context.index('spo') as unknown as NativeDatabase;
    if (!keyBuffer) {
      keyBuffer = findKeyBuffer(some, transaction);
      if (!keyBuffer) return 'differs';
      keyView = new DataView(keyBuffer.buffer, 0, KEY_BUFFER_BYTES);
    }
    const scans = new NativeScans(context, transaction);
    let seen = false;
    try {
      for (const layout of ALL_INDEXES) {
        const db = context.dbs.indexes.get(layout.name) as unknown as NativeDatabase | undefined;
        if (!db) continue;
        // Both in quad positions: the key decoder (index-layout.ts) puts lmdb-js' keys there too.
        const expected: string[] = [];
        const end = new Uint32Array(layout.order.length).fill(MAX_ID);
        for (const key of db.getKeys({ start: new Uint32Array(1), end, inclusiveEnd: true, limit: 3, transaction }))
          expected.push(Array.from(key as ArrayLike<number>).join(' '));
        const actual: string[] = [];
        for (const quad of scans.scanIndex(layout, 0)) {
          actual.push(Array.from(quad).join(' '));
          if (actual.length === 3) break;
        }
        if (expected.join('|') !== actual.join('|')) return 'differs';
        if (expected.length > 0) seen = true;
      }
    } finally {
      scans.close();
    }
    return seen ? 'agrees' : 'empty';
  } catch {
    return 'differs';
  }
}

/** One native cursor and the end key it reads to. */
class CursorSlot {
  readonly cursor: NativeCursor;
  /** Taken over from an earlier reader: its next position renews it onto the current transaction. */
  renew = false;
  /**
   * The quad each scan on this cursor yields, one array reused: as with every scan of the store,
   * its values hold until the scan's next step (consumers copy what they keep).
   */
  readonly quad = new Uint32Array(4);
  readonly address: number;
  /** The end key: its size (host byte order), then the key's bytes. */
  private readonly end = new ArrayBuffer(32);
  private readonly endWords = new Uint32Array(this.end);
  private readonly endView = new DataView(this.end);
  readonly endAddress: number;

  constructor(
    readonly index: IndexLayout,
    db: object,
    transactionAddress: number,
  ) {
    this.cursor = new nativeAddon!.Cursor(db, transactionAddress);
    this.address = this.cursor.address;
    this.endAddress = nativeAddon!.getAddress(this.end);
  }

  /** Sets the range to the keys starting with the first `bound` positions of the quad; returns the start key's size. */
  aim(s: TermId, p: TermId, o: TermId, g: TermId, bound: number): number {
    const order = this.index.order;
    const view = keyView!;
    const endView = this.endView;
    for (let i = 0; i < order.length; i++) {
      const pos = order[i];
      if (i < bound) {
        const id = pos === 0 ? s : pos === 1 ? p : pos === 2 ? o : g;
        view.setUint32(i * 4, id);
        endView.setUint32(4 + i * 4, id);
      } else endView.setUint32(4 + i * 4, MAX_ID);
    }
    this.endWords[0] = order.length * 4;
    return bound * 4;
  }

  /** The flags of the next position: with RENEW_CURSOR once after the cursor changed readers. */
  positionFlags(flags: number): number {
    if (!this.renew) return flags;
    this.renew = false;
    return flags | RENEW_CURSOR;
  }
}

/** Idle cursors a store's released readers left, per index, for its next readers. */
const idleSlots = new WeakMap<StoreContext, Map<IndexLayout, CursorSlot[]>>();
/** Idle cursors kept per index of a store: enough for the nesting of a query's scans. */
const MAX_IDLE_PER_INDEX = 4;

/**
 * A reader's native cursors: a few per index (scans nest: an outer scan stays open while inner
 * look-ups run), reused from scan to scan, all closed before the reader's transaction ends.
 */
export class NativeScans {
  private readonly free = new Map<IndexLayout, CursorSlot[]>();
  /** Every cursor this reader holds (its own or taken over), handed on when it closes. */
  private readonly held: CursorSlot[] = [];
  private readonly transaction: Transaction & { address: number; notCurrent?: boolean; isDone?: boolean };
  private closed = false;

  constructor(
    private readonly context: StoreContext,
    transaction: Transaction,
  ) {
    this.transaction = transaction as NativeScans['transaction'];
  }

  /** Whether the transaction is lmdb-js' current read transaction (the one a renewed cursor gets). */
  private isCurrent(): boolean {
    return !this.transaction.notCurrent && !this.transaction.isDone;
  }

  scan(s: TermId, p: TermId, o: TermId, g: TermId): Iterable<QuadIds> {
    const index = indexFor(s, p, o, g);
    return new NativeQuadScan(this, index, s, p, o, g, boundPrefix(index, s, p, o, g));
  }

  /** The quads of the given index matching the pattern (its bound positions a prefix of the key). */
  scanIn(index: IndexLayout, s: TermId, p: TermId, o: TermId, g: TermId): Iterable<QuadIds> {
    return new NativeQuadScan(this, index, s, p, o, g, boundPrefix(index, s, p, o, g));
  }

  /** Every quad of one index in key order (from the given number of bound positions: 0 here). */
  scanIndex(index: IndexLayout, bound: number): NativeQuadScan {
    return new NativeQuadScan(this, index, 0, 0, 0, 0, bound);
  }

  count(s: TermId, p: TermId, o: TermId, g: TermId): number {
    const slot = this.take(indexFor(s, p, o, g));
    try {
      const keySize = slot.aim(s, p, o, g, boundPrefix(slot.index, s, p, o, g));
      return checked(nativeAddon!.position(slot.address, slot.positionFlags(INCLUSIVE_END | ONLY_COUNT), 0, keySize, slot.endAddress));
    } finally {
      this.give(slot);
    }
  }

  /** Whether any quad matches (every position may be bound). */
  has(s: TermId, p: TermId, o: TermId, g: TermId): boolean {
    const slot = this.take(indexFor(s, p, o, g));
    try {
      const keySize = slot.aim(s, p, o, g, boundPrefix(slot.index, s, p, o, g));
      return checked(nativeAddon!.position(slot.address, slot.positionFlags(INCLUSIVE_END), 0, keySize, slot.endAddress)) > 0;
    } finally {
      this.give(slot);
    }
  }

  take(index: IndexLayout): CursorSlot {
    if (this.closed) throw new Error('the store reader was released');
    const free = this.free.get(index);
    const slot = free?.pop();
    if (slot) return slot;
    const idle = this.isCurrent() ? idleSlots.get(this.context)?.get(index)?.pop() : undefined;
    if (idle) {
      idle.renew = true;
      this.held.push(idle);
      return idle;
    }
    const created = new CursorSlot(index, (this.context.index(index.name) as unknown as NativeDatabase).db!, this.transaction.address);
    this.held.push(created);
    return created;
  }

  give(slot: CursorSlot): void {
    let free = this.free.get(slot.index);
    if (!free) {
      free = [];
      this.free.set(slot.index, free);
    }
    free.push(slot);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Hands the cursors on to the store's next readers (closing those beyond what they keep), before
   * the transaction ends: closing a cursor afterwards would read freed memory.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    let idle = idleSlots.get(this.context);
    if (!idle) {
      idle = new Map();
      idleSlots.set(this.context, idle);
    }
    for (const slot of this.held) {
      let kept = idle.get(slot.index);
      if (!kept) {
        kept = [];
        idle.set(slot.index, kept);
      }
      if (kept.length < MAX_IDLE_PER_INDEX) kept.push(slot);
      else slot.cursor.close();
    }
    this.held.length = 0;
    this.free.clear();
  }
}

/** Number of leading key positions of the index that the pattern binds. */
function boundPrefix(index: IndexLayout, s: TermId, p: TermId, o: TermId, g: TermId): number {
  const order = index.order;
  let bound = 0;
  while (bound < order.length) {
    const pos = order[bound];
    const id = pos === 0 ? s : pos === 1 ? p : pos === 2 ? o : g;
    if (id === 0) break;
    bound++;
  }
  return bound;
}

function checked(rc: number): number {
  if (rc < 0) throw new Error(`LMDB read failed (code ${rc})`);
  return rc;
}

/**
 * One range read, positioned when iteration starts. The object is its own iterator and its own
 * step result (one reused quad array, as every scan of the store yields): a read costs one object
 * and one small typed array.
 */
/** The value of a scan that has not started. */
const NO_QUAD = new Uint32Array(4);

class NativeQuadScan implements Iterable<QuadIds>, Iterator<QuadIds> {
  done = false;
  value = NO_QUAD;
  private slot: CursorSlot | undefined;
  private started = false;
  /** The first key, read when positioning and not handed out yet. */
  private ahead = false;

  constructor(
    private readonly scans: NativeScans,
    private readonly index: IndexLayout,
    private readonly s: TermId,
    private readonly p: TermId,
    private readonly o: TermId,
    private readonly g: TermId,
    private readonly bound: number,
  ) {}

  [Symbol.iterator](): Iterator<QuadIds> {
    // Iterated again: a read of its own.
    if (this.started) return new NativeQuadScan(this.scans, this.index, this.s, this.p, this.o, this.g, this.bound)[Symbol.iterator]();
    this.started = true;
    const slot = this.scans.take(this.index);
    this.slot = slot;
    this.value = slot.quad;
    const keySize = slot.aim(this.s, this.p, this.o, this.g, this.bound);
    this.ahead = this.landed(nativeAddon!.position(slot.address, slot.positionFlags(INCLUSIVE_END), 0, keySize, slot.endAddress));
    return this;
  }

  next(): IteratorResult<QuadIds> {
    if (this.ahead) {
      this.ahead = false;
      return this;
    }
    const slot = this.slot;
    if (slot === undefined) return this;
    if (this.scans.isClosed) {
      this.finish();
      throw new Error('the store reader was released');
    }
    this.landed(nativeAddon!.iterate(slot.address));
    return this;
  }

  return(): IteratorResult<QuadIds> {
    this.ahead = false;
    this.finish();
    return this;
  }

  /** Copies out the key the cursor landed on (true), or ends the read (false). */
  private landed(rc: number): boolean {
    if (rc <= 0) {
      this.finish();
      checked(rc);
      return false;
    }
    const bytes = keyBuffer!;
    const order = this.index.order;
    const quad = this.value;
    for (let i = 0, at = FOUND_KEY; i < order.length; i++, at += 4) {
      quad[order[i]] = ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
    }
    if (order.length === 3) quad[G] = DEFAULT_GRAPH_ID;
    return true;
  }

  private finish(): void {
    this.done = true;
    const slot = this.slot;
    if (slot === undefined) return;
    this.slot = undefined;
    if (!this.scans.isClosed) this.scans.give(slot);
  }
}
