/**
 * The quads matching a pattern's constants, ordered by one position (the key a hash join probes
 * with), in typed arrays: a key's matches are found by binary search, or in large tables through a
 * hash index. A Map of arrays per key cost a query ~100 bytes and an allocation per quad to build,
 * which for a large predicate (BSBM 10k's 290,000 reviewFor quads) was most of the query.
 *
 * A table holds positions, not the query's slots, so it serves every query on the same store
 * content version (StoreReader.contentVersion) that scans the same constants by the same key: it is
 * cached, like the value-ordered indexes of numeric-objects.ts, within a bound on the quads held.
 */
import { BoundedMap } from '../../bounded-map.js';
import { idHash } from '../id-hash-index.js';
import type { ExecContext } from '../exec-context.js';
import type { StoreReader, TermId } from '../../store/index.js';

export class KeyedQuads {
  /**
   * Each key's first index and number of quads, (key, start, count) side by side per bucket, for
   * tables large enough that a binary search misses the processor's caches at every step: on BSBM
   * 10k's 200,000 offers, a probe cost 0.5-0.6 µs by binary search; a bucket is one miss, and the
   * key's values one more (issue 23's a17, a05, a11).
   */
  private readonly buckets?: Uint32Array;
  private readonly mask: number = 0;
  /** How many quads the last find() found. */
  found = 0;

  constructor(
    /** Key of each quad, ascending. */
    readonly keys: Float64Array,
    /** The values of the written positions per quad, `writes` of them each, in key order. */
    readonly values: Float64Array,
    readonly writes: number,
  ) {
    if (keys.length < HASHED_FROM) return;
    let distinct = 0;
    for (let i = 0; i < keys.length; i++) if (i === 0 || keys[i] !== keys[i - 1]) distinct++;
    let capacity = 16;
    while (capacity < distinct * 2) capacity *= 2;
    // 32-bit cells (keys are term IDs, below 2^32): half the memory to fill and to miss in, at
    // 2,000,000 keys (BSBM 100k's offers) 48 MB, not 96.
    const buckets = (this.buckets = new Uint32Array(capacity * 3));
    const mask = (this.mask = capacity - 1);
    for (let start = 0; start < keys.length;) {
      const key = keys[start];
      let end = start + 1;
      while (end < keys.length && keys[end] === key) end++;
      let at = idHash(key) & mask;
      while (buckets[at * 3] !== 0) at = (at + 1) & mask;
      buckets[at * 3] = key;
      buckets[at * 3 + 1] = start;
      buckets[at * 3 + 2] = end - start;
      start = end;
    }
  }

  get size(): number {
    return this.keys.length;
  }

  /** The bytes of the hash index (the arrays are counted as they are read). */
  get indexBytes(): number {
    return this.buckets?.byteLength ?? 0;
  }

  /** The index of the key's first quad, -1 for none; `found` is then how many there are, in a row. */
  find(key: number): number {
    const buckets = this.buckets;
    if (buckets) {
      for (let at = idHash(key) & this.mask; ; at = (at + 1) & this.mask) {
        const k = buckets[at * 3];
        // An empty bucket first: 0 (no term) is in no table, and marks the empty ones.
        if (k === 0) return -1;
        if (k === key) {
          this.found = buckets[at * 3 + 2];
          return buckets[at * 3 + 1];
        }
      }
    }
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    if (lo === keys.length || keys[lo] !== key) return -1;
    return this.runFrom(lo);
  }

  /** The index `start` (of a key's first quad), with `found` set to the count of the key's quads. */
  runFrom(start: number): number {
    const keys = this.keys;
    const key = keys[start];
    let end = start + 1;
    while (end < keys.length && keys[end] === key) end++;
    this.found = end - start;
    return start;
  }
}

/**
 * One scan's probes into a table, for probes that come in key order: a scan of an index by the
 * same key feeds them so (a star join on subjects over the PSO index). The next key is then at the
 * cursor, just past the last key found, or a few quads on, in memory just read, where a hash probe
 * misses the processor's caches twice (issue 23's a05, a09: 0.2 → 0.1 µs a probe). Out of order,
 * trying the cursor costs a miss of its own, so after a miss it is tried again only after a number
 * of probes that doubles while it keeps missing.
 */
