/**
 * Numeric values: XSD type promotion (integer < decimal < float < double), exact integer and
 * decimal arithmetic, IEEE arithmetic for float and double, canonical lexical forms, and the
 * SPARQL numeric functions (ABS, ROUND, CEIL, FLOOR, RAND).
 */
import type { Literal, Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { Decimal } from './decimal.js';
import { NUMERIC_TYPE_IRI, type NumericType } from './xsd-types.js';
import { numericArgument, typed, typedWithValue, type NumericValue } from './literal-values.js';

const RANK: Record<NumericType, number> = { integer: 0, decimal: 1, float: 2, double: 3 };
const BY_RANK: NumericType[] = ['integer', 'decimal', 'float', 'double'];

export function promotedType(a: NumericValue, b: NumericValue): NumericType {
  return BY_RANK[Math.max(RANK[a.type], RANK[b.type])];
}

export function toDouble(v: NumericValue): number {
  switch (v.type) {
    case 'integer':
      return Number(v.value);
    case 'decimal':
      return v.value.toNumber();
    default:
      return v.value;
  }
}

/** Exact decimal of an integer or decimal value; float and double go through their shortest form. */
export function toDecimal(v: NumericValue): Decimal {
  switch (v.type) {
    case 'integer':
      return Decimal.fromBigInt(v.value);
    case 'decimal':
      return v.value;
    case 'float':
      if (!Number.isFinite(v.value)) throw new ExpressionError(`${v.value} has no decimal value`);
      return Decimal.fromScientific(shortestFloatDigits(v.value));
    case 'double':
      if (!Number.isFinite(v.value)) throw new ExpressionError(`${v.value} has no decimal value`);
      return Decimal.fromNumber(v.value);
  }
}

/** Converts a value to a type at least as wide (the promotion step of XPath's arithmetic). */
export function promote(v: NumericValue, type: NumericType): NumericValue {
  if (v.type === type) return v;
  switch (type) {
    case 'decimal':
      return { type, value: toDecimal(v) };
    case 'float':
      return { type, value: Math.fround(toDouble(v)) };
    case 'double':
      return { type, value: toDouble(v) };
    default:
      throw new Error(`cannot promote ${v.type} to ${type}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Lexical forms

/** XSD canonical form of a double: "1.0E0", "-2.5E-3", "INF", "NaN". */
export function formatDouble(value: number): string {
  return formatScientific(value, value.toExponential());
}

/** XSD canonical form of a float, with the fewest digits that read back as the same float. */
export function formatFloat(value: number): string {
  return Number.isFinite(value) && value !== 0 ? formatScientific(value, Number(shortestFloatDigits(value)).toExponential()) : formatDouble(value);
}

function shortestFloatDigits(value: number): string {
  for (let precision = 1; precision < 9; precision++) {
    const text = value.toPrecision(precision);
    if (Math.fround(Number(text)) === value) return text;
  }
  return value.toPrecision(9);
}

function formatScientific(value: number, exponential: string): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'INF';
  if (value === -Infinity) return '-INF';
  if (value === 0) return Object.is(value, -0) ? '-0.0E0' : '0.0E0';
  // toExponential's "d[.ddd]e(+|-)n" as "d.ddd" "E" "[-]n", by positions: a cast or an average
  // over many rows formats one double per row, and splitting made arrays and strings to discard.
  const e = exponential.indexOf('e');
  const mantissa = exponential.indexOf('.') === -1 ? exponential.slice(0, e) + '.0' : exponential.slice(0, e);
  return exponential.charCodeAt(e + 1) === MINUS ? mantissa + 'E-' + exponential.slice(e + 2) : mantissa + 'E' + exponential.slice(e + 2);
}

const MINUS = 0x2d;

/** The string XPath's fn:string gives a number: no exponent between 1e-6 and 1e6 ("1", "0.5", "1.0E7"). */
export function numberToXPathString(v: NumericValue): string {
  switch (v.type) {
    case 'integer':
      return v.value.toString();
    case 'decimal':
      return v.value.toPlainString();
    case 'float':
    case 'double': {
      const x = v.value;
      if (!Number.isFinite(x)) return formatDouble(x);
      if (x === 0) return Object.is(x, -0) ? '-0' : '0';
      const abs = Math.abs(x);
      if (abs >= 1e-6 && abs < 1e6) {
        const digits = v.type === 'float' ? shortestFloatDigits(x) : String(x);
        return Decimal.fromScientific(digits).toPlainString();
      }
      return v.type === 'float' ? formatFloat(x) : formatDouble(x);
    }
  }
}

export function numericLexical(v: NumericValue): string {
  switch (v.type) {
    case 'integer':
      return v.value.toString();
    case 'decimal':
      return v.value.toCanonical();
    case 'float':
      return formatFloat(v.value);
    case 'double':
      return formatDouble(v.value);
  }
}

export function numericLiteral(v: NumericValue): Literal {
  const lexical = numericLexical(v);
  // Integers and doubles read back from their canonical forms as exactly the same value; a float
  // or a decimal may not (a double not rounded to a float yet, a decimal's trailing zeros), so
  // those are parsed again when needed.
  if (v.type === 'integer' || v.type === 'double') return typedWithValue(lexical, NUMERIC_TYPE_IRI[v.type], { kind: 'numeric', value: v });
  return typed(lexical, NUMERIC_TYPE_IRI[v.type]);
}

// ---------------------------------------------------------------------------------------------
// Comparison and arithmetic

/** Negative, zero or positive; NaN when either side is NaN (no order, and not equal). */
export function compareNumeric(a: NumericValue, b: NumericValue): number {
  const type = promotedType(a, b);
  const x = promote(a, type);
  const y = promote(b, type);
  switch (type) {
    case 'integer': {
      const p = x.value as bigint;
      const q = y.value as bigint;
      return p < q ? -1 : p > q ? 1 : 0;
    }
    case 'decimal':
      return (x.value as Decimal).compare(y.value as Decimal);
    default: {
      const p = x.value as number;
      const q = y.value as number;
      return p < q ? -1 : p > q ? 1 : p === q ? 0 : NaN;
    }
  }
}

export type ArithmeticOperator = '+' | '-' | '*' | '/';

export function arithmetic(op: ArithmeticOperator, a: NumericValue, b: NumericValue): NumericValue {
  let type = promotedType(a, b);
  if (op === '/' && type === 'integer') type = 'decimal';
  const x = promote(a, type);
  const y = promote(b, type);
  switch (type) {
    case 'integer':
      return { type, value: integerOp(op, x.value as bigint, y.value as bigint) };
    case 'decimal':
      return { type, value: decimalOp(op, x.value as Decimal, y.value as Decimal) };
    case 'float':
      return { type, value: Math.fround(floatingOp(op, x.value as number, y.value as number)) };
    case 'double':
      return { type, value: floatingOp(op, x.value as number, y.value as number) };
  }
}

function integerOp(op: ArithmeticOperator, a: bigint, b: bigint): bigint {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      throw new Error('integer division yields a decimal');
  }
}

function decimalOp(op: ArithmeticOperator, a: Decimal, b: Decimal): Decimal {
  switch (op) {
    case '+':
      return a.add(b);
    case '-':
      return a.subtract(b);
    case '*':
      return a.multiply(b);
    case '/':
      if (b.isZero()) throw new ExpressionError('division by zero');
      return a.divide(b);
  }
}

function floatingOp(op: ArithmeticOperator, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
  }
}

export function negate(v: NumericValue): NumericValue {
  switch (v.type) {
    case 'integer':
      return { type: v.type, value: -v.value };
    case 'decimal':
      return { type: v.type, value: v.value.negate() };
    default:
      return { type: v.type, value: -v.value };
  }
}

// ---------------------------------------------------------------------------------------------
// Functions

type Rounding = (v: NumericValue) => NumericValue;

function roundingFunction(onDecimal: (d: Decimal) => bigint, onFloating: (x: number) => number): Rounding {
  return (v) => {
    switch (v.type) {
      case 'integer':
        return v;
      case 'decimal':
        return { type: v.type, value: Decimal.fromBigInt(onDecimal(v.value)) };
      case 'float':
        return { type: v.type, value: Math.fround(onFloating(v.value)) };
      case 'double':
        return { type: v.type, value: onFloating(v.value) };
    }
  };
}

const roundValue = roundingFunction(
  (d) => d.round(),
  (x) => Math.round(x),
);
const ceilValue = roundingFunction(
  (d) => d.ceil(),
  (x) => Math.ceil(x),
);
const floorValue = roundingFunction(
  (d) => d.floor(),
  (x) => Math.floor(x),
);

function absValue(v: NumericValue): NumericValue {
  switch (v.type) {
    case 'integer':
      return { type: v.type, value: v.value < 0n ? -v.value : v.value };
    case 'decimal':
      return { type: v.type, value: v.value.abs() };
    default:
      return { type: v.type, value: Math.abs(v.value) };
  }
}

function unaryNumeric(f: (v: NumericValue) => NumericValue): (args: Term[]) => Term {
  return ([arg]) => numericLiteral(f(numericArgument(arg)));
}

export const numericFunctions = {
  abs: unaryNumeric(absValue),
  round: unaryNumeric(roundValue),
  ceil: unaryNumeric(ceilValue),
  floor: unaryNumeric(floorValue),
  rand: (): Term => numericLiteral({ type: 'double', value: Math.random() }),
};
