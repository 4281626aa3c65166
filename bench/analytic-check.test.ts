import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareRows, crossCheck, parseRows } from './analytic-check.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const results = (rows: object[]): string => JSON.stringify({ head: { vars: ['p', 'avg'] }, results: { bindings: rows } });
const row = (p: string, avg: string, datatype = XSD + 'decimal'): object => ({
  p: { type: 'uri', value: `http://example.org/${p}` },
  avg: { type: 'literal', value: avg, datatype },
});

test('an AVG as xsd:decimal and as xsd:double with other last digits is the same answer', () => {
  const quiver = parseRows(results([row('a', '2.3333333333333333')]));
  const virtuoso = parseRows(results([row('a', '2.333333333333333e0', XSD + 'double')]));
  assert.equal(compareRows(quiver, virtuoso, true), undefined);
});

test('numbers further apart than the tolerance differ', () => {
  const a = parseRows(results([row('a', '2.5')]));
  const b = parseRows(results([row('a', '2.6')]));
  assert.match(compareRows(a, b, false)!, /row 1/);
});

test('without ORDER BY the rows compare as a multiset; with it, in order', () => {
  const ab = parseRows(results([row('a', '1'), row('b', '2')]));
  const ba = parseRows(results([row('b', '2'), row('a', '1')]));
  assert.equal(compareRows(ab, ba, false), undefined);
  assert.match(compareRows(ab, ba, true)!, /row 1/);
});

test('a missing row is told by the counts', () => {
  const ab = parseRows(results([row('a', '1'), row('b', '2')]));
  assert.equal(compareRows(ab, ab.slice(1), false), '1 rows, expected 2');
});

test('typed-literal, an explicit xsd:string and the case of a language tag do not matter', () => {
  const plain = parseRows(
    JSON.stringify({ results: { bindings: [{ l: { type: 'literal', value: 'x', 'xml:lang': 'en' } }, { s: { type: 'literal', value: 'y' } }] } }),
  );
  const other = parseRows(
    JSON.stringify({
      results: { bindings: [{ l: { type: 'literal', value: 'x', 'xml:lang': 'EN' } }, { s: { type: 'typed-literal', value: 'y', datatype: XSD + 'string' } }] },
    }),
  );
  assert.equal(compareRows(plain, other, true), undefined);
});

test('the cross-check names the engines that differ from the first answer, and the failures', () => {
  const one = parseRows(results([row('a', '1')]));
  const two = parseRows(results([row('a', '2')]));
  const problems = crossCheck({ quiver: one, oxigraph: one, virtuoso: two, jena: { error: 'HTTP 503' } }, true);
  assert.deepEqual(Object.keys(problems).sort(), ['jena', 'virtuoso']);
  assert.match(problems.virtuoso, /against quiver/);
  assert.match(problems.jena, /failed: HTTP 503/);
});
