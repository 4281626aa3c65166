import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attempt, bool, call, dbl, dec, dt, flt, int, iri, lit, XSD_NS } from './test-helpers.js';
import type { Term } from '../../rdf/terms.js';

const cast = (type: string, arg: Term) => attempt(XSD_NS + type, [arg]);

test('xsd:integer accepts integer strings, truncates numbers, and rejects the rest', () => {
  assert.equal(cast('integer', lit('13')), '"13"^^<xsd:integer>');
  assert.equal(cast('integer', lit(' +7 ')), '"7"^^<xsd:integer>');
  assert.equal(cast('integer', lit('1.5')), 'error');
  assert.equal(cast('integer', lit('1E0')), 'error');
  assert.equal(cast('integer', dec('-2.5')), '"-2"^^<xsd:integer>');
  assert.equal(cast('integer', flt('-7.875')), '"-7"^^<xsd:integer>');
  assert.equal(cast('integer', dbl('INF')), 'error');
  assert.equal(cast('integer', bool(true)), '"1"^^<xsd:integer>');
  assert.equal(cast('integer', dt('2002-10-10T17:00:00Z')), 'error');
  assert.equal(cast('integer', iri('http://example.org/z')), 'error');
});

test('xsd:decimal accepts decimal strings (no exponent) and finite numbers', () => {
  assert.equal(cast('decimal', lit('+33.3300')), '"33.33"^^<xsd:decimal>');
  assert.equal(cast('decimal', lit('1')), '"1.0"^^<xsd:decimal>');
  assert.equal(cast('decimal', lit('1E0')), 'error');
  assert.equal(cast('decimal', flt('1.25')), '"1.25"^^<xsd:decimal>');
  assert.equal(cast('decimal', flt('0.1')), '"0.1"^^<xsd:decimal>');
  assert.equal(cast('decimal', dbl('1e-7')), '"0.0000001"^^<xsd:decimal>');
  assert.equal(cast('decimal', dbl('NaN')), 'error');
  assert.equal(cast('decimal', bool(false)), '"0.0"^^<xsd:decimal>');
});

test('xsd:float and xsd:double give canonical forms', () => {
  assert.equal(cast('double', lit('-10.2E3')), '"-1.02E4"^^<xsd:double>');
  assert.equal(cast('double', lit('+33.3300')), '"3.333E1"^^<xsd:double>');
  assert.equal(cast('double', lit('0.0')), '"0.0E0"^^<xsd:double>');
  assert.equal(cast('double', lit('INF')), '"INF"^^<xsd:double>');
  assert.equal(cast('float', int(1)), '"1.0E0"^^<xsd:float>');
  assert.equal(cast('float', dec('0.1')), '"1.0E-1"^^<xsd:float>');
  assert.equal(cast('float', bool(true)), '"1.0E0"^^<xsd:float>');
  assert.equal(cast('double', lit('string')), 'error');
  assert.equal(cast('double', lit('2002-10-10T17:00:00Z')), 'error');
});

test('xsd:boolean accepts true/false/1/0 strings and numbers', () => {
  assert.equal(cast('boolean', lit('1')), '"true"^^<xsd:boolean>');
  assert.equal(cast('boolean', lit('false')), '"false"^^<xsd:boolean>');
  assert.equal(cast('boolean', lit('0.0')), 'error');
  assert.equal(cast('boolean', lit('TRUE')), 'error');
  assert.equal(cast('boolean', lit('0', 'xsd:boolean')), '"false"^^<xsd:boolean>');
  assert.equal(cast('boolean', dbl('NaN')), '"false"^^<xsd:boolean>');
  assert.equal(cast('boolean', dec('-1.0')), '"true"^^<xsd:boolean>');
  assert.equal(cast('boolean', flt('0E1')), '"false"^^<xsd:boolean>');
});

test('xsd:string of IRIs and literals uses XPath string forms for numbers and booleans', () => {
  assert.equal(cast('string', iri('http://example.org/z')), '"http://example.org/z"');
  assert.equal(cast('string', lit('+33.3300')), '"+33.3300"');
  assert.equal(cast('string', dec('1.0')), '"1"');
  assert.equal(cast('string', dbl('1E0')), '"1"');
  assert.equal(cast('string', flt('-7.875')), '"-7.875"');
  assert.equal(cast('string', dbl('1e7')), '"1.0E7"');
  assert.equal(cast('string', lit('0', 'xsd:boolean')), '"false"');
  assert.equal(cast('string', dt('2002-10-10T17:00:00Z')), '"2002-10-10T17:00:00Z"');
  assert.equal(cast('string', lit('abc', 'xsd:integer')), 'error');
});

test('xsd:dateTime and xsd:date from strings and from each other', () => {
  assert.equal(cast('dateTime', lit('2002-10-10T17:00:00Z')), '"2002-10-10T17:00:00Z"^^<xsd:dateTime>');
  assert.equal(cast('dateTime', lit('2002-10-10')), 'error');
  assert.equal(cast('dateTime', lit('2002-10-10', 'xsd:date')), '"2002-10-10T00:00:00"^^<xsd:dateTime>');
  assert.equal(cast('date', dt('2002-10-10T17:00:00-05:00')), '"2002-10-10-05:00"^^<xsd:date>');
  assert.equal(cast('time', dt('2002-10-10T17:00:00.5Z')), '"17:00:00.5Z"^^<xsd:time>');
  assert.equal(cast('dateTime', int(1)), 'error');
});

test('casts to integer-derived types check the range', () => {
  assert.equal(cast('byte', lit('127')), '"127"^^<xsd:byte>');
  assert.equal(cast('byte', int(128)), 'error');
  assert.equal(cast('nonNegativeInteger', dec('-0.5')), '"0"^^<xsd:nonNegativeInteger>');
  assert.equal(cast('positiveInteger', int(0)), 'error');
});

test('casting unknown datatypes and blank nodes is an error; unknown cast IRIs are unknown functions', () => {
  assert.equal(cast('integer', lit('1', 'http://example.org/t')), 'error');
  assert.equal(cast('string', { termType: 'BlankNode', value: 'b', equals: () => false } as Term), 'error');
  assert.equal(attempt('http://example.org/f', [int(1)]), 'error');
  assert.equal(call(XSD_NS + 'integer', [lit('42')]), '"42"^^<xsd:integer>');
});
