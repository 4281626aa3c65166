/**
 * The quads matching a pattern's constants, ordered by one position (the key a hash join probes
 * with), in typed arrays: a key's matches are found by binary search. A Map of arrays per key cost
 * a query ~100 bytes and an allocation per quad to build, which for a large predicate (BSBM 10k's
 * 290,000 reviewFor quads) was most of the query.
 *
 * A table holds positions, not the query's slots, so it serves every query on the same store
 * content version (StoreReader.contentVersion) that scans the same constants by the same key: it is
 * cached, like the value-ordered indexes of numeric-objects.ts, within a bound on the quads held.
 */
import { BoundedMap } from '../../bounded-map.js';
import type { ExecContext } from '../exec-context.js';
import type { StoreReader, TermId } from '../../store/index.js';

export class KeyedQuads {
  constructor(
    /** Key of each quad, ascending. */
    readonly keys: Float64Array,
    /** The values of the written positions per quad, `writes` of them each, in key order. */
    readonly values: Float64Array,
    readonly writes: number,
  ) {}

  get size(): number {
    return this.keys.length;
  }

  /** The first index whose key is >= key; matches run while keys[i] === key. */
  first(key: number): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Reads the quads and orders them by the key position; values are those of `writePositions`. */
export function buildKeyedQuads(quads: Iterable<ArrayLike<number>>, keyPos: number, writePositions: readonly number[], ctx: ExecContext): KeyedQuads {
  const writes = writePositions.length;
  const keys: number[] = [];
  const values: number[] = [];
  let sorted = true;
  let last = -Infinity;
  for (const quad of quads) {
    const key = quad[keyPos];
    if (key < last) sorted = false;
    last = key;
    keys.push(key);
    for (let j = 0; j < writes; j++) values.push(quad[writePositions[j]]);
    if ((keys.length & 4095) === 0) ctx.reserve(4096 * 8 * (1 + writes));
  }
  const n = keys.length;
  const keyArray = new Float64Array(n);
  const valueArray = new Float64Array(n * writes);
  if (sorted) {
    keyArray.set(keys);
    valueArray.set(values);
  } else {
    // Index scans come in their index's order; a key that is not the index's first needs a sort.
    const order = Uint32Array.from(keys.keys()).sort((a, b) => keys[a] - keys[b]);
    for (let i = 0; i < n; i++) {
      const from = order[i];
      keyArray[i] = keys[from];
      for (let j = 0; j < writes; j++) valueArray[i * writes + j] = values[from * writes + j];
    }
  }
  return new KeyedQuads(keyArray, valueArray, writes);
}

/** Tables cached, at most, and the quads they may hold together (16 bytes and more each). */
const CACHE_ENTRIES = 10_000;
const CACHE_QUADS = 4_000_000;
const cache = new BoundedMap<string, KeyedQuads>(CACHE_ENTRIES, { maxWeight: CACHE_QUADS, weigh: (_key, table) => table.size });

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
  const version = reader.contentVersion?.();
  const [s, p, o, g] = constants;
  const key = version === undefined ? undefined : `${version} ${s} ${p} ${o} ${g} ${keyPos} ${writePositions.join(',')}`;
  const found = key === undefined ? undefined : cache.get(key);
  if (found) return found;
  const built = buildKeyedQuads(reader.scan(s, p, o, g), keyPos, writePositions, ctx);
  if (key !== undefined) cache.set(key, built);
  return built;
}
