import { test } from 'node:test';
import assert from 'node:assert/strict';
import { factory, type Literal, type Term } from '../../rdf/terms.js';
import { callFunction } from './index.js';
import { attempt, call, ctx, int, iri, lit } from './test-helpers.js';

const rtl = (value: string, language: string) => factory.literal(value, { language, direction: 'rtl' });
const ltr = (value: string, language: string) => factory.literal(value, { language, direction: 'ltr' });

/** A result with its direction, as "value@lang--dir" (or "value@lang", or the N-Triples form). */
function shown(name: string, args: Term[]): string {
  const t = callFunction(name, args, ctx()) as Literal;
  return t.direction ? `${t.value}@${t.language}--${t.direction}` : t.language ? `${t.value}@${t.language}` : call(name, args);
}

test('LANGDIR is the base direction, or "" without one; an error for a non-literal', () => {
  assert.equal(call('langdir', [rtl('قطة', 'ar')]), '"rtl"');
  assert.equal(call('langdir', [lit('abc', 'en')]), '""');
  assert.equal(call('langdir', [int(1)]), '""');
  assert.equal(attempt('langdir', [iri('http://example/')]), 'error');
});

test('hasLANG and hasLANGDIR are false for anything without a language tag or direction', () => {
  assert.equal(call('haslang', [lit('abc', 'en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('haslang', [ltr('abc', 'en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('haslang', [iri('http://example/')]), '"false"^^<xsd:boolean>');
  assert.equal(call('haslangdir', [lit('abc', 'en')]), '"false"^^<xsd:boolean>');
  assert.equal(call('haslangdir', [ltr('abc', 'en')]), '"true"^^<xsd:boolean>');
});

test('STRLANGDIR takes a simple string, a language tag and "ltr" or "rtl" exactly', () => {
  assert.equal(shown('strlangdir', [lit('abc'), lit('en'), lit('ltr')]), 'abc@en--ltr');
  for (const args of [
    [lit('abc'), lit('en'), lit('LTR')],
    [lit('abc'), lit('en'), lit('')],
    [lit('abc'), lit(''), lit('ltr')],
    [int(123), lit('en'), lit('ltr')],
  ]) {
    assert.equal(attempt('strlangdir', args), 'error');
  }
  assert.equal(attempt('strlang', [lit('abc'), lit('')]), 'error');
});

test('DATATYPE of a literal with a direction is rdf:dirLangString', () => {
  assert.equal(call('datatype', [ltr('foo', 'en')]), '<http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString>');
  assert.equal(call('datatype', [lit('foo', 'en')]), '<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>');
});

test('string functions keep the direction; CONCAT only when every argument has the same tag and direction', () => {
  assert.equal(shown('ucase', [rtl('abc', 'ar')]), 'ABC@ar--rtl');
  assert.equal(shown('concat', [ltr('a', 'en'), ltr('b', 'en')]), 'ab@en--ltr');
  assert.equal(shown('concat', [ltr('a', 'en'), rtl('b', 'en')]), '"ab"');
  assert.equal(shown('concat', [ltr('a', 'en'), lit('b', 'en')]), '"ab"');
  assert.equal(call('contains', [ltr('abc', 'en'), ltr('b', 'en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('contains', [ltr('abc', 'en'), lit('b')]), '"true"^^<xsd:boolean>');
  assert.equal(attempt('contains', [ltr('abc', 'en'), lit('b', 'en')]), 'error');
});

test('equal values need the same direction', () => {
  assert.equal(call('=', [ltr('a', 'en'), ltr('a', 'EN')]), '"true"^^<xsd:boolean>');
  assert.equal(call('=', [ltr('a', 'en'), lit('a', 'en')]), '"false"^^<xsd:boolean>');
  assert.equal(call('sameterm', [ltr('a', 'en'), rtl('a', 'en')]), '"false"^^<xsd:boolean>');
});
