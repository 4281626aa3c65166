/**
 * The quads of one predicate in one graph, ordered by the numeric value of their objects: what a
 * FILTER that bounds the object (`?o < E`, `?o >= E`, ...) needs to read only the quads in range.
 * Term IDs follow the order terms were first seen, not their values, so no index of the store can
 * answer such a range; this one is built from a scan of the predicate and kept, per store content
 * version (StoreReader.contentVersion), for the queries that come after.
 *
 * It only ever narrows to a superset of the matches: the filters stay in the plan and decide.
 * Values are doubles, and a range is widened by more than any promotion of a value to float or
 * double could move it, so an exact comparison (integer, decimal) that holds also holds here.
 * Objects with no numeric value (IRIs, strings, ill-typed or NaN literals) are returned with every
 * range: the filter, not this index, decides what a comparison with them means.
 */
import type { Literal, Term } from '../../rdf/index.js';
import type { StoreReader, TermId } from '../../store/index.js';
import { literalValue } from '../functions/values.js';
import { toDouble } from '../functions/numeric.js';

export class NumericObjects {
  constructor(
    /** Numeric values of the objects, ascending (never NaN). */
    readonly values: Float64Array,
    /** Subject and object ID of the quad behind each value. */
    readonly subjects: Uint32Array,
    readonly objects: Uint32Array,
    /** (subject, object) pairs, flat, of the quads whose object has no numeric value. */
    readonly others: Uint32Array,
  ) {}

  /** Quads held, numeric or not. */
  get size(): number {
    return this.values.length + this.others.length / 2;
  }

  /**
   * The positions [from, to) of the values that may lie within [low, high], widened so that no
   * value a comparison would keep is left out. Either bound may be infinite.
   */
  span(low: number, high: number): [number, number] {
    const from = firstAtLeast(this.values, low - slackOf(low));
    const to = firstAtLeast(this.values, high + slackOf(high), true);
    return [from, Math.max(from, to)];
  }
}

/**
 * More than a float's relative precision (2^-24) and than the smallest float (1.4e-45): a value
 * promoted to float for a comparison moves by less than this.
 */
function slackOf(bound: number): number {
  return Number.isFinite(bound) ? Math.max(Math.abs(bound) * 1e-6, 1e-30) : 0;
}

/** The first position whose value is >= bound (> bound when `after`), by binary search. */
function firstAtLeast(values: Float64Array, bound: number, after = false): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < bound || (after && values[mid] === bound)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The numeric value of a term as a double, NaN when it has none (not a number, ill-typed, or NaN). */
export function numericValueOf(term: Term): number {
  if (term.termType !== 'Literal') return Number.NaN;
  const value = literalValue(term as Literal);
  return value.kind === 'numeric' ? toDouble(value.value) : Number.NaN;
}

/** Scans the predicate's quads in the graph and orders them by value. */
export function buildNumericObjects(reader: StoreReader, p: TermId, g: TermId): NumericObjects {
  const values: number[] = [];
  const subjects: number[] = [];
  const objects: number[] = [];
  const others: number[] = [];
  let lastObject = -1;
  let lastValue = Number.NaN;
  // POS order: the quads of one object are consecutive, so each object is decoded once.
  for (const quad of reader.scan(0, p, 0, g)) {
    const o = quad[2];
    if (o !== lastObject) {
      lastObject = o;
      lastValue = numericValueOf(reader.termOf(o));
    }
    if (Number.isNaN(lastValue)) others.push(quad[0], o);
    else {
      values.push(lastValue);
      subjects.push(quad[0]);
      objects.push(o);
    }
  }
  const order = Array.from(values.keys()).sort((a, b) => values[a] - values[b]);
  const n = order.length;
  const sortedValues = new Float64Array(n);
  const sortedSubjects = new Uint32Array(n);
  const sortedObjects = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    sortedValues[i] = values[order[i]];
    sortedSubjects[i] = subjects[order[i]];
    sortedObjects[i] = objects[order[i]];
  }
  return new NumericObjects(sortedValues, sortedSubjects, sortedObjects, Uint32Array.from(others));
}

/** Larger predicates are not worth holding in memory (16 bytes a quad). */
export const MAX_NUMERIC_OBJECTS = 1_000_000;
/** Quads held by all cached indexes together. */
const CACHE_LIMIT = 2_000_000;

/** Indexes by content version, predicate and graph; oldest first, for eviction. */
const cache = new Map<string, NumericObjects>();
let cachedQuads = 0;

/** The index of a snapshot's cached one, if any; undefined also when the snapshot has no content version. */
export function cachedNumericObjects(reader: StoreReader, p: TermId, g: TermId): NumericObjects | undefined {
  const key = cacheKey(reader, p, g);
  if (key === undefined) return undefined;
  const found = cache.get(key);
  if (found) {
    cache.delete(key);
    cache.set(key, found);
  }
  return found;
}

/** Builds and caches the index (undefined: the snapshot has no content version, so it could not be shared). */
export function numericObjectsFor(reader: StoreReader, p: TermId, g: TermId): NumericObjects | undefined {
  const key = cacheKey(reader, p, g);
  if (key === undefined) return undefined;
  const found = cachedNumericObjects(reader, p, g);
  if (found) return found;
  const built = buildNumericObjects(reader, p, g);
  cache.set(key, built);
  cachedQuads += built.size;
  for (const [oldKey, old] of cache) {
    if (cachedQuads <= CACHE_LIMIT || old === built) break;
    cache.delete(oldKey);
    cachedQuads -= old.size;
  }
  return built;
}

function cacheKey(reader: StoreReader, p: TermId, g: TermId): string | undefined {
  const version = reader.contentVersion?.();
  return version === undefined ? undefined : `${version} ${p} ${g}`;
}
