/**
 * The operators of SPARQL 1.1 section 17.3 that evaluate all their operands: ! (logical-not),
 * unary + and -, + - * / (+ and - also on dates, times and durations: temporal-arithmetic.ts), and
 * the comparisons. && and || short-circuit, so the evaluator does them.
 */
import type { Term } from '../../rdf/index.js';
import { compareValues, rdfTermEqual } from './compare.js';
import { effectiveBooleanValue } from './ebv.js';
import { arithmetic, negate, numericLiteral, type ArithmeticOperator } from './numeric.js';
import { temporalArithmetic } from './temporal-arithmetic.js';
import { booleanLiteral, numericArgument } from './literal-values.js';
import { NUMERIC_TYPE_IRI } from './xsd-types.js';

function binaryArithmetic(op: ArithmeticOperator): (args: Term[]) => Term {
  return ([a, b]) => numericLiteral(arithmetic(op, numericArgument(a), numericArgument(b)));
}

/** Binary + and -, which Traqula may also hand over with one operand for the unary forms. */
function plusOrMinus(op: '+' | '-'): (args: Term[]) => Term {
  const binary = binaryArithmetic(op);
  return (args) => {
    if (args.length === 1) return op === '+' ? unaryPlus(args) : unaryMinus(args);
    return temporalArithmetic(op, args[0], args[1]) ?? binary(args);
  };
}

/** Returns its operand as written when it already has a primitive numeric type. */
function unaryPlus([a]: Term[]): Term {
  const value = numericArgument(a);
  return a.termType === 'Literal' && a.datatype.value === NUMERIC_TYPE_IRI[value.type] ? a : numericLiteral(value);
}

function unaryMinus([a]: Term[]): Term {
  return numericLiteral(negate(numericArgument(a)));
}

export const operatorFunctions: Record<string, (args: Term[]) => Term> = {
  '!': ([a]) => booleanLiteral(!effectiveBooleanValue(a)),
  uplus: unaryPlus,
  uminus: unaryMinus,
  '+': plusOrMinus('+'),
  '-': plusOrMinus('-'),
  '*': binaryArithmetic('*'),
  '/': binaryArithmetic('/'),
  '=': ([a, b]) => booleanLiteral(rdfTermEqual(a, b)),
  '!=': ([a, b]) => booleanLiteral(!rdfTermEqual(a, b)),
  '<': ([a, b]) => booleanLiteral(compareValues(a, b) < 0),
  '>': ([a, b]) => booleanLiteral(compareValues(a, b) > 0),
  '<=': ([a, b]) => booleanLiteral(compareValues(a, b) <= 0),
  '>=': ([a, b]) => booleanLiteral(compareValues(a, b) >= 0),
};
