/**
 * The value layer: what a literal means, parsed once per term object and cached, so that hot
 * comparisons and arithmetic do not re-parse lexical forms. Also the constructors of result terms.
 */
import { directionalLiteral, directionOf, factory, type Direction, type Literal, type NamedNode, type Term } from '../../rdf/index.js';
import { Decimal } from './decimal.js';
import { DURATION_DATATYPES, integerInRange, numericTypeOf, rdf, TEMPORAL_DATATYPES, xsd, type NumericType } from './xsd-types.js';
import { parseDuration, parseTemporal, type DurationKind, type DurationValue, type TemporalKind, type TemporalValue } from './temporal.js';
import { ExpressionError } from './function-context.js';

export type NumericValue =
  { type: 'integer'; value: bigint } | { type: 'decimal'; value: Decimal } | { type: 'float'; value: number } | { type: 'double'; value: number };

export type LiteralValue =
  /** A simple literal, i.e. xsd:string. */
  | { kind: 'string'; value: string }
  | { kind: 'langString'; value: string; language: string }
  | { kind: 'numeric'; value: NumericValue }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'temporal'; value: TemporalValue }
  | { kind: 'duration'; value: DurationValue; datatype: string }
  /** An ill-typed literal of a datatype we know, such as "abc"^^xsd:integer. */
  | { kind: 'invalid'; datatype: string }
  /** A literal of a datatype we do not interpret. */
  | { kind: 'unknown'; datatype: string };

/**
 * Parsed values of typed literals, by datatype and then lexical form. Keyed by content rather than
 * by term object: the engine decodes fresh term objects per row, and a WeakMap entry per object
 * costs more (in GC work) than the parse it saves. Strings are not cached: they need no parsing.
 */
const cache = new Map<string, Map<string, LiteralValue>>();
const CACHE_LIMIT_PER_DATATYPE = 50_000;

/**
 * The value kept on the term object itself, once worked out: the store's terms are shared objects
 * (store/term-cache.ts), met again row after row and query after query, and a property read costs
 * less than the two Map look-ups (datatype, then lexical form, a string to hash) of the cache below.
 * A non-enumerable symbol, so the term still compares equal to a fresh one.
 */
const VALUE = Symbol('literal value');
type Valued = Literal & { [VALUE]?: LiteralValue };

export function literalValue(term: Literal): LiteralValue {
  const known = (term as Valued)[VALUE];
  if (known !== undefined) return known;
  const value = computeLiteralValue(term);
  if (Object.isExtensible(term)) Object.defineProperty(term, VALUE, { value });
  return value;
}

function computeLiteralValue(term: Literal): LiteralValue {
  if (term.language) return { kind: 'langString', value: term.value, language: term.language };
  const datatype = term.datatype.value;
  if (datatype === xsd.string) return { kind: 'string', value: term.value };
  let byLexical = cache.get(datatype);
  if (byLexical === undefined && !isInterpretedDatatype(datatype)) {
    return datatype === rdf.langString ? { kind: 'invalid', datatype } : { kind: 'unknown', datatype };
  }
  if (byLexical === undefined) {
    byLexical = new Map();
    cache.set(datatype, byLexical);
  }
  let value = byLexical.get(term.value);
  if (value === undefined) {
    value = parseLiteral(term);
    if (byLexical.size >= CACHE_LIMIT_PER_DATATYPE) byLexical.clear();
    byLexical.set(term.value, value);
  }
  return value;
}

function isInterpretedDatatype(datatype: string): boolean {
  return numericTypeOf(datatype) !== undefined || datatype === xsd.boolean || TEMPORAL_DATATYPES.has(datatype) || DURATION_DATATYPES.has(datatype);
}

/** The value of a literal of an interpreted datatype (see isInterpretedDatatype). */
function parseLiteral(term: Literal): LiteralValue {
  const datatype = term.datatype.value;
  const numericType = numericTypeOf(datatype);
  if (numericType) {
    const value = parseNumeric(numericType, term.value.trim());
    if (value === undefined || (value.type === 'integer' && !integerInRange(datatype, value.value))) {
      return { kind: 'invalid', datatype };
    }
    return { kind: 'numeric', value };
  }
  if (datatype === xsd.boolean) {
    const value = parseBoolean(term.value.trim());
    return value === undefined ? { kind: 'invalid', datatype } : { kind: 'boolean', value };
  }
  if (TEMPORAL_DATATYPES.has(datatype)) {
    const local = datatype.slice(datatype.indexOf('#') + 1);
    const value = parseTemporal(local === 'dateTimeStamp' ? 'dateTime' : (local as TemporalKind), term.value.trim());
    if (value === undefined || (local === 'dateTimeStamp' && value.timezone === undefined)) {
      return { kind: 'invalid', datatype };
    }
    return { kind: 'temporal', value };
  }
  if (DURATION_DATATYPES.has(datatype)) {
    const value = parseDuration(datatype.slice(datatype.indexOf('#') + 1) as DurationKind, term.value.trim());
    return value === undefined ? { kind: 'invalid', datatype } : { kind: 'duration', value, datatype };
  }
  return { kind: 'unknown', datatype };
}