export class OrderedProbes {
  /** Where the quads after the last key found start. */
  private cursor = 0;
  /** Where the last key found starts, -1 if unknown. */
  private lastStart = -1;
  /** Probes left before the cursor is tried again. */
  private skip = 0;
  /** The probes it is skipped for after its next miss. */
  private skipAfterMiss = 1;

  constructor(private readonly table: KeyedQuads) {}

  /** As KeyedQuads.find. */
  find(key: number): number {
    const table = this.table;
    if (this.skip > 0) this.skip--;
    else {
      const next = this.nextInOrder(key);
      if (next !== NOT_IN_ORDER) {
        this.skipAfterMiss = 1;
        if (next >= 0) this.cursor = next + table.found;
        return next;
      }
      this.skip = this.skipAfterMiss;
      this.skipAfterMiss = Math.min(this.skipAfterMiss * 2, MAX_SKIP);
    }
    const start = table.find(key);
    if (start >= 0) {
      this.lastStart = start;
      this.cursor = start + table.found;
    }
    return start;
  }

  /**
   * The key's first index if it is at the cursor or a few quads past it; -1 if it falls between the
   * last key found and those, so that no quad has it; else NOT_IN_ORDER.
   */
  private nextInOrder(key: number): number {
    const table = this.table;
    const keys = table.keys;
    const from = this.cursor;
    if (from > 0 && keys[from - 1] >= key) {
      // The same key again (a solution per value of a pattern before): its quads end at the cursor.
      if (keys[from - 1] !== key || this.lastStart < 0) return NOT_IN_ORDER;
      table.found = from - this.lastStart;
      return this.lastStart;
    }
    const limit = Math.min(keys.length, from + IN_ORDER_REACH);
    for (let at = from; at < limit; at++) {
      const k = keys[at];
      if (k === key) return (this.lastStart = table.runFrom(at));
      if (k > key) return -1;
    }
    return limit === keys.length ? -1 : NOT_IN_ORDER;
  }
}

/** How many quads past the cursor a key is looked for before it is hashed or searched for. */
const IN_ORDER_REACH = 8;
const NOT_IN_ORDER = -2;
const MAX_SKIP = 1024;

/** Tables of fewer keys stay in the processor's caches: a binary search is as fast as hashing there. */
const HASHED_FROM = 4096;

/** Reads the quads and orders them by the key position; values are those of `writePositions`. */
export function buildKeyedQuads(quads: Iterable<ArrayLike<number>>, keyPos: number, writePositions: readonly number[], ctx: ExecContext): KeyedQuads {
  const builder = new KeyedQuadsBuilder(keyPos, writePositions, ctx);
  for (const quad of quads) builder.add(quad);
  return builder.build();
}

/** A table filled quad by quad, as a scan reads them (buildKeyedQuads, or a scan that serves its rows meanwhile). */
export class KeyedQuadsBuilder {
  private keys: Float64Array<ArrayBuffer> = new Float64Array(INITIAL_QUADS);
  private values: Float64Array<ArrayBuffer>;
  private n = 0;
  private sorted = true;
  private last = -Infinity;
  private readonly writes: number;

  constructor(
    private readonly keyPos: number,
    private readonly writePositions: readonly number[],
    private readonly ctx: ExecContext,
  ) {
    this.writes = writePositions.length;
    this.values = new Float64Array(INITIAL_QUADS * this.writes);
  }

  add(quad: ArrayLike<number>): void {
    const writes = this.writes;
    const n = this.n;
    if (n === this.keys.length) {
      this.ctx.reserve(n * 8 * (1 + writes));
      this.keys = grown(this.keys, n * 2);
      this.values = grown(this.values, n * 2 * writes);
    }
    const key = quad[this.keyPos];
    if (key < this.last) this.sorted = false;
    this.last = key;
    this.keys[n] = key;
    for (let j = 0; j < writes; j++) this.values[n * writes + j] = quad[this.writePositions[j]];
    this.n = n + 1;
  }

