import { test } from 'node:test';
import assert from 'node:assert/strict';
import { factory, type Term } from '../../rdf/terms.js';
import { callFunction, orderByCompare } from './index.js';
import { attempt, bnode, call, ctx, int, iri, lit } from './test-helpers.js';

const s = iri('http://example/s');
const p = iri('http://example/p');
const made = (o: Term) => callFunction('triple', [s, p, o], ctx());

test('TRIPLE builds a triple term that SUBJECT, PREDICATE and OBJECT take apart', () => {
  const t = made(int(1));
  assert.equal(t.termType, 'Quad');
  assert.equal(call('subject', [t]), '<http://example/s>');
  assert.equal(call('predicate', [t]), '<http://example/p>');
  assert.equal(call('object', [t]), '"1"^^<xsd:integer>');
  assert.equal(call('istriple', [t]), '"true"^^<xsd:boolean>');
  assert.equal(call('istriple', [s]), '"false"^^<xsd:boolean>');
  assert.equal(callFunction('object', [made(t)], ctx()).termType, 'Quad');
  assert.equal(callFunction('triple', [bnode('b'), p, s], ctx()).termType, 'Quad');
});

test('TRIPLE refuses a literal subject or a non-IRI predicate; the accessors refuse non-triples', () => {
  assert.equal(attempt('triple', [lit('a'), p, s]), 'error');
  assert.equal(attempt('triple', [s, int(2), s]), 'error');
  assert.equal(attempt('triple', [s, bnode('b'), s]), 'error');
  assert.equal(attempt('subject', [s]), 'error');
  assert.equal(attempt('object', [lit('x')]), 'error');
});

test('triple terms are equal by their parts, and sort after literals by their parts', () => {
  assert.equal(call('=', [made(int(1)), made(lit('1.0', 'xsd:decimal'))]), '"true"^^<xsd:boolean>');
  assert.equal(call('sameterm', [made(int(1)), made(lit('1.0', 'xsd:decimal'))]), '"false"^^<xsd:boolean>');
  assert.equal(call('=', [made(int(1)), made(int(2))]), '"false"^^<xsd:boolean>');
  assert.ok(orderByCompare(lit('z'), made(int(1))) < 0);
  assert.ok(orderByCompare(made(int(1)), made(int(2))) < 0);
  assert.ok(orderByCompare(factory.quad(factory.namedNode('http://example/a'), factory.namedNode(p.value), factory.namedNode(s.value)), made(int(0))) < 0);
});
