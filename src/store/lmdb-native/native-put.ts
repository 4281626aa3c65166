/**
 * Puts for the bulk-load paths that skip lmdb-js' per-put JavaScript (option parsing, key encoder,
 * instruction bookkeeping, a closure per call) and hand one pre-encoded instruction straight to
 * lmdb-js' native `write`, which runs mdb_put in the current write transaction. A load makes well
 * over a million puts on the loading thread: this costs ~0.37 µs per append where putSync costs
 * ~0.5 µs (most of what is left is LMDB's own B-tree descent).
 *
 * The instruction is lmdb-js' own synchronous-put layout (its write.js `writeInstructions`, read by
 * src/writer.cpp `DoWrites`): flags, database handle, key size, the key bytes from byte 12, then
 * (8-byte aligned) the value's size and its address. It is an internal of lmdb-js, so this module
 * checks what it relies on when it starts and falls back to putSync where anything is missing; the
 * tests write through both paths and compare the databases.
 */
import * as lmdb from 'lmdb';

/** MDB_NOOVERWRITE, MDB_APPEND and lmdb-js' PUT instruction (15: has key, has value, put). */
export const PUT_NO_OVERWRITE = 0x10;
export const PUT_APPEND = 0x20000;
const PUT_INSTRUCTION = 15;
const MDB_KEYEXIST = -30799;
const FAILED_CONDITION = 0x4000000;
const KEY_START = 12;
const MAX_KEY_BYTES = 16;
/** Offset of the value part for a key of n bytes: lmdb-js' `(12 + n + 16) & ~7` from an aligned start. */
const valueAt = (keyBytes: number): number => (KEY_START + keyBytes + 16) & ~7;

interface NativeAddon {
  write(envAddress: number, instructionAddress: number): number;
  getAddress(buffer: ArrayBufferLike): number;
}

/** What lmdb-js' database and environment objects carry that this module uses. */
interface NativeDatabase {
  env?: { address?: number; writeTxn?: unknown };
  db?: { dbi?: number };
  putSync(key: unknown, value: Uint8Array, flags?: object): boolean;
}

const addon = (lmdb as unknown as { nativeAddon?: Partial<NativeAddon> }).nativeAddon;
const nativeWrite = typeof addon?.write === 'function' && typeof addon.getAddress === 'function' ? (addon as NativeAddon) : undefined;

/** Set QUIVER_NATIVE_PUT=0 to use lmdb-js' putSync everywhere (for comparison or if lmdb-js changes). */
const nativeAllowed = process.env.QUIVER_NATIVE_PUT !== '0';

/**
 * Puts into one database through a reused instruction buffer. Keys are written by the caller into
 * `keyView` (from byte 0, at most 16 bytes) before `put`; values are given as bytes (or empty).
 */
export class NativePuts {
  private readonly instruction = new ArrayBuffer(64);
  private readonly words = new Uint32Array(this.instruction);
  /** The value's address, a double at a multiple of 8 bytes (valueAt). */
  private readonly floats = new Float64Array(this.instruction);
  /** Word index of the value's size, and double index of its address. */
  private readonly valueSizeWord: number;
  private readonly valueAddressDouble: number;
  /** The key's bytes inside the instruction. */
  readonly keyView = new DataView(this.instruction, KEY_START, MAX_KEY_BYTES);
  /**
   * The same bytes as words in the platform's byte order (KEY_START is a multiple of 4): the bulk
   * paths write keys here, through bigEndianWord where the key is big-endian. Cheaper per put than
   * DataView stores, which the optimizing compiler did not inline on these paths.
   */
  readonly keyWords = new Uint32Array(this.instruction, KEY_START, MAX_KEY_BYTES / 4);
  private readonly address: number;
  private readonly envAddress: number;
  private readonly dbi: number;
  /**
   * Addresses of the last two value buffers: consecutive values usually share one (a batch of term
   * texts), or alternate between it and the caller's buffer of values it rewrote (stored terms).
   */
  private lastBuffer: ArrayBufferLike | undefined;
  private lastBufferAddress = 0;
  private otherBuffer: ArrayBufferLike | undefined;
  private otherBufferAddress = 0;
  /** Where the native path is unavailable: the key bytes go through putSync as a Buffer. */
  private readonly fallback: boolean;
  /** The database's environment (whose writeTxn is set while a write transaction is open). */
  private readonly env: { writeTxn?: unknown };

