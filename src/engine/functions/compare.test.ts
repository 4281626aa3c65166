import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Quad_Object } from '@rdfjs/types';
import { directionalLiteral, namedNode, termToString, tripleTerm, type Term } from '../../rdf/terms.js';
import { compareValues, ExpressionError, orderByCompare, rdfTermEqual } from './index.js';
import { attempt, bnode, bool, dbl, dec, dt, flt, int, iri, lit, show } from './test-helpers.js';

const outcome = (f: () => unknown) => {
  try {
    return f();
  } catch (e) {
    if (e instanceof ExpressionError) return 'error';
    throw e;
  }
};
const eq = (a: Term, b: Term) => outcome(() => rdfTermEqual(a, b));
const cmp = (a: Term, b: Term) => outcome(() => Math.sign(compareValues(a, b)));

test('= compares numbers by value across types', () => {
  assert.equal(eq(int(1), lit('01', 'xsd:integer')), true);
  assert.equal(eq(int(1), dec('1.0')), true);
  assert.equal(eq(int(1), dbl('1e0')), true);
  assert.equal(eq(flt('0.1'), dbl('0.1')), false); // 0.1f is not 0.1d
  assert.equal(eq(dbl('NaN'), dbl('NaN')), false);
  assert.equal(eq(lit('1', 'xsd:byte'), int(1)), true);
});

test('= on strings, language strings, booleans, IRIs and blank nodes', () => {
  assert.equal(eq(lit('abc'), lit('abc', 'xsd:string')), true);
  assert.equal(eq(lit('abc', 'en'), lit('abc', 'EN')), true);
  assert.equal(eq(lit('abc', 'en'), lit('abc')), false);
  assert.equal(eq(lit('abc', 'en'), lit('abc', 'fr')), false);
  assert.equal(eq(bool(true), lit('1', 'xsd:boolean')), true);
  assert.equal(eq(iri('http://a/'), iri('http://a/')), true);
  assert.equal(eq(iri('http://a/'), lit('http://a/')), false);
  assert.equal(eq(bnode('x'), bnode('x')), true);
  assert.equal(eq(bnode('x'), bnode('y')), false);
});

test('= between different known types is false, but unknown or ill-typed literals give an error', () => {
  assert.equal(eq(int(1), lit('1')), false);
  assert.equal(eq(dt('2006-08-23T09:00:00+01:00'), lit('2006-08-23', 'xsd:date')), false);
  assert.equal(eq(lit('a', 'http://example/t'), lit('a', 'http://example/t')), true);
  assert.equal(eq(lit('a', 'http://example/t'), lit('b', 'http://example/t')), 'error');
  assert.equal(eq(lit('xyz'), lit('xyz', 'http://example/unknown')), 'error');
  assert.equal(eq(lit('xyz'), lit('xyz', 'xsd:integer')), 'error');
  assert.equal(eq(lit('xyz', 'xsd:integer'), lit('xyz', 'xsd:integer')), true);
  // a language string or a non-literal is simply unequal to anything else
  assert.equal(eq(lit('xyz', 'en'), lit('xyz', 'xsd:integer')), false);
  assert.equal(eq(iri('http://x/'), lit('xyz', 'http://example/unknown')), false);
});

test('!= is the negation of =, errors included', () => {
  assert.equal(attempt('!=', [int(1), int(2)]), '"true"^^<xsd:boolean>');
  assert.equal(attempt('!=', [int(1), dec('1.0')]), '"false"^^<xsd:boolean>');
  assert.equal(attempt('!=', [lit('a', 'http://t/'), lit('b', 'http://t/')]), 'error');
});

test('dateTimes compare on the time line, with the XSD rule for missing time zones', () => {
  assert.equal(eq(dt('2002-04-02T12:00:00-01:00'), dt('2002-04-02T17:00:00+04:00')), true);
  assert.equal(cmp(dt('2002-04-02T12:00:00Z'), dt('2002-04-02T12:00:01Z')), -1);
  assert.equal(cmp(dt('2002-04-02T12:00:00.25Z'), dt('2002-04-02T12:00:00.3Z')), -1);
  // 12:00 without a zone lies anywhere between 22:00Z the day before and 02:00Z the day after
  assert.equal(eq(dt('2002-04-02T12:00:00Z'), dt('2002-04-02T12:00:00')), 'error');
  assert.equal(cmp(dt('2002-04-02T12:00:00Z'), dt('2002-04-03T12:00:00')), -1);
  assert.equal(cmp(dt('2002-04-02T12:00:00Z'), dt('2002-04-02T20:00:00')), 'error');
  assert.equal(eq(dt('2002-04-02T12:00:00'), dt('2002-04-02T12:00:00.000')), true);
  assert.equal(eq(dt('2002-04-02T24:00:00Z'), dt('2002-04-03T00:00:00Z')), true);
});

test('xsd:date values compare like dateTimes at midnight', () => {
  assert.equal(eq(lit('2006-08-23Z', 'xsd:date'), lit('2006-08-23+00:00', 'xsd:date')), true);
  assert.equal(eq(lit('2006-08-23Z', 'xsd:date'), lit('2006-08-23', 'xsd:date')), 'error');
  assert.equal(cmp(lit('2006-08-23Z', 'xsd:date'), lit('2006-08-22', 'xsd:date')), 1);
});

