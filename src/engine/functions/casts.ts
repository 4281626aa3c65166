/**
 * XSD constructor functions, e.g. xsd:integer("12") (SPARQL 1.1 section 17.5): the XPath casting
 * table restricted to the types SPARQL names, plus xsd:date, xsd:time and the types derived
 * from xsd:integer. Casting a value the table does not allow, or an invalid lexical form, is an error.
 */
import type { Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { Decimal } from './decimal.js';
import { numberToXPathString, numericLiteral, toDecimal, toDouble } from './numeric.js';
import { parseTemporal, type TemporalKind } from './temporal.js';
import { integerInRange, isIntegerDatatype, xsd } from './xsd-types.js';
import {
  booleanLiteral,
  describe,
  literalValue,
  numericIsTrue,
  parseBoolean,
  parseFloatingLexical,
  simpleLiteral,
  typed,
  type LiteralValue,
} from './literal-values.js';

type Cast = (term: Term) => Term;

function fail(term: Term, target: string): never {
  throw new ExpressionError(`cannot cast ${describe(term)} to ${target.slice(target.indexOf('#') + 1)}`);
}

/** The value of a literal the casting table accepts as a source (not ill-typed, not unknown). */
function castSource(term: Term, target: string): LiteralValue {
  if (term.termType !== 'Literal') fail(term, target);
  const v = literalValue(term);
  if (v.kind === 'invalid' || v.kind === 'unknown' || v.kind === 'langString') fail(term, target);
  return v;
}

function toStringCast(term: Term): Term {
  if (term.termType === 'NamedNode') return simpleLiteral(term.value);
  if (term.termType !== 'Literal') fail(term, xsd.string);
  const v = literalValue(term);
  switch (v.kind) {
    case 'numeric':
      return simpleLiteral(numberToXPathString(v.value));
    case 'boolean':
      return simpleLiteral(String(v.value));
    case 'invalid':
      return fail(term, xsd.string);
    default:
      // Strings, language-tagged strings, date/times, durations and unknown datatypes keep their lexical form.
      return simpleLiteral(term.value);
  }
}

function toBooleanCast(term: Term): Term {
  const v = castSource(term, xsd.boolean);
  switch (v.kind) {
    case 'boolean':
      return booleanLiteral(v.value);
    case 'numeric':
      return booleanLiteral(numericIsTrue(v.value));
    case 'string': {
      const b = parseBoolean(v.value.trim());
      if (b === undefined) fail(term, xsd.boolean);
      return booleanLiteral(b);
    }
    default:
      return fail(term, xsd.boolean);
  }
}

function integerOf(term: Term, v: LiteralValue, target: string): bigint {
  switch (v.kind) {
    case 'boolean':
      return v.value ? 1n : 0n;
    case 'string': {
      const lexical = v.value.trim();
      if (!/^[+-]?\d+$/.test(lexical)) fail(term, target);
      return BigInt(lexical);
    }
    case 'numeric': {
      const n = v.value;
      switch (n.type) {
        case 'integer':
          return n.value;
        case 'decimal':
          return n.value.truncate();
        default:
          if (!Number.isFinite(n.value)) fail(term, target);
          return BigInt(Math.trunc(n.value));
      }
    }
    default:
      return fail(term, target);
  }
}

function integerCast(target: string): Cast {
  return (term) => {
    const value = integerOf(term, castSource(term, target), target);
    if (!integerInRange(target, value)) fail(term, target);
    return typed(value.toString(), target);
  };
}

function toDecimalCast(term: Term): Term {
  const v = castSource(term, xsd.decimal);
  let value: Decimal | undefined;
  switch (v.kind) {
    case 'boolean':
      value = Decimal.fromBigInt(v.value ? 1n : 0n);
      break;
    case 'string':
      value = Decimal.parse(v.value.trim());
      break;
    case 'numeric':
      if ((v.value.type === 'float' || v.value.type === 'double') && !Number.isFinite(v.value.value)) break;
      value = toDecimal(v.value);
      break;
    default:
      break;
  }
  if (value === undefined) fail(term, xsd.decimal);
  return numericLiteral({ type: 'decimal', value: value.withPoint() });
}

function floatingCast(type: 'float' | 'double'): Cast {
  const target = type === 'float' ? xsd.float : xsd.double;
  return (term) => {
    const v = castSource(term, target);
    let value: number | undefined;
    switch (v.kind) {
      case 'boolean':
        value = v.value ? 1 : 0;
        break;
      case 'string':
        value = parseFloatingLexical(v.value.trim());
        break;
      case 'numeric':
        value = toDouble(v.value);
        break;
      default:
        break;
    }
    if (value === undefined) fail(term, target);
    return numericLiteral({ type, value: type === 'float' ? Math.fround(value) : value });
  };
}

/** The date part, time part and time zone suffix of a dateTime lexical form. */
function splitDateTime(lexical: string): { date: string; time: string; zone: string } {
  const t = lexical.indexOf('T');
  const rest = lexical.slice(t + 1);
  const time = /^[\d:.]+/.exec(rest)![0];
  return { date: lexical.slice(0, t), time, zone: rest.slice(time.length) };
}

function temporalCast(kind: TemporalKind): Cast {
  const target = xsd[kind];
  return (term) => {
    const v = castSource(term, target);
    let lexical: string | undefined;
    if (v.kind === 'string') {
      lexical = v.value.trim();
      if (!parseTemporal(kind, lexical)) fail(term, target);
    } else if (v.kind === 'temporal') {
      lexical = convertTemporal(term.value.trim(), v.value.kind, kind);
    }
    if (lexical === undefined) fail(term, target);
    return typed(lexical, target);
  };
}

function convertTemporal(lexical: string, from: TemporalKind, to: TemporalKind): string | undefined {
  if (from === to) return lexical;
  if (from === 'dateTime') {
    const parts = splitDateTime(lexical);
    return to === 'date' ? parts.date + parts.zone : parts.time + parts.zone;
  }
  if (from === 'date' && to === 'dateTime') {
    const m = /^(-?\d+-\d{2}-\d{2})(.*)$/.exec(lexical)!;
    return `${m[1]}T00:00:00${m[2]}`;
  }
  return undefined;
}

const casts = new Map<string, Cast>([
  [xsd.string, toStringCast],
  [xsd.boolean, toBooleanCast],
  [xsd.decimal, toDecimalCast],
  [xsd.float, floatingCast('float')],
  [xsd.double, floatingCast('double')],
  [xsd.dateTime, temporalCast('dateTime')],
  [xsd.date, temporalCast('date')],
  [xsd.time, temporalCast('time')],
]);

export function castFunction(datatype: string): Cast | undefined {
  const cast = casts.get(datatype);
  if (cast) return cast;
  if (isIntegerDatatype(datatype)) {
    const integer = integerCast(datatype);
    casts.set(datatype, integer);
    return integer;
  }
  return undefined;
}

export function isCastFunction(name: string): boolean {
  return casts.has(name) || isIntegerDatatype(name);
}