  build(): KeyedQuads {
    const { n, writes } = this;
    const keys = this.keys.length === n ? this.keys : this.keys.slice(0, n);
    const values = this.values.length === n * writes ? this.values : this.values.slice(0, n * writes);
    // Index scans come in their index's order; a key that is not the index's first needs a sort.
    if (!this.sorted) sortByKey(keys, values, writes);
    const table = new KeyedQuads(keys, values, writes);
    this.ctx.reserve(table.indexBytes);
    return table;
  }
}

const INITIAL_QUADS = 1024;

function grown(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(length);
  bigger.set(array);
  return bigger;
}

/**
 * Sorts the quads by key (term IDs, below 2^32), each key's `writes` values moving with it and equal
 * keys keeping their order: a radix sort in three passes of 11 bits, whose 2,048 counters stay in
 * the processor's cache. A comparison sort of the indexes and a gather after it took 1.4 µs a quad
 * on BSBM 100k's 2,000,000 offers keyed by offer from a predicate's object-ordered scan (issue 23's
 * a05: 2.7 s of its 3.1).
 */
export function sortByKey(keys: Float64Array, values: Float64Array, writes: number): void {
  const n = keys.length;
  let fromKeys: Float64Array = keys;
  let fromValues: Float64Array = values;
  let toKeys: Float64Array = new Float64Array(n);
  let toValues: Float64Array = new Float64Array(n * writes);
  const counts = new Uint32Array(RADIX + 1);
  for (let shift = 0; shift < 32; shift += RADIX_BITS) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((fromKeys[i] >>> shift) & RADIX_MASK) + 1]++;
    for (let d = 0; d < RADIX; d++) counts[d + 1] += counts[d];
    for (let i = 0; i < n; i++) {
      const key = fromKeys[i];
      const at = counts[(key >>> shift) & RADIX_MASK]++;
      toKeys[at] = key;
      for (let j = 0; j < writes; j++) toValues[at * writes + j] = fromValues[i * writes + j];
    }
    [fromKeys, toKeys] = [toKeys, fromKeys];
    [fromValues, toValues] = [toValues, fromValues];
  }
  // Three passes leave the sorted quads in the scratch arrays.
  keys.set(fromKeys);
  values.set(fromValues);
}

const RADIX_BITS = 11;
const RADIX = 1 << RADIX_BITS;
const RADIX_MASK = RADIX - 1;

/** Tables cached, at most. */
const CACHE_ENTRIES = 10_000;
/**
 * Bytes of tables a thread keeps for later queries unless told otherwise (setJoinTableCacheBytes).
 * An analytic mix (bench/analytic-workload.ts at 10k products) uses some twenty tables of 200,000
 * quads and more: 3 MB of quads each, and up to 13 MB of hash index where every quad has a key of
 * its own. With 64 MB kept, a round of its queries rebuilt them on every turn and took half as long
 * again (4,630 against 3,060 ms with room for all; 3,193 with this default).
 */
const DEFAULT_CACHE_BYTES = 256 * 2 ** 20;
/** A quad's key and one value; a table's hash index weighs as the quads whose bytes it takes. */
const QUAD_BYTES = 16;
let cache = tableCache(DEFAULT_CACHE_BYTES);

function tableCache(bytes: number): BoundedMap<string, KeyedQuads> {
  return new BoundedMap<string, KeyedQuads>(CACHE_ENTRIES, {
    maxWeight: Math.max(1, bytes / QUAD_BYTES),
    weigh: (_key, table) => table.size + table.indexBytes / QUAD_BYTES,
  });
}

/** Sets how many bytes of join tables this thread keeps for later queries (and drops those it keeps). */
export function setJoinTableCacheBytes(bytes: number): void {
  cache = tableCache(bytes);
}

/**
 * The table for constants (s, p, o, g) keyed by keyPos, from the cache or built (and cached where
 * the snapshot has a content version).
 */