test('< and friends order numbers, strings by code point, booleans and date/times; others are errors', () => {
  assert.equal(cmp(int(2), dec('10.5')), -1);
  assert.equal(cmp(lit('a'), lit('b', 'xsd:string')), -1);
  assert.equal(cmp(lit('\uFFFF'), lit('😀')), -1); // code point order, not UTF-16
  assert.equal(cmp(bool(false), bool(true)), -1);
  assert.equal(cmp(lit('a', 'en'), lit('b', 'en')), 'error');
  assert.equal(cmp(int(1), lit('1')), 'error');
  assert.equal(cmp(iri('http://a/'), iri('http://b/')), 'error');
  assert.equal(attempt('<', [dbl('NaN'), int(1)]), '"false"^^<xsd:boolean>');
  assert.equal(attempt('>=', [dbl('NaN'), int(1)]), '"false"^^<xsd:boolean>');
  assert.equal(attempt('<=', [int(1), dec('1.0')]), '"true"^^<xsd:boolean>');
});

test('durations: equality always, order within dayTime or yearMonth durations', () => {
  const dur = (s: string, t = 'xsd:dayTimeDuration') => lit(s, t);
  assert.equal(eq(dur('PT1H'), dur('PT60M')), true);
  assert.equal(eq(dur('P1Y', 'xsd:yearMonthDuration'), dur('P12M', 'xsd:yearMonthDuration')), true);
  assert.equal(cmp(dur('PT1H'), dur('P1D')), -1);
  assert.equal(cmp(dur('P1M', 'xsd:duration'), dur('P30D', 'xsd:duration')), 'error');
});

test('ORDER BY: unbound < blank nodes < IRIs < literals, literals by value then by a fixed fallback', () => {
  const terms: (Term | undefined)[] = [
    lit('b'),
    int(10),
    iri('http://b/'),
    lit('a', 'en'),
    undefined,
    dec('2.5'),
    bnode('x'),
    lit('a'),
    dbl('NaN'),
    bool(true),
    lit('zzz', 'http://example/unknown'),
    iri('http://a/'),
    dt('2001-01-01T00:00:00Z'),
    int(2),
    flt('-1'),
  ];
  // Rows rather than bare terms: Array.prototype.sort never passes undefined to a comparator.
  const rows = terms.map((term) => ({ term }));
  const sorted = rows.sort((a, b) => orderByCompare(a.term, b.term)).map((r) => (r.term ? show(r.term) : 'UNDEF'));
  assert.deepEqual(sorted, [
    'UNDEF',
    '_:x',
    '<http://a/>',
    '<http://b/>',
    '"true"^^<xsd:boolean>',
    '"NaN"^^<xsd:double>',
    '"-1"^^<xsd:float>',
    '"2"^^<xsd:integer>',
    '"2.5"^^<xsd:decimal>',
    '"10"^^<xsd:integer>',
    '"2001-01-01T00:00:00Z"^^<xsd:dateTime>',
    '"a"',
    '"a"@en',
    '"b"',
    '"zzz"^^<http://example/unknown>',
  ]);
});

test('ORDER BY is deterministic for equal values written differently', () => {
  const a = [int(1), dec('1.0'), lit('01', 'xsd:integer'), dbl('1')];
  const b = [...a].reverse();
  assert.deepEqual(a.sort(orderByCompare).map(show), b.sort(orderByCompare).map(show));
  assert.equal(orderByCompare(int(1), int(1)), 0);
});

test('SPARQL 1.2: triple terms are = by their parts and sort after literals, part by part', () => {
  const triple = (o: Term) => tripleTerm(namedNode('http://ex/s'), namedNode('http://ex/p'), o as Quad_Object);
  assert.equal(eq(triple(int(1)), triple(dec('1.0'))), true);
  assert.equal(eq(triple(int(1)), triple(int(2))), false);
  assert.equal(eq(triple(iri('http://ex/o')), iri('http://ex/o')), false);
  const sorted = [triple(int(123)), lit('z'), triple(triple(iri('http://ex/z'))), triple(int(-456)), bnode('b')].sort(orderByCompare);
  assert.deepEqual(
    sorted.map((t) => (t.termType === 'Quad' ? termToString(t.object) : t.termType)),
    [
      'BlankNode',
      'Literal',
      '"-456"^^<http://www.w3.org/2001/XMLSchema#integer>',
      '"123"^^<http://www.w3.org/2001/XMLSchema#integer>',
      '<<( <http://ex/s> <http://ex/p> <http://ex/z> )>>',
    ],
  );
});

test('directional literals are = only with the same direction', () => {
  assert.equal(eq(directionalLiteral('a', 'ar', 'rtl'), directionalLiteral('a', 'ar', 'rtl')), true);
  assert.equal(eq(directionalLiteral('a', 'ar', 'rtl'), directionalLiteral('a', 'ar', 'ltr')), false);
  assert.equal(eq(directionalLiteral('a', 'ar', 'rtl'), lit('a', 'ar')), false);
});