  /**
   * @param fallbackKey turns the key bytes into the key putSync takes for this database (its key
   * encoding), for where the native path is unavailable.
   * @param preferNative false: always putSync (tests compare the two paths)
   */
  constructor(
    private readonly db: NativeDatabase,
    private readonly keyBytes: number,
    private readonly fallbackKey: (key: DataView) => unknown,
    preferNative = nativeAllowed,
  ) {
    if (keyBytes < 1 || keyBytes > MAX_KEY_BYTES) throw new RangeError(`key of ${keyBytes} bytes`);
    this.env = db.env ?? {};
    const envAddress = db.env?.address;
    const dbi = db.db?.dbi;
    this.fallback = !preferNative || nativeWrite === undefined || typeof envAddress !== 'number' || typeof dbi !== 'number';
    this.envAddress = envAddress ?? 0;
    this.dbi = dbi ?? 0;
    this.address = this.fallback ? 0 : nativeWrite!.getAddress(this.instruction);
    const at = valueAt(keyBytes);
    this.valueSizeWord = (at >> 2) - 1;
    this.valueAddressDouble = at >> 3;
    // Words that stay the same for every put (the native side only marks the flags word).
    this.words[1] = this.dbi;
    this.words[2] = keyBytes;
  }

  /** Whether puts go straight to the native write (false: through putSync). */
  get native(): boolean {
    return !this.fallback;
  }

  /** Puts the key in keyView with an empty value; false when PUT_NO_OVERWRITE found the key there. */
  putEmpty(flags: number): boolean {
    if (this.fallback) return this.putSyncFallback(EMPTY, flags);
    this.words[this.valueSizeWord] = 0;
    this.floats[this.valueAddressDouble] = 0;
    return this.write(flags);
  }

  /** Puts the key in keyView with the given bytes as value (copied by LMDB). */
  putBytes(value: Uint8Array, flags: number): boolean {
    if (this.fallback) return this.putSyncFallback(value, flags);
    this.words[this.valueSizeWord] = value.byteLength;
    this.floats[this.valueAddressDouble] = value.byteLength === 0 ? 0 : this.addressOf(value.buffer) + value.byteOffset;
    return this.write(flags);
  }

  private write(flags: number): boolean {
    // The native side uses the environment's current write transaction without checking for one.
    if (!this.env.writeTxn) throw new Error('a native put needs an open write transaction');
    this.words[0] = PUT_INSTRUCTION | flags;
    const rc = nativeWrite!.write(this.envAddress, this.address);
    if (rc !== 0 && rc !== MDB_KEYEXIST) throw new Error(`LMDB put failed (code ${rc})`);
    // MDB_NOOVERWRITE is checked by lmdb-js with a read before the put: a key found there leaves
    // rc 0 and only marks the instruction as failed.
    return (this.words[0] & FAILED_CONDITION) === 0;
  }

  private addressOf(buffer: ArrayBufferLike): number {
    if (buffer === this.lastBuffer) return this.lastBufferAddress;
    const address = buffer === this.otherBuffer ? this.otherBufferAddress : nativeWrite!.getAddress(buffer);
    this.otherBuffer = this.lastBuffer;
    this.otherBufferAddress = this.lastBufferAddress;
    this.lastBuffer = buffer;
    this.lastBufferAddress = address;
    return address;
  }

  private putSyncFallback(value: Uint8Array, flags: number): boolean {
    const options = { noOverwrite: (flags & PUT_NO_OVERWRITE) !== 0, append: (flags & PUT_APPEND) !== 0 };
    return this.db.putSync(this.fallbackKey(this.keyView), value, options);
  }
}

const EMPTY = new Uint8Array(0);

/** Whether this platform stores a word's low byte first. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The word whose bytes in the platform's order are `value` big-endian (for NativePuts.keyWords). */
export const bigEndianWord: (value: number) => number = LITTLE_ENDIAN
  ? (value) => ((value << 24) | ((value & 0xff00) << 8) | ((value >>> 8) & 0xff00) | (value >>> 24)) >>> 0
  : (value) => value >>> 0;