export function keyedQuadsFor(
  reader: StoreReader,
  constants: readonly [TermId, TermId, TermId, TermId],
  keyPos: number,
  writePositions: readonly number[],
  ctx: ExecContext,
): KeyedQuads {
  const key = cacheKey(reader, constants, keyPos, writePositions);
  const found = key === undefined ? undefined : cache.get(key);
  if (found) return found;
  const [s, p, o, g] = constants;
  const built = buildKeyedQuads(reader.scan(s, p, o, g), keyPos, writePositions, ctx);
  if (key !== undefined) cache.set(key, built);
  return built;
}

/** The table if an earlier query built it on the same store content, else undefined (nothing is built). */
export function cachedKeyedQuads(
  reader: StoreReader,
  constants: readonly [TermId, TermId, TermId, TermId],
  keyPos: number,
  writePositions: readonly number[],
): KeyedQuads | undefined {
  const key = cacheKey(reader, constants, keyPos, writePositions);
  return key === undefined ? undefined : cache.get(key);
}

/**
 * For a scan of all the quads of constants (s, p, o, g) in the order of keyPos: whether an earlier
 * such scan, on the same store content, was seen, and so whether this one should keep what it reads
 * as the table (cacheKeyedQuads) for the next ones. The first is only noted: a predicate scanned
 * once, or cut short by a LIMIT, costs no table.
 */
export function scannedBefore(
  reader: StoreReader,
  constants: readonly [TermId, TermId, TermId, TermId],
  keyPos: number,
  writePositions: readonly number[],
): boolean {
  const key = cacheKey(reader, constants, keyPos, writePositions);
  if (key === undefined) return false;
  if (scansSeen.get(key)) return true;
  scansSeen.set(key, true);
  return false;
}

/** Keeps a table a scan built (see scannedBefore) for the queries after it on the same store content. */
export function cacheKeyedQuads(
  reader: StoreReader,
  constants: readonly [TermId, TermId, TermId, TermId],
  keyPos: number,
  writePositions: readonly number[],
  table: KeyedQuads,
): void {
  const key = cacheKey(reader, constants, keyPos, writePositions);
  if (key !== undefined) cache.set(key, table);
}

/** The solutions looked up one by one where a table could have served, and the quads they read. */
export interface LookupCosts {
  rows: number;
  quads: number;
}

/**
 * The look-ups made so far on this store content, by every query of this thread, in place of the
 * table for (s, p, o, g) keyed by keyPos; undefined without a content version. A pattern looked up
 * for thousands of solutions in each of a workload's queries pays for its table over the queries,
 * not within one (issue 23's a15: 6,000 reviews looked up in reviewFor at some 1.3 µs each, a
 * cursor positioned in a large index, against a table of 290,000 quads built once).
 */
export function lookupCostsFor(
  reader: StoreReader,
  constants: readonly [TermId, TermId, TermId, TermId],
  keyPos: number,
  writePositions: readonly number[],
): LookupCosts | undefined {
  const key = cacheKey(reader, constants, keyPos, writePositions);
  if (key === undefined) return undefined;
  let costs = lookups.get(key);
  if (!costs) {
    costs = { rows: 0, quads: 0 };
    lookups.set(key, costs);
  }
  return costs;
}

/** Look-ups per table not built (lookupCostsFor). */
const lookups = new BoundedMap<string, LookupCosts>(CACHE_ENTRIES);

/** Scans of whole predicates seen once (scannedBefore). */
const scansSeen = new BoundedMap<string, boolean>(CACHE_ENTRIES);

function cacheKey(
  reader: StoreReader,
  constants: readonly [TermId, TermId, TermId, TermId],
  keyPos: number,
  writePositions: readonly number[],
): string | undefined {
  const version = reader.contentVersion?.();
  if (version === undefined) return undefined;
  const [s, p, o, g] = constants;
  return `${version} ${s} ${p} ${o} ${g} ${keyPos} ${writePositions.join(',')}`;
}
