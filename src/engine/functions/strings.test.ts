import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attempt, call, int, dbl, lit, iri } from './test-helpers.js';

test('STRLEN and SUBSTR count Unicode code points, not UTF-16 units', () => {
  assert.equal(call('strlen', [lit('食べ物')]), '"3"^^<xsd:integer>');
  assert.equal(call('strlen', [lit('a😀b')]), '"3"^^<xsd:integer>');
  assert.equal(call('substr', [lit('a😀bc'), int(2), int(2)]), '"😀b"');
  assert.equal(call('substr', [lit('foobar', 'en'), int(4)]), '"bar"@en');
  assert.equal(call('substr', [lit('abc', 'xsd:string'), int(2)]), '"bc"');
});

test('SUBSTR follows fn:substring for out-of-range and fractional positions', () => {
  assert.equal(call('substr', [lit('12345'), int(0), int(3)]), '"12"');
  assert.equal(call('substr', [lit('12345'), int(-3), int(5)]), '"1"');
  assert.equal(call('substr', [lit('12345'), dbl('1.5'), dbl('2.6')]), '"234"');
  assert.equal(call('substr', [lit('12345'), int(10)]), '""');
  assert.equal(attempt('substr', [lit('12345'), lit('1')]), 'error');
  assert.equal(attempt('substr', [int(12345), int(1)]), 'error');
});

test('UCASE and LCASE keep the language tag', () => {
  assert.equal(call('ucase', [lit('foo', 'en')]), '"FOO"@en');
  assert.equal(call('lcase', [lit('BAR')]), '"bar"');
  assert.equal(attempt('ucase', [iri('http://x/')]), 'error');
});

test('STRSTARTS, STRENDS, CONTAINS apply the argument-compatibility rule', () => {
  assert.equal(call('strstarts', [lit('foobar'), lit('foo')]), '"true"^^<xsd:boolean>');
  assert.equal(call('strends', [lit('foobar', 'en'), lit('bar')]), '"true"^^<xsd:boolean>');
  assert.equal(call('contains', [lit('foobar', 'en'), lit('oba', 'en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('contains', [lit('foobar', 'en'), lit('xyz', 'EN')]), '"false"^^<xsd:boolean>');
  // untagged first argument with a tagged second one, or two different tags: error
  assert.equal(attempt('contains', [lit('foobar'), lit('foo', 'en')]), 'error');
  assert.equal(attempt('strstarts', [lit('foobar', 'fr'), lit('foo', 'en')]), 'error');
  assert.equal(attempt('strends', [int(12), lit('2')]), 'error');
});

test('STRBEFORE and STRAFTER keep the first argument\'s kind, and answer "" when there is no match', () => {
  assert.equal(call('strbefore', [lit('abc', 'en'), lit('b')]), '"a"@en');
  assert.equal(call('strafter', [lit('abc', 'en'), lit('b', 'en')]), '"c"@en');
  assert.equal(call('strafter', [lit('abc', 'en'), lit('')]), '"abc"@en');
  assert.equal(call('strbefore', [lit('abc', 'en'), lit('')]), '""@en');
  assert.equal(call('strafter', [lit('abc', 'en'), lit('xyz')]), '""');
  assert.equal(call('strbefore', [lit('abc', 'xsd:string'), lit('c')]), '"ab"');
  assert.equal(attempt('strafter', [lit('abc'), lit('b', 'cy')]), 'error');
});

test('ENCODE_FOR_URI escapes everything but the unreserved characters', () => {
  assert.equal(call('encode_for_uri', [lit('Los Angeles')]), '"Los%20Angeles"');
  assert.equal(call('encode_for_uri', [lit("a!'()*~._-b", 'en')]), '"a%21%27%28%29%2A~._-b"');
  assert.equal(call('encode_for_uri', [lit('食')]), '"%E9%A3%9F"');
});

test('CONCAT keeps a language tag only when all arguments share it', () => {
  assert.equal(call('concat', [lit('foo', 'en'), lit('bar', 'en')]), '"foobar"@en');
  assert.equal(call('concat', [lit('foo', 'en'), lit('bar')]), '"foobar"');
  assert.equal(call('concat', [lit('foo', 'en'), lit('bar', 'fr')]), '"foobar"');
  assert.equal(call('concat', [lit('a'), lit('b', 'xsd:string')]), '"ab"');
  assert.equal(call('concat', []), '""');
  assert.equal(attempt('concat', [lit('a'), int(1)]), 'error');
});

test('LANGMATCHES implements basic filtering, with "*" matching any tag', () => {
  assert.equal(call('langmatches', [lit('en-US'), lit('en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('langmatches', [lit('EN'), lit('en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('langmatches', [lit('english'), lit('en')]), '"false"^^<xsd:boolean>');
  assert.equal(call('langmatches', [lit('fr'), lit('*')]), '"true"^^<xsd:boolean>');
  assert.equal(call('langmatches', [lit(''), lit('*')]), '"false"^^<xsd:boolean>');
  assert.equal(attempt('langmatches', [lit('en', 'en'), lit('en')]), 'error');
});

test('REGEX matches string literals, with flags', () => {
  assert.equal(call('regex', [lit('Alice'), lit('^ali')]), '"false"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('Alice', 'en'), lit('^ali'), lit('i')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('a\nb'), lit('^b$'), lit('m')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('a\nb'), lit('a.b')]), '"false"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('a\nb'), lit('a.b'), lit('s')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('abc'), lit('a b  c'), lit('x')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('a.c'), lit('.'), lit('q')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('abc'), lit('.'), lit('q')]), '"false"^^<xsd:boolean>');
  assert.equal(attempt('regex', [int(1), lit('1')]), 'error');
  assert.equal(attempt('regex', [lit('a'), lit('(')]), 'error');
  assert.equal(attempt('regex', [lit('a'), lit('a'), lit('k')]), 'error');
});

test('REGEX uses XPath character classes', () => {
  assert.equal(call('regex', [lit('٣'), lit('^\\d$')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('é'), lit('^\\w$')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('a-b'), lit('^a\\-b$')]), '"true"^^<xsd:boolean>');
  assert.equal(call('regex', [lit('😀'), lit('^.$')]), '"true"^^<xsd:boolean>');
});

test('REPLACE with group references, escapes and flags', () => {
  assert.equal(call('replace', [lit('abcd'), lit('(ab)|(a)'), lit('[1=$1][2=$2]')]), '"[1=ab][2=]cd"');
  assert.equal(call('replace', [lit('english', 'en'), lit('[^a-z0-9]'), lit('-')]), '"english"@en');
  assert.equal(call('replace', [lit('Français', 'fr'), lit('[^a-z0-9]'), lit('-')]), '"-ran-ais"@fr');
  assert.equal(call('replace', [lit('ABC'), lit('b'), lit('x'), lit('i')]), '"AxC"');
  assert.equal(call('replace', [lit('a.b.c'), lit('.'), lit('$'), lit('q')]), '"a$b$c"');
  assert.equal(call('replace', [lit('abc'), lit('b'), lit('\\$1')]), '"a$1c"');
  assert.equal(call('replace', [lit('abc'), lit('(b)'), lit('$12')]), '"ab2c"');
  assert.equal(attempt('replace', [lit('abc'), lit('b'), lit('$')]), 'error');
  assert.equal(attempt('replace', [lit('abc'), lit('x*'), lit('-')]), 'error');
});
