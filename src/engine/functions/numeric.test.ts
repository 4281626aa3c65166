import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attempt, call, dbl, dec, flt, int, lit } from './test-helpers.js';

test('integer arithmetic is exact, also beyond 2^53', () => {
  assert.equal(call('+', [int(2), int(3)]), '"5"^^<xsd:integer>');
  assert.equal(call('*', [int('9007199254740993'), int(10)]), '"90071992547409930"^^<xsd:integer>');
  assert.equal(call('-', [int(2), int(5)]), '"-3"^^<xsd:integer>');
});

test('integer-derived types count as integers and give xsd:integer', () => {
  assert.equal(call('+', [lit('1', 'xsd:short'), lit('1', 'xsd:byte')]), '"2"^^<xsd:integer>');
  assert.equal(call('*', [lit('2', 'xsd:nonNegativeInteger'), lit('3', 'xsd:unsignedLong')]), '"6"^^<xsd:integer>');
});

test('type promotion: integer < decimal < float < double', () => {
  assert.equal(call('+', [int(1), dec('1.5')]), '"2.5"^^<xsd:decimal>');
  assert.equal(call('+', [dec('1.5'), flt('1')]), '"2.5E0"^^<xsd:float>');
  assert.equal(call('+', [flt('1'), dbl('1')]), '"2.0E0"^^<xsd:double>');
  assert.equal(call('*', [int(3), dbl('0.5')]), '"1.5E0"^^<xsd:double>');
});

test('an integral decimal prints "3.0" when computed from a fraction part, "3" otherwise', () => {
  assert.equal(call('+', [dec('1.0'), int(2)]), '"3.0"^^<xsd:decimal>'); // W3C plus-1-corrected
  assert.equal(call('+', [dec('3'), int(3)]), '"6"^^<xsd:decimal>'); // W3C expr-ops add-numbers-cast
  assert.equal(call('*', [dec('1.50'), dec('2')]), '"3.0"^^<xsd:decimal>');
  assert.equal(call('/', [int(0), int(2)]), '"0.0"^^<xsd:decimal>'); // W3C coalesce01
});

test('decimal arithmetic is exact', () => {
  assert.equal(call('+', [dec('0.1'), dec('0.2')]), '"0.3"^^<xsd:decimal>');
  assert.equal(call('-', [dec('1.10'), dec('0.1')]), '"1.0"^^<xsd:decimal>');
  assert.equal(call('*', [dec('1.5'), dec('-0.02')]), '"-0.03"^^<xsd:decimal>');
  assert.equal(call('+', [dec('123456789012345678901234567890.1'), dec('0.9')]), '"123456789012345678901234567891.0"^^<xsd:decimal>');
});

test('dividing integers gives a decimal; by zero is an error for integers and decimals', () => {
  assert.equal(call('/', [int(1), int(4)]), '"0.25"^^<xsd:decimal>');
  assert.equal(call('/', [int(6), int(3)]), '"2.0"^^<xsd:decimal>');
  assert.equal(call('/', [int(1), int(3)]), '"0.333333333333333333333333"^^<xsd:decimal>');
  assert.equal(call('/', [int(2), int(3)]), '"0.666666666666666666666667"^^<xsd:decimal>');
  assert.equal(attempt('/', [int(1), int(0)]), 'error');
  assert.equal(attempt('/', [dec('1.0'), dec('0.0')]), 'error');
});

test('float and double division by zero gives INF or NaN', () => {
  assert.equal(call('/', [dbl('1'), int(0)]), '"INF"^^<xsd:double>');
  assert.equal(call('/', [dbl('-1'), dbl('0')]), '"-INF"^^<xsd:double>');
  assert.equal(call('/', [flt('0'), flt('0')]), '"NaN"^^<xsd:float>');
});

test('float results are rounded to single precision and printed shortest', () => {
  assert.equal(call('+', [flt('0.1'), flt('0.2')]), '"3.0E-1"^^<xsd:float>');
  assert.equal(call('+', [dbl('0.1'), dbl('0.2')]), '"3.0000000000000004E-1"^^<xsd:double>');
  assert.equal(call('*', [dbl('1e300'), dbl('1e10')]), '"INF"^^<xsd:double>');
});

test('unary operators', () => {
  assert.equal(call('uminus', [int(3)]), '"-3"^^<xsd:integer>');
  assert.equal(call('uminus', [dec('-0.5')]), '"0.5"^^<xsd:decimal>');
  assert.equal(call('uplus', [lit('07', 'xsd:int')]), '"7"^^<xsd:integer>');
  assert.equal(call('uplus', [dec('3')]), '"3"^^<xsd:decimal>'); // the operand itself
  assert.equal(call('-', [dbl('2')]), '"-2.0E0"^^<xsd:double>');
  assert.equal(attempt('uminus', [lit('3')]), 'error');
});

test('arithmetic on non-numbers or ill-typed numbers is an error', () => {
  assert.equal(attempt('+', [int(1), lit('1')]), 'error');
  assert.equal(attempt('+', [int(1), lit('abc', 'xsd:integer')]), 'error');
  assert.equal(attempt('+', [int(1), lit('300', 'xsd:byte')]), 'error');
});

test('ABS, CEIL, FLOOR keep the numeric type', () => {
  assert.equal(call('abs', [int(-2)]), '"2"^^<xsd:integer>');
  assert.equal(call('abs', [dec('-1.5')]), '"1.5"^^<xsd:decimal>');
  assert.equal(call('abs', [dbl('-0.5')]), '"5.0E-1"^^<xsd:double>');
  // integral decimal results of rounding print without a fraction, as the W3C suite expects
  assert.equal(call('ceil', [dec('1.1')]), '"2"^^<xsd:decimal>');
  assert.equal(call('ceil', [dec('-1.6')]), '"-1"^^<xsd:decimal>');
  assert.equal(call('floor', [dec('-1.6')]), '"-2"^^<xsd:decimal>');
  assert.equal(call('floor', [flt('2.5')]), '"2.0E0"^^<xsd:float>');
  assert.equal(attempt('abs', [lit('-1')]), 'error');
});

test('ROUND goes half-way toward positive infinity', () => {
  assert.equal(call('round', [dec('2.5')]), '"3"^^<xsd:decimal>');
  assert.equal(call('round', [dec('-2.5')]), '"-2"^^<xsd:decimal>');
  assert.equal(call('round', [dec('-1.6')]), '"-2"^^<xsd:decimal>');
  assert.equal(call('round', [dbl('-0.5')]), '"-0.0E0"^^<xsd:double>');
  assert.equal(call('round', [int(-2)]), '"-2"^^<xsd:integer>');
});

test('RAND is a double in [0, 1)', () => {
  const m = /^"(.*)"\^\^<xsd:double>$/.exec(call('rand', []));
  assert.ok(m);
  const x = Number(m[1]);
  assert.ok(x >= 0 && x < 1);
});
