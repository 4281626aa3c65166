import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Term } from '../../rdf/terms.js';
import { effectiveBooleanValue, ExpressionError } from './index.js';
import { attempt, bnode, bool, dbl, dec, dt, flt, int, iri, lit } from './test-helpers.js';

const ebv = (t: Term) => {
  try {
    return effectiveBooleanValue(t);
  } catch (e) {
    if (e instanceof ExpressionError) return 'error';
    throw e;
  }
};

test('EBV of booleans, numbers and strings', () => {
  assert.equal(ebv(bool(true)), true);
  assert.equal(ebv(lit('0', 'xsd:boolean')), false);
  assert.equal(ebv(int(0)), false);
  assert.equal(ebv(int(-3)), true);
  assert.equal(ebv(dec('0.0')), false);
  assert.equal(ebv(dbl('NaN')), false);
  assert.equal(ebv(flt('1e-30')), true);
  assert.equal(ebv(lit('')), false);
  assert.equal(ebv(lit('false')), true);
  assert.equal(ebv(lit('x', 'en')), true);
});

test('EBV of an ill-typed boolean or number is false', () => {
  assert.equal(ebv(lit('abc', 'xsd:boolean')), false);
  assert.equal(ebv(lit('abc', 'xsd:integer')), false);
  assert.equal(ebv(lit('1.5', 'xsd:int')), false);
});

test('other terms have no EBV', () => {
  assert.equal(ebv(iri('http://a/')), 'error');
  assert.equal(ebv(bnode('b')), 'error');
  assert.equal(ebv(dt('2001-01-01T00:00:00Z')), 'error');
  assert.equal(ebv(lit('x', 'http://example/t')), 'error');
});

test('! negates the EBV', () => {
  assert.equal(attempt('!', [lit('')]), '"true"^^<xsd:boolean>');
  assert.equal(attempt('!', [int(2)]), '"false"^^<xsd:boolean>');
  assert.equal(attempt('!', [iri('http://a/')]), 'error');
});
