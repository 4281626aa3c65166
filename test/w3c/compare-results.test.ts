import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blankNode, defaultGraph, literal, namedNode, typedLiteral, type Term } from '../../src/rdf/terms.js';
import { compareAnswers, type Answer } from './compare-results.js';
import { matchRows } from './isomorphism.js';

const ex = (name: string) => namedNode(`http://example.org/${name}`);
const b = blankNode;
const g = defaultGraph();

function bindings(variables: string[], rows: (Term | undefined)[][]): Answer {
  return { kind: 'bindings', variables, rows };
}

test('solutions: a multiset, any order, columns matched by variable name', () => {
  const expected = bindings(
    ['x', 'y'],
    [
      [ex('a'), literal('1')],
      [ex('b'), undefined],
    ],
  );
  const actual = bindings(
    ['y', 'x'],
    [
      [undefined, ex('b')],
      [literal('1'), ex('a')],
    ],
  );
  assert.deepEqual(compareAnswers(expected, actual), { ok: true });
});

test('solutions: duplicates count, unless cardinality is lax', () => {
  const expected = bindings(['x'], [[ex('a')], [ex('a')]]);
  const actual = bindings(['x'], [[ex('a')]]);
  assert.deepEqual(compareAnswers(expected, actual), { ok: false, reason: 'expected 2 rows, got 1' });
  assert.deepEqual(compareAnswers(expected, actual, { laxCardinality: true }), { ok: true });
});

test('solutions: literals compare by exact lexical form, language tags without case', () => {
  const xsdInteger = 'http://www.w3.org/2001/XMLSchema#integer';
  const expected = bindings(['x'], [[typedLiteral('01', xsdInteger)]]);
  const actual = bindings(['x'], [[typedLiteral('1', xsdInteger)]]);
  assert.equal(compareAnswers(expected, actual).ok, false);
  const en = bindings(['x'], [[literal('hi', 'en-US')]]);
  assert.equal(compareAnswers(en, bindings(['x'], [[literal('hi', 'en-us')]])).ok, true);
});

test('solutions: blank nodes match up to a consistent renaming', () => {
  const expected = bindings(
    ['x', 'y'],
    [
      [b('a'), b('b')],
      [b('b'), b('a')],
    ],
  );
  assert.equal(
    compareAnswers(
      expected,
      bindings(
        ['x', 'y'],
        [
          [b('q'), b('r')],
          [b('r'), b('q')],
        ],
      ),
    ).ok,
    true,
  );
  // Two different labels cannot map onto one.
  assert.equal(
    compareAnswers(
      expected,
      bindings(
        ['x', 'y'],
        [
          [b('q'), b('q')],
          [b('q'), b('q')],
        ],
      ),
    ).ok,
    false,
  );
  // Sharing must be preserved.
  assert.equal(
    compareAnswers(
      expected,
      bindings(
        ['x', 'y'],
        [
          [b('q'), b('r')],
          [b('s'), b('t')],
        ],
      ),
    ).ok,
    false,
  );
});

test('solutions: with order keys, runs of ties may permute but the runs keep their order', () => {
  const expected = bindings(
    ['k', 'v'],
    [
      [literal('1'), ex('a')],
      [literal('1'), ex('b')],
      [literal('2'), ex('c')],
    ],
  );
  const tiesSwapped = bindings(
    ['k', 'v'],
    [
      [literal('1'), ex('b')],
      [literal('1'), ex('a')],
      [literal('2'), ex('c')],
    ],
  );
  const runsSwapped = bindings(
    ['k', 'v'],
    [
      [literal('2'), ex('c')],
      [literal('1'), ex('a')],
      [literal('1'), ex('b')],
    ],
  );
  assert.equal(compareAnswers(expected, tiesSwapped, { orderKeys: ['k'] }).ok, true);
  assert.deepEqual(compareAnswers(expected, runsSwapped, { orderKeys: ['k'] }), {
    ok: false,
    reason: 'right rows, wrong order (ORDER BY ?k)',
  });
  assert.equal(compareAnswers(expected, runsSwapped).ok, true);
});

test('graphs: isomorphism, not label equality', () => {
  const p = ex('p');
  const expected: Answer = {
    kind: 'quads',
    quads: [
      [b('x'), p, b('y'), g],
      [b('y'), p, ex('o'), g],
    ],
  };
  const renamed: Answer = {
    kind: 'quads',
    quads: [
      [b('2'), p, ex('o'), g],
      [b('1'), p, b('2'), g],
    ],
  };
  const rewired: Answer = {
    kind: 'quads',
    quads: [
      [b('1'), p, b('2'), g],
      [b('1'), p, ex('o'), g],
    ],
  };
  assert.equal(compareAnswers(expected, renamed).ok, true);
  assert.equal(compareAnswers(expected, rewired).ok, false);
});

test('kinds must agree', () => {
  assert.deepEqual(compareAnswers({ kind: 'boolean', value: true }, { kind: 'boolean', value: false }), {
    ok: false,
    reason: 'expected true, got false',
  });
  assert.equal(compareAnswers({ kind: 'boolean', value: true }, bindings([], [[]])).ok, false);
});

test('isomorphism search copes with many interchangeable blank nodes', () => {
  const p = ex('p');
  const chain = (labels: string[]) => labels.slice(1).map((l, i) => [b(labels[i]), p, b(l), g]);
  const n = 60;
  const expected = chain(Array.from({ length: n }, (_, i) => `e${i}`));
  const actual = chain(Array.from({ length: n }, (_, i) => `a${i}`)).reverse();
  assert.ok(matchRows(expected, actual));
});

test('solutions: ordered on keys that cannot be checked, every row keeps its place', () => {
  const expected = bindings(['v'], [[literal('1')], [literal('2')]]);
  const swapped = bindings(['v'], [[literal('2')], [literal('1')]]);
  assert.equal(compareAnswers(expected, expected, { orderKeys: [] }).ok, true);
  assert.equal(compareAnswers(expected, swapped, { orderKeys: [] }).ok, false);
});
