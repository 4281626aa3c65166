import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callFunction, isFunctionKnown, resolveFunction } from './index.js';
import { attempt, bnode, call, ctx, dbl, dt, int, iri, lit } from './test-helpers.js';

test('STR, LANG and DATATYPE', () => {
  assert.equal(call('str', [iri('http://a/b')]), '"http://a/b"');
  assert.equal(call('str', [int(7)]), '"7"');
  assert.equal(attempt('str', [bnode('b')]), 'error');
  assert.equal(call('lang', [lit('chat', 'fr')]), '"fr"');
  assert.equal(call('lang', [lit('chat')]), '""');
  assert.equal(attempt('lang', [iri('http://a/')]), 'error');
  assert.equal(call('datatype', [lit('chat')]), '<xsd:string>');
  assert.equal(call('datatype', [lit('chat', 'fr')]), '<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>');
  assert.equal(call('datatype', [dt('2001-01-01T00:00:00Z')]), '<xsd:dateTime>');
});

test('IRI and URI resolve against the base IRI', () => {
  const withBase = ctx({ baseIri: 'http://example.org/a/b' });
  assert.equal(call('iri', [lit('iri')], withBase), '<http://example.org/a/iri>');
  assert.equal(call('uri', [lit('../c?x#y')], withBase), '<http://example.org/c?x#y>');
  assert.equal(call('iri', [lit('http://other/x')], withBase), '<http://other/x>');
  assert.equal(call('iri', [iri('http://a/')]), '<http://a/>');
  assert.equal(attempt('iri', [lit('relative')]), 'error');
  assert.equal(attempt('iri', [lit('http://a b/')]), 'error');
  assert.equal(attempt('iri', [lit('http://a/', 'en')]), 'error');
});

test('IRI and URI are errors for every kind of invalid IRI, before or after resolution', () => {
  const withBase = ctx({ baseIri: 'http://example.org/a/b' });
  for (const invalid of [
    'http://x.example/a#b#c',
    'http://x.example/%zz',
    'http://[::1',
    'http://x.example:8o/',
    'http://x.example/a b',
    'http://x.example/[a]',
  ]) {
    assert.equal(attempt('iri', [lit(invalid)]), 'error', invalid);
    assert.equal(attempt('uri', [lit(invalid)], withBase), 'error', invalid);
  }
  for (const invalidReference of ['a#b#c', '%zz', 'a%4']) assert.equal(attempt('iri', [lit(invalidReference)], withBase), 'error', invalidReference);
  for (const valid of ['http://[::1]:8080/', 'urn:isbn:0451450523', 'mailto:a@example.org', 'http://x.example/caf\u00e9#', 'http://x.example/%C3%A9']) {
    assert.equal(call('iri', [lit(valid)]), `<${valid}>`);
  }
  assert.equal(call('iri', [lit('caf\u00e9#')], withBase), '<http://example.org/a/caf\u00e9#>');
});

test('BNODE() is fresh each call; BNODE(label) is the same node within one row', () => {
  const row = ctx();
  const a = callFunction('bnode', [], row);
  const b = callFunction('bnode', [], row);
  assert.equal(a.termType, 'BlankNode');
  assert.notEqual(a.value, b.value);
  const x1 = callFunction('bnode', [lit('x')], row);
  assert.equal(callFunction('bnode', [lit('x')], row), x1);
  assert.notEqual(callFunction('bnode', [lit('y')], row).value, x1.value);
  assert.notEqual(callFunction('bnode', [lit('x')], ctx()).value, x1.value);
  assert.equal(attempt('bnode', [int(1)]), 'error');
});

test('STRDT and STRLANG build literals from simple literals', () => {
  assert.equal(call('strdt', [lit('123'), iri('http://www.w3.org/2001/XMLSchema#integer')]), '"123"^^<xsd:integer>');
  assert.equal(call('strdt', [lit('abc'), iri('http://www.w3.org/2001/XMLSchema#string')]), '"abc"');
  assert.equal(attempt('strdt', [lit('abc', 'en'), iri('http://example/t')]), 'error');
  assert.equal(attempt('strdt', [int(1), iri('http://example/t')]), 'error');
  assert.equal(call('strlang', [lit('chat'), lit('fr')]), '"chat"@fr');
  assert.equal(attempt('strlang', [lit('chat', 'en'), lit('fr')]), 'error');
  assert.equal(attempt('strlang', [lit('chat'), lit('')]), 'error');
});

test('UUID is an urn:uuid IRI, STRUUID a string', () => {
  assert.match(call('uuid', []), /^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$/);
  assert.match(call('struuid', []), /^"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"$/);
  assert.notEqual(call('struuid', []), call('struuid', []));
});

test('term tests', () => {
  assert.equal(call('isiri', [iri('http://a/')]), '"true"^^<xsd:boolean>');
  assert.equal(call('isuri', [lit('http://a/')]), '"false"^^<xsd:boolean>');
  assert.equal(call('isblank', [bnode('b')]), '"true"^^<xsd:boolean>');
  assert.equal(call('isliteral', [lit('a', 'en')]), '"true"^^<xsd:boolean>');
  assert.equal(call('isnumeric', [dbl('NaN')]), '"true"^^<xsd:boolean>');
  assert.equal(call('isnumeric', [lit('1')]), '"false"^^<xsd:boolean>');
  assert.equal(call('isnumeric', [lit('1200', 'xsd:byte')]), '"false"^^<xsd:boolean>');
  assert.equal(call('sameterm', [int(1), lit('01', 'xsd:integer')]), '"false"^^<xsd:boolean>');
  assert.equal(call('sameterm', [lit('a', 'en'), lit('a', 'en')]), '"true"^^<xsd:boolean>');
});

test('the registry knows builtins by Traqula name, casts by IRI, and checks arity', () => {
  assert.ok(isFunctionKnown('encode_for_uri'));
  assert.ok(isFunctionKnown('STRLEN'));
  assert.ok(isFunctionKnown('http://www.w3.org/2001/XMLSchema#int'));
  assert.ok(!isFunctionKnown('http://example.org/f'));
  assert.ok(!isFunctionKnown('bound'));
  assert.equal(attempt('strlen', []), 'error');
  assert.equal(attempt('http://example.org/f', []), 'error');
});

test('resolveFunction looks a function up once for a known arity', () => {
  const strlen = resolveFunction('strlen', 1);
  assert.ok(strlen);
  assert.equal(strlen([lit('abc')], ctx()).value, '3');
  assert.equal(resolveFunction('strlen', 2), undefined);
  assert.equal(resolveFunction('http://example.org/f', 1), undefined);
  assert.ok(resolveFunction('http://www.w3.org/2001/XMLSchema#double', 1));
});
