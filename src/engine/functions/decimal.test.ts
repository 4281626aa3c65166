import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from './decimal.js';

const d = (s: string) => Decimal.parse(s)!;

test('parses the xsd:decimal lexical space and prints canonical forms', () => {
  assert.equal(d('+033.3300').toCanonical(), '33.33');
  assert.equal(d('-.5').toCanonical(), '-0.5');
  assert.equal(d('5.').toCanonical(), '5');
  assert.equal(d('5.00').toCanonical(), '5.0');
  assert.equal(d('5').toCanonical(), '5');
  assert.equal(d('5').withPoint().toCanonical(), '5.0');
  assert.equal(d('-0.0').toCanonical(), '0.0');
  assert.equal(d('1.50').toPlainString(), '1.5');
  assert.equal(d('100').toPlainString(), '100');
  assert.equal(Decimal.parse('1e3'), undefined);
  assert.equal(Decimal.parse('.'), undefined);
  assert.equal(Decimal.parse(''), undefined);
});

test('exact arithmetic', () => {
  assert.equal(d('0.1').add(d('0.2')).toCanonical(), '0.3');
  assert.equal(d('1').subtract(d('0.0000000000000000000001')).toCanonical(), '0.9999999999999999999999');
  assert.equal(d('-1.5').multiply(d('1.5')).toCanonical(), '-2.25');
  assert.equal(d('10').divide(d('4')).toCanonical(), '2.5');
  assert.equal(d('-1').divide(d('3')).toCanonical(), '-0.333333333333333333333333');
  assert.equal(d('1').divide(d('0.0001')).toCanonical(), '10000.0');
  assert.throws(() => d('1').divide(d('0')));
});

test('comparison and rounding', () => {
  assert.equal(d('1.10').compare(d('1.1')), 0);
  assert.equal(d('-2').compare(d('1.5')), -1);
  assert.equal(d('-1.5').floor(), -2n);
  assert.equal(d('-1.5').ceil(), -1n);
  assert.equal(d('-1.5').truncate(), -1n);
  assert.equal(d('-2.5').round(), -2n);
  assert.equal(d('2.5').round(), 3n);
});

test('conversion from JS numbers uses their shortest decimal form', () => {
  assert.equal(Decimal.fromNumber(0.1).toCanonical(), '0.1');
  assert.equal(Decimal.fromNumber(1e21).toCanonical(), '1000000000000000000000');
  assert.equal(Decimal.fromNumber(-1.5e-7).toCanonical(), '-0.00000015');
});
