import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TermTableDecoder, TermTableEncoder } from './transfer-term-table.js';
import { blankNode, defaultGraph, factory, literal, namedNode } from '../rdf/terms.js';

test('rows survive encoding, and a repeated term is sent only once', () => {
  const encoder = new TermTableEncoder(2);
  const decoder = new TermTableDecoder();
  const p = namedNode('http://example.org/p');
  encoder.addRow([p, literal('chat', 'fr')]);
  encoder.addRow([p, undefined]);
  const first = encoder.take();
  assert.deepEqual(first.newTerms, ['<http://example.org/p', '@fr"chat']);
  const rows = decoder.decodeRows(first);
  assert.ok(rows[0][0]?.equals(p));
  assert.ok(rows[0][1]?.equals(literal('chat', 'fr')));
  assert.equal(rows[1][1], undefined);

  encoder.addRow([blankNode('b1'), p]);
  const second = encoder.take();
  assert.deepEqual(second.newTerms, ['_b1'], 'p is known from the first batch');
  assert.deepEqual(
    decoder.decodeRows(second).map((row) => row.map((term) => term?.termType)),
    [['BlankNode', 'NamedNode']],
  );
});

test('rows without variables keep their count', () => {
  const encoder = new TermTableEncoder(0);
  encoder.addRow([]);
  const decoded = new TermTableDecoder().decodeRows(encoder.take());
  assert.deepEqual(decoded, [[]]);
});

test('quads travel as four terms, graph included', () => {
  const encoder = new TermTableEncoder(4);
  const quad = factory.quad(
    namedNode('http://e/s'),
    namedNode('http://e/p'),
    literal('1', namedNode('http://www.w3.org/2001/XMLSchema#integer')),
    defaultGraph(),
  );
  encoder.addQuad(quad);
  const [decoded] = new TermTableDecoder().decodeQuads(encoder.take());
  assert.ok(decoded.equals(quad));
});

test('equal terms in distinct objects share one table index', () => {
  const encoder = new TermTableEncoder(2);
  // Computed terms (BIND, CONCAT) are new objects on every row; the table still sends them once.
  encoder.addRow([literal('7'), namedNode('http://example.org/a')]);
  encoder.addRow([literal('7'), namedNode('http://example.org/a')]);
  const batch = encoder.take();
  assert.deepEqual(batch.newTerms, ['"7', '<http://example.org/a']);
  assert.deepEqual([...batch.cells], [1, 2, 1, 2]);
});