const INTEGER_LEXICAL = /^[+-]?\d+$/;
const FLOAT_LEXICAL = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?INF|NaN)$/;

export function parseNumeric(type: NumericType, lexical: string): NumericValue | undefined {
  switch (type) {
    case 'integer':
      return INTEGER_LEXICAL.test(lexical) ? { type, value: BigInt(lexical) } : undefined;
    case 'decimal': {
      const value = Decimal.parse(lexical);
      return value === undefined ? undefined : { type, value };
    }
    case 'float':
    case 'double': {
      const value = parseFloatingLexical(lexical);
      if (value === undefined) return undefined;
      return { type, value: type === 'float' ? Math.fround(value) : value };
    }
  }
}

export function parseFloatingLexical(lexical: string): number | undefined {
  if (!FLOAT_LEXICAL.test(lexical)) return undefined;
  if (lexical.endsWith('INF')) return lexical.startsWith('-') ? -Infinity : Infinity;
  return lexical === 'NaN' ? NaN : Number(lexical);
}

export function parseBoolean(lexical: string): boolean | undefined {
  switch (lexical) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading arguments

export function valueOf(term: Term): LiteralValue | undefined {
  return term.termType === 'Literal' ? literalValue(term) : undefined;
}

export function numericArgument(term: Term): NumericValue {
  const v = valueOf(term);
  if (v?.kind !== 'numeric') throw new ExpressionError(`not a number: ${describe(term)}`);
  return v.value;
}

export function describe(term: Term): string {
  if (term.termType === 'Literal') {
    const lex = JSON.stringify(term.value.length > 40 ? term.value.slice(0, 40) + '…' : term.value);
    if (term.language) return `${lex}@${term.language}${term.direction ? '--' + term.direction : ''}`;
    return term.datatype.value === xsd.string ? lex : `${lex}^^<${term.datatype.value}>`;
  }
  if (term.termType === 'Quad') return `<<( ${describe(term.subject)} ${describe(term.predicate)} ${describe(term.object)} )>>`;
  return term.termType === 'NamedNode' ? `<${term.value}>` : term.termType === 'BlankNode' ? `_:${term.value}` : term.value;
}

// ---------------------------------------------------------------------------------------------
// Building results

const datatypeNodes = new Map<string, NamedNode>();

export function datatypeNode(iri: string): NamedNode {
  let node = datatypeNodes.get(iri);
  if (!node) {
    node = factory.namedNode(iri);
    datatypeNodes.set(iri, node);
  }
  return node;
}

export function typed(lexical: string, datatype: string): Literal {
  return factory.literal(lexical, datatypeNode(datatype));
}

/**
 * A new literal whose value is already known (a cast's or an operation's result), kept on it as
 * literalValue would keep it once parsed: the next operation on it, say AVG over
 * xsd:double(?price) row after row, reads the value instead of parsing the lexical form just written.
 * `value` must be exactly what parsing `lexical` gives.
 */
export function typedWithValue(lexical: string, datatype: string, value: LiteralValue): Literal {
  const term = typed(lexical, datatype);
  Object.defineProperty(term, VALUE, { value });
  return term;
}

export function simpleLiteral(value: string): Literal {
  return factory.literal(value);
}

/** A numeric's effective boolean value: false for zero and NaN (SPARQL 1.1 section 17.2.2). */
export function numericIsTrue(n: NumericValue): boolean {
  switch (n.type) {
    case 'integer':
      return n.value !== 0n;
    case 'decimal':
      return !n.value.isZero();
    default:
      return n.value !== 0 && !Number.isNaN(n.value);
  }
}

export const TRUE = typed('true', xsd.boolean);
export const FALSE = typed('false', xsd.boolean);

export function booleanLiteral(value: boolean): Literal {
  return value ? TRUE : FALSE;
}

export function integerLiteral(value: bigint | number): Literal {
  return typed(String(value), xsd.integer);
}

/** A language-tagged literal, with a base direction when one is given. */
export function languageLiteral(value: string, language: string, direction?: Direction): Literal {
  return direction ? directionalLiteral(value, language, direction) : factory.literal(value, language);
}

/** A literal of the same kind as `like` (same language tag and direction, or same string datatype), holding `value`. */
export function sameKindLiteral(value: string, like: Literal): Literal {
  if (like.language) return languageLiteral(value, like.language, directionOf(like));
  return like.datatype.value === xsd.string ? factory.literal(value) : factory.literal(value, like.datatype);
}
