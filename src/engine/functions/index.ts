/**
 * The SPARQL 1.1 function library (section 17). The evaluator handles the special forms
 * (&&, ||, IF, COALESCE, BOUND, IN, NOT IN, EXISTS) and calls into this module for the rest,
 * by Traqula operator name ('str', '+', 'uminus', 'encode_for_uri'...) or by function IRI (the
 * XSD casts). See function-table.ts for the full table.
 */
export { ExpressionError, type FunctionContext } from './function-context.js';
export { effectiveBooleanValue } from './ebv.js';
export { rdfTermEqual, compareValues, orderByCompare } from './compare.js';
export { callFunction, isFunctionKnown, knownFunctionNames, resolveFunction, type Implementation } from './function-table.js';
export { literalValue, type LiteralValue, type NumericValue, booleanLiteral, TRUE, FALSE } from './literal-values.js';
export { Decimal } from './decimal.js';
export { arithmetic, numericLiteral } from './numeric.js';
