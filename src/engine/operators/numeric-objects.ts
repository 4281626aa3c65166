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
 *
 * Besides numbers, every other kind of literal that `<` orders has an axis of its own (orderKeyOf):
 * plain strings, and each kind of date/time (xsd:date, xsd:dateTime, xsd:time). A bound picks the
 * axis of its own kind: `<` between two kinds is an error (compareValues), so objects on other axes
 * can never pass its filter. Objects on no axis (IRIs, language strings, booleans, ill-typed or NaN
 * literals) are returned with every range: the filter, not this index, decides about them.
 */
import type { Literal, Term } from '../../rdf/index.js';
import type { StoreReader, TermId } from '../../store/index.js';
import { literalValue } from '../functions/literal-values.js';
import { toDouble } from '../functions/numeric.js';

/** The axis of numbers; the others are named by orderKeyOf. */
export const NUMERIC_AXIS = 'numeric';
/**
 * Seconds a date/time's key may be off its order against a bound: fractions of a second are left
 * out of the key, and a value without a time zone compares with zoned ones within 14 hours.
 */
const TEMPORAL_SLACK = 14 * 3600 + 1;

export class NumericObjects {
  constructor(
    /** Numeric values of the objects, ascending (never NaN). */
    readonly values: Float64Array,
    /** Subject and object ID of the quad behind each value. */
    readonly subjects: Uint32Array,
    readonly objects: Uint32Array,
    /** (subject, object) pairs, flat, of the quads whose object has no numeric value. */
    readonly others: Uint32Array,
    /** The other axes by name (orderKeyOf), each holding the same `others`. */
    readonly axes: ReadonlyMap<string, NumericObjects> = new Map(),
    /** How far a key may be off its value's order: relative (numbers) or absolute (date/times, in seconds). */
    private readonly absoluteSlack?: number,
  ) {}

  /** The axis for bounds of one kind (empty if no object has that kind). */
  axis(name: string): NumericObjects {
    if (name === NUMERIC_AXIS) return this;
    return this.axes.get(name) ?? new NumericObjects(new Float64Array(0), new Uint32Array(0), new Uint32Array(0), this.others);
  }

  /** Quads held, on every axis or none. */
  get size(): number {
    let size = this.values.length + this.others.length / 2;
    for (const axis of this.axes.values()) size += axis.values.length;
    return size;
  }

  /**
   * The positions [from, to) of the values that may lie within [low, high], widened so that no
   * value a comparison would keep is left out. Either bound may be infinite.
   */
  span(low: number, high: number): [number, number] {
    const slack = (bound: number) => (this.absoluteSlack === undefined ? slackOf(bound) : this.absoluteSlack);
    const from = firstAtLeast(this.values, low - slack(low));
    const to = firstAtLeast(this.values, high + slack(high), true);
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

/**
 * A literal's place on the axis of its kind: numbers by value; plain strings by their first three
 * code units (in code point order, so the key never decreases as the string grows); date/times by
 * their instant in seconds. Undefined for terms `<` does not order this way.
 */
export function orderKeyOf(term: Term): { axis: string; key: number } | undefined {
  if (term.termType !== 'Literal') return undefined;
  const value = literalValue(term as Literal);
  switch (value.kind) {
    case 'numeric': {
      const key = toDouble(value.value);
      return Number.isNaN(key) ? undefined : { axis: NUMERIC_AXIS, key };
    }
    case 'string':
      return { axis: 'string', key: stringKey(value.value) };
    case 'temporal':
      return Number.isFinite(value.value.instant) ? { axis: `temporal:${value.value.kind}`, key: value.value.instant } : undefined;
    default:
      return undefined;
  }
}

/** The first three UTF-16 code units as a 48-bit number, in code point order (surrogates after U+FFFF). */
export function stringKey(text: string): number {
  let key = 0;
  for (let i = 0; i < 3; i++) key = key * 0x10000 + (i < text.length ? codePointOrder(text.charCodeAt(i)) : 0);
  return key;
}

/** A code unit's rank: surrogates (code points above U+FFFF) come after U+E000..U+FFFF. */
function codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Scans the predicate's quads in the graph and orders them by value, an axis per kind. */
export function buildNumericObjects(reader: StoreReader, p: TermId, g: TermId): NumericObjects {
  const byAxis = new Map<string, { values: number[]; subjects: number[]; objects: number[] }>();
  const others: number[] = [];
  let lastObject = -1;
  let lastKey: { axis: string; key: number } | undefined;
  // POS order: the quads of one object are consecutive, so each object is decoded once.
  for (const quad of reader.scan(0, p, 0, g)) {
    const o = quad[2];
    if (o !== lastObject) {
      lastObject = o;
      lastKey = orderKeyOf(reader.termOf(o));
    }
    if (lastKey === undefined) {
      others.push(quad[0], o);
      continue;
    }
    let axis = byAxis.get(lastKey.axis);
    if (!axis) byAxis.set(lastKey.axis, (axis = { values: [], subjects: [], objects: [] }));
    axis.values.push(lastKey.key);
    axis.subjects.push(quad[0]);
    axis.objects.push(o);
  }
  const otherPairs = Uint32Array.from(others);
  const axes = new Map<string, NumericObjects>();
  for (const [name, axis] of byAxis) {
    if (name !== NUMERIC_AXIS) axes.set(name, sortedAxis(axis, otherPairs, new Map(), name === 'string' ? 0 : TEMPORAL_SLACK));
  }
  return sortedAxis(byAxis.get(NUMERIC_AXIS) ?? { values: [], subjects: [], objects: [] }, otherPairs, axes, undefined);
}

function sortedAxis(
  axis: { values: number[]; subjects: number[]; objects: number[] },
  others: Uint32Array,
  axes: Map<string, NumericObjects>,
  absoluteSlack: number | undefined,
): NumericObjects {
  const { values, subjects, objects } = axis;
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
  return new NumericObjects(sortedValues, sortedSubjects, sortedObjects, others, axes, absoluteSlack);
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
