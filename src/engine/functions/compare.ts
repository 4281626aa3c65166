/**
 * Equality and order of RDF terms: the '=' and '<' families of operators (SPARQL 1.1 sections
 * 17.3 and 17.4.1.7), and the total order ORDER BY needs (section 15.1).
 */
import { compareTripleTerms, directionOf, orderRank, sameParts, type Literal, type Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { compareNumeric } from './numeric.js';
import { compareDurations, compareTemporal, compareTemporalTotal, durationsEqual } from './temporal.js';
import { xsd } from './xsd-types.js';
import { describe, literalValue, type LiteralValue } from './literal-values.js';

/**
 * The '=' operator: value equality for numbers, strings, booleans, date/times and durations;
 * term equality otherwise. Throws ExpressionError where the spec says the answer is an error:
 * two different literals one of which has an unknown datatype or an ill-typed lexical form, or
 * date/times whose order depends on a missing time zone.
 */
export function rdfTermEqual(a: Term, b: Term): boolean {
  // SPARQL 1.2: triple terms are equal when their parts are, by this same operator.
  if (a.termType === 'Quad' || b.termType === 'Quad') return a.termType === 'Quad' && b.termType === 'Quad' && sameParts(a, b, rdfTermEqual);
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return a.termType === b.termType && a.value === b.value;
  if (isSimple(a) && isSimple(b)) return a.value === b.value;
  const va = literalValue(a);
  const vb = literalValue(b);
  if (va.kind === 'langString' || vb.kind === 'langString') {
    return (
      va.kind === 'langString' &&
      vb.kind === 'langString' &&
      va.value === vb.value &&
      va.language.toLowerCase() === vb.language.toLowerCase() &&
      directionOf(a) === directionOf(b)
    );
  }
  if (va.kind === 'invalid' || va.kind === 'unknown' || vb.kind === 'invalid' || vb.kind === 'unknown') {
    if (sameLiteral(a, b)) return true;
    throw new ExpressionError(`cannot tell whether ${describe(a)} and ${describe(b)} are equal`);
  }
  switch (va.kind) {
    case 'numeric':
      return vb.kind === 'numeric' && compareNumeric(va.value, vb.value) === 0;
    case 'string':
      return vb.kind === 'string' && va.value === vb.value;
    case 'boolean':
      return vb.kind === 'boolean' && va.value === vb.value;
    case 'temporal': {
      if (vb.kind !== 'temporal' || va.value.kind !== vb.value.kind) return false;
      const c = compareTemporal(va.value, vb.value);
      if (c === undefined) throw indeterminate(a, b);
      return c === 0;
    }
    case 'duration':
      return vb.kind === 'duration' && durationsEqual(va.value, vb.value);
  }
}

/** The common case of two plain strings, which needs no value parsing. */
function isSimple(term: Literal): boolean {
  return term.language === '' && term.datatype.value === xsd.string;
}

function sameLiteral(a: Literal, b: Literal): boolean {
  return a.value === b.value && a.datatype.value === b.datatype.value && a.language === b.language && directionOf(a) === directionOf(b);
}

function indeterminate(a: Term, b: Term): ExpressionError {
  return new ExpressionError(`the order of ${describe(a)} and ${describe(b)} depends on a missing time zone`);
}

/**
 * The order behind < > <= >=: negative, zero or positive. NaN when either side is a NaN number
 * (every comparison with NaN is false, but not an error). Throws ExpressionError when the two
 * terms have no order.
 */
export function compareValues(a: Term, b: Term): number {
  if (a.termType !== 'Literal' || b.termType !== 'Literal') throw incomparable(a, b);
  if (isSimple(a) && isSimple(b)) return compareCodePoints(a.value, b.value);
  const va = literalValue(a);
  const vb = literalValue(b);
  switch (va.kind) {
    case 'numeric':
      if (vb.kind === 'numeric') return compareNumeric(va.value, vb.value);
      break;
    case 'string':
      if (vb.kind === 'string') return compareCodePoints(va.value, vb.value);
      break;
    case 'boolean':
      if (vb.kind === 'boolean') return Number(va.value) - Number(vb.value);
      break;
    case 'temporal':
      if (vb.kind === 'temporal' && va.value.kind === vb.value.kind) {
        const c = compareTemporal(va.value, vb.value);
        if (c === undefined) throw indeterminate(a, b);
        return c;
      }
      break;
    case 'duration':
      if (vb.kind === 'duration') {
        const c = compareDurations(va.value, vb.value);
        if (c !== undefined) return c;
      }
      break;
    default:
      break;
  }
  throw incomparable(a, b);
}

function incomparable(a: Term, b: Term): ExpressionError {
  return new ExpressionError(`${describe(a)} and ${describe(b)} cannot be compared`);
}

/** Orders strings by Unicode code point, which UTF-16 code unit order gets wrong above U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xSurrogate = x >= 0xd800 && x <= 0xdfff;
      const ySurrogate = y >= 0xd800 && y <= 0xdfff;
      if (xSurrogate === ySurrogate) return x - y;
      return xSurrogate ? 1 : -1;
    }
  }
  return a.length - b.length;
}

// ---------------------------------------------------------------------------------------------
// ORDER BY

/** Literal categories in ORDER BY: each sorts within itself by value, categories by this rank. */
const CATEGORY_RANK: Record<LiteralValue['kind'], number> = {
  boolean: 0,
  numeric: 1,
  temporal: 2,
  duration: 3,
  string: 4,
  langString: 4,
  invalid: 5,
  unknown: 5,
};

const TEMPORAL_RANK = { dateTime: 0, date: 1, time: 2 };

/**
 * The total order ORDER BY uses: unbound < blank nodes < IRIs < literals < triple terms (SPARQL
 * 1.2). Literals compare by value where their types allow it and by a fixed fallback otherwise, so
 * that sorting is deterministic; triple terms by their parts, in this same order.
 */
export function orderByCompare(a: Term | undefined, b: Term | undefined): number {
  const ra = orderRank(a);
  const rb = orderRank(b);
  if (ra !== rb) return ra - rb;
  if (a === undefined || b === undefined) return 0;
  if (a.termType === 'Quad' && b.termType === 'Quad') return compareTripleTerms(a, b, orderByCompare);
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return compareCodePoints(a.value, b.value);
  return compareLiteralsTotal(a, b);
}

function compareLiteralsTotal(a: Literal, b: Literal): number {
  if (isSimple(a) && isSimple(b)) return compareCodePoints(a.value, b.value);
  const va = literalValue(a);
  const vb = literalValue(b);
  const ca = CATEGORY_RANK[va.kind];
  const cb = CATEGORY_RANK[vb.kind];
  if (ca !== cb) return ca - cb;
  const byValue = compareSameCategory(va, vb);
  if (byValue !== 0) return byValue;
  return tieBreak(a, b);
}

function compareSameCategory(va: LiteralValue, vb: LiteralValue): number {
  if (va.kind === 'numeric' && vb.kind === 'numeric') {
    const c = compareNumeric(va.value, vb.value);
    if (!Number.isNaN(c)) return c;
    // NaN sorts before every number.
    return Number(!isNaNValue(va)) - Number(!isNaNValue(vb));
  }
  if (va.kind === 'boolean' && vb.kind === 'boolean') return Number(va.value) - Number(vb.value);
  if (va.kind === 'temporal' && vb.kind === 'temporal') {
    const k = TEMPORAL_RANK[va.value.kind] - TEMPORAL_RANK[vb.value.kind];
    return k !== 0 ? k : compareTemporalTotal(va.value, vb.value);
  }
  if (va.kind === 'duration' && vb.kind === 'duration') {
    // Months first, then seconds: agrees with the partial order and makes it total.
    return Math.sign(va.value.months - vb.value.months) || va.value.seconds.compare(vb.value.seconds);
  }
  if ((va.kind === 'string' || va.kind === 'langString') && (vb.kind === 'string' || vb.kind === 'langString')) {
    return compareCodePoints(va.value, vb.value);
  }
  return 0;
}

function isNaNValue(v: LiteralValue): boolean {
  return v.kind === 'numeric' && (v.value.type === 'float' || v.value.type === 'double') && Number.isNaN(v.value.value);
}

/** Equal values written differently ("1" and "01", "a" and "a"@en) still need a fixed order. */
function tieBreak(a: Literal, b: Literal): number {
  if (a.language !== b.language) return compareCodePoints(a.language, b.language);
  const da = directionOf(a) ?? '',
    db = directionOf(b) ?? '';
  if (da !== db) return compareCodePoints(da, db);
  if (a.datatype.value !== b.datatype.value) return compareCodePoints(a.datatype.value, b.datatype.value);
  return compareCodePoints(a.value, b.value);
}
