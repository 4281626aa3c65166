/**
 * COUNT(DISTINCT *) counts what SELECT DISTINCT * returns: distinct solutions over the variables
 * the query wrote. Blank nodes in patterns, the hidden steps of property paths, a sub-SELECT's
 * unprojected variables and unnamed GROUP BY expressions must never make two solutions distinct.
 * Each pattern is run both ways over the same store and the counts compared, per group too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { runQuery, runUpdate } from '../query-engine.js';

const PREFIX = 'PREFIX : <http://ex/> ';
const DATA = `INSERT DATA {
  :a :p :b , :c . :b :p :c , :d . :c :p :d . :d :q :a , :b .
  :a :name "a" . :b :name "b" , "B" . :c :name "c" .
  GRAPH :g1 { :a :p :b . :b :p :c } GRAPH :g2 { :a :p :b . :c :q :a }
}`;

/** Patterns whose algebra holds variables or slots that the query never named. */
const PATTERNS = [
  '?s :p ?o',
  '?s :p [] ',
  '?s :p _:x . _:x :p ?o',
  '?s :p [ :p ?o ]',
  '?s :p/:p ?o',
  '?s :p/:p/:q ?o',
  '?s :p|:q ?o',
  '?s ^:p ?o',
  '?s :p* ?o',
  '?s :p+ ?o',
  '?s (:p/:q)+ ?o',
  '?s :p? ?o',
  '?s !(:name) ?o',
  '?s :p/:name ?n',
  '{ SELECT ?s { ?s :p ?o } }',
  '{ SELECT DISTINCT ?s { ?s :p/:p ?o } }',
  '{ SELECT ?s (COUNT(*) AS ?n) { ?s :p ?o } GROUP BY ?s }',
  'GRAPH ?g { ?s :p ?o }',
  'GRAPH ?g { ?s :p [] }',
  '?s :p ?o OPTIONAL { ?o :name ?n }',
  '?s :p ?o OPTIONAL { ?o :p [] }',
  '{ ?s :p ?o } UNION { ?s :q ?o }',
  '{ ?s :p [] } UNION { ?s :q [] }',
  '?s :p ?o MINUS { ?s :q [] }',
  '?s :p ?o FILTER NOT EXISTS { ?o :p/:p [] }',
  'VALUES ?s { :a :b :zz } ?s :p ?o',
  '?s :p ?o BIND(STR(?o) AS ?t)',
  '?s :name ?n BIND(LCASE(?n) AS ?l)',
];

async function countOf(store: QuadStore, query: string): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query);
  assert.equal(result.kind, 'bindings');
  if (result.kind !== 'bindings') return [];
  return [...result.rows]
    .flat()
    .map((row) => row.map((t) => t?.value ?? '-').join(' '))
    .sort();
}

async function distinctRows(store: QuadStore, pattern: string): Promise<number> {
  const result = await runQuery(store, `${PREFIX} SELECT DISTINCT * { ${pattern} }`);
  return result.kind === 'bindings' ? [...result.rows].flat().length : -1;
}

describe('COUNT(DISTINCT *)', () => {
  it('counts the solutions of SELECT DISTINCT * for every kind of pattern', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + DATA);
      for (const pattern of PATTERNS) {
        const expected = await distinctRows(store, pattern);
        assert.deepEqual(await countOf(store, `SELECT (COUNT(DISTINCT *) AS ?n) { ${pattern} }`), [String(expected)], pattern);
      }
    } finally {
      await store.close();
    }
  });

  it('counts per group, with GROUP BY a variable or an unnamed expression', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + DATA);
      for (const pattern of PATTERNS.filter((p) => p.startsWith('?s '))) {
        // COUNT(*) over SELECT DISTINCT * is the same count by features that do not depend on this one.
        const distinct = `{ SELECT DISTINCT * { ${pattern} } }`;
        const expected = await countOf(store, `SELECT ?s (COUNT(*) AS ?n) ${distinct} GROUP BY ?s`);
        const byVariable = await countOf(store, `SELECT ?s (COUNT(DISTINCT *) AS ?n) { ${pattern} } GROUP BY ?s`);
        assert.deepEqual(byVariable, expected, `GROUP BY ?s: ${pattern}`);
        const byExpression = await countOf(store, `SELECT (COUNT(DISTINCT *) AS ?n) { ${pattern} } GROUP BY (STR(?s))`);
        const expectedByExpression = await countOf(store, `SELECT (COUNT(*) AS ?n) ${distinct} GROUP BY (STR(?s))`);
        assert.deepEqual(byExpression, expectedByExpression, `GROUP BY (STR(?s)): ${pattern}`);
      }
    } finally {
      await store.close();
    }
  });

  it('counts the same inside an update WHERE clause', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + DATA);
      await runUpdate(store, `${PREFIX} INSERT { :log :count ?n } WHERE { SELECT (COUNT(DISTINCT *) AS ?n) { ?s :p/:p ?o } }`);
      const expected = await distinctRows(store, '?s :p/:p ?o');
      assert.deepEqual(await countOf(store, 'SELECT ?n { :log :count ?n }'), [String(expected)]);
    } finally {
      await store.close();
    }
  });
});
