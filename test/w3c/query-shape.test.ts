import { test } from 'node:test';
import assert from 'node:assert/strict';
import { datasetOfQuery, maskQuery, orderKeysOf } from './query-shape.js';

const base = 'file:///suite/dataset/q.rq';

test('FROM and FROM NAMED resolve against the query file, prefixes and BASE', () => {
  const query = `PREFIX : <http://example/>
    SELECT * FROM <data-g1.ttl> FROM NAMED :g2 # FROM <commented-out.ttl>
    WHERE { ?s ?p "FROM <in-a-string.ttl>" }`;
  assert.deepEqual(datasetOfQuery(query, base), {
    from: ['file:///suite/dataset/data-g1.ttl'],
    fromNamed: ['http://example/g2'],
  });
  assert.deepEqual(datasetOfQuery('BASE <http://b/x/> SELECT * FROM <g> {}', base).from, ['http://b/x/g']);
});

test('masking keeps offsets and IRIs but blanks strings and comments', () => {
  const text = `SELECT ?x { ?x <http://e/#a> "ORDER BY ?y" } # ORDER BY ?z`;
  const masked = maskQuery(text);
  assert.equal(masked.length, text.length);
  assert.ok(masked.includes('<http://e/#a>'));
  assert.ok(!masked.includes('ORDER'));
});

test('order keys: leading plain variables that the query projects', () => {
  assert.deepEqual(orderKeysOf('SELECT ?a ?b { } ORDER BY ?a DESC(?b)', ['a', 'b']), ['a', 'b']);
  assert.deepEqual(orderKeysOf('SELECT ?a ?b { } ORDER BY ?a str(?b) ?b LIMIT 2', ['a', 'b']), ['a']);
  assert.deepEqual(orderKeysOf('SELECT ?a { } ORDER BY ?hidden ?a', ['a']), []);
  assert.equal(orderKeysOf('SELECT ?a { }', ['a']), undefined);
});

test('order keys: an ORDER BY inside a subquery does not order the answer', () => {
  assert.equal(orderKeysOf('SELECT ?a { { SELECT ?a { } ORDER BY ?a LIMIT 1 } }', ['a']), undefined);
});
