/**
 * A union default graph (EngineQueryOptions.unionDefaultGraph): queries that name no graphs read
 * the union of every graph, each triple once; GRAPH, FROM and protocol datasets mean what they
 * always mean; updates read the union but write without GRAPH to the store's own default graph.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import type { EngineQueryOptions } from './engine-api.js';
import { runQuery, runUpdate } from './query-engine.js';

const PREFIX = 'PREFIX : <http://ex/> ';
const UNION: EngineQueryOptions = { unionDefaultGraph: true };

/** The answer as sorted lines: rows as `var=value`, quads as `s p o`, or the boolean. */
async function answer(store: QuadStore, query: string, options: EngineQueryOptions = {}): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query, options);
  const lines: string[] = [];
  if (result.kind === 'boolean') return [String(result.value)];
  if (result.kind === 'quads') {
    for (const batch of result.quads) for (const q of batch) lines.push(`${q.subject.value} ${q.predicate.value} ${q.object.value}`);
  } else {
    for (const batch of result.rows) for (const row of batch) lines.push(row.map((t, i) => `${result.variables[i]}=${t ? t.value : '-'}`).join(' '));
  }
  return lines.sort();
}

describe('a union default graph', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(
      store,
      PREFIX +
        `INSERT DATA {
          :a :p 1 . :shared :p 9 .
          GRAPH :g1 { :b :p 2 . :shared :p 9 . :a :knows :b }
          GRAPH :g2 { :c :p 3 . :shared :p 9 . :b :knows :c }
        }`,
    );
  });
  after(() => store.close());

  it('is the default graph of a query that names no graphs, each triple once', async () => {
    const query = 'SELECT ?s ?o { ?s :p ?o }';
    assert.deepEqual(await answer(store, query), ['s=http://ex/a o=1', 's=http://ex/shared o=9']);
    assert.deepEqual(await answer(store, query, UNION), ['s=http://ex/a o=1', 's=http://ex/b o=2', 's=http://ex/c o=3', 's=http://ex/shared o=9']);
    assert.deepEqual(await answer(store, 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }', UNION), ['n=6']);
    assert.deepEqual(await answer(store, 'ASK { :c :p 3 }'), ['false']);
    assert.deepEqual(await answer(store, 'ASK { :c :p 3 }', UNION), ['true']);
  });

  it('joins and walks paths across graphs, as one merged graph', async () => {
    assert.deepEqual(await answer(store, 'SELECT ?x ?v { ?x :knows ?y . ?y :p ?v }', UNION), ['x=http://ex/a v=2', 'x=http://ex/b v=3']);
    assert.deepEqual(await answer(store, 'SELECT ?y { :a :knows+ ?y }', UNION), ['y=http://ex/b', 'y=http://ex/c']);
    assert.deepEqual(await answer(store, 'SELECT ?s { ?s :p ?o MINUS { ?s :knows ?x } }', UNION), ['s=http://ex/c', 's=http://ex/shared']);
    assert.deepEqual(await answer(store, 'SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?x :knows ?s } }', UNION), ['s=http://ex/a', 's=http://ex/shared']);
  });

  it('leaves GRAPH, FROM, FROM NAMED and a protocol dataset as they are', async () => {
    const inGraphs = 'SELECT ?g ?s { GRAPH ?g { ?s :p ?o } }';
    assert.deepEqual(await answer(store, inGraphs, UNION), await answer(store, inGraphs));
    assert.deepEqual(await answer(store, 'SELECT ?s FROM :g1 { ?s :p ?o }', UNION), ['s=http://ex/b', 's=http://ex/shared']);
    assert.deepEqual(await answer(store, 'SELECT ?s FROM NAMED :g1 { ?s :p ?o }', UNION), []);
    assert.deepEqual(await answer(store, 'SELECT ?s { ?s :p ?o }', { ...UNION, defaultGraphUris: ['http://ex/g2'] }), ['s=http://ex/c', 's=http://ex/shared']);
  });

  it('describes and constructs from the union', async () => {
    assert.deepEqual(await answer(store, 'DESCRIBE :shared', UNION), ['http://ex/shared http://ex/p 9']);
    assert.deepEqual(await answer(store, 'DESCRIBE :b', UNION), ['http://ex/b http://ex/knows http://ex/c', 'http://ex/b http://ex/p 2']);
    assert.deepEqual(await answer(store, 'CONSTRUCT { ?s :value ?o } WHERE { ?s :p ?o FILTER(?o > 2) }', UNION), [
      'http://ex/c http://ex/value 3',
      'http://ex/shared http://ex/value 9',
    ]);
  });

  it('lets an update read the union, while its writes without GRAPH go to the real default graph', async () => {
    const scratch = openStore({ memory: true });
    try {
      await runUpdate(scratch, PREFIX + 'INSERT DATA { GRAPH :g1 { :b :p 2 } GRAPH :g2 { :c :p 3 } }');
      await runUpdate(scratch, PREFIX + 'INSERT { ?s :seen true } WHERE { ?s :p ?o }', UNION);
      assert.deepEqual(await answer(scratch, 'SELECT ?s { ?s :seen true }'), ['s=http://ex/b', 's=http://ex/c'], 'written to the default graph');
      assert.deepEqual(await answer(scratch, 'SELECT ?g { GRAPH ?g { ?s :seen ?x } }'), [], 'no named graph written');
      // DELETE WHERE finds the triples in the union, and removes them from the default graph, where they are not.
      await runUpdate(scratch, PREFIX + 'DELETE WHERE { ?s :p 2 }', UNION);
      assert.deepEqual(await answer(scratch, 'ASK { GRAPH :g1 { :b :p 2 } }'), ['true']);
      // WITH and USING choose the graphs as always.
      await runUpdate(scratch, PREFIX + 'WITH :g1 DELETE { ?s :p ?o } WHERE { ?s :p ?o }', UNION);
      assert.deepEqual(await answer(scratch, 'SELECT ?s { GRAPH ?g { ?s :p ?o } }'), ['s=http://ex/c']);
      await runUpdate(scratch, PREFIX + 'INSERT { ?s :again true } USING :g1 WHERE { ?s :seen true }', UNION);
      assert.deepEqual(await answer(scratch, 'SELECT ?s { ?s :again true }'), []);
    } finally {
      await scratch.close();
    }
  });
});

/**
 * Every shape of query gives over the union exactly what it gives over one default graph holding
 * the same triples: a store whose triples are spread over the default graph and named graphs
 * (many in several graphs at once), against a store holding each of them once in its default graph.
 */
describe('the union of graphs answers as one merged graph would', () => {
  let spread: QuadStore;
  let merged: QuadStore;

  before(async () => {
    spread = openStore({ memory: true });
    merged = openStore({ memory: true });
    const graphsOf = (i: number): string[] => [['DEFAULT'], ['g1'], ['g2'], ['DEFAULT', 'g1'], ['g1', 'g2'], ['DEFAULT', 'g1', 'g2']][i % 6];
    const triples: string[] = [];
    for (let i = 0; i < 1500; i++) {
      triples.push(
        `:s${i} :value ${i % 97} ; :label "L${i % 13}" ; :date "2026-01-${String((i % 28) + 1).padStart(2, '0')}"^^<http://www.w3.org/2001/XMLSchema#date> .`,
      );
      if (i > 0) triples.push(`:s${i} :next :s${i - 1} .`);
      if (i % 10 === 0) triples.push(`:s${i} a :Tenth .`);
    }
    const byGraph = new Map<string, string[]>();
    triples.forEach((t, i) => {
      for (const g of graphsOf(i)) byGraph.set(g, [...(byGraph.get(g) ?? []), t]);
    });
    const body = [...byGraph].map(([g, ts]) => (g === 'DEFAULT' ? ts.join('\n') : `GRAPH :${g} { ${ts.join('\n')} }`)).join('\n');
    await runUpdate(spread, PREFIX + `INSERT DATA { ${body} }`);
    await runUpdate(merged, PREFIX + `INSERT DATA { ${triples.join('\n')} }`);
  });
  after(async () => {
    await spread.close();
    await merged.close();
  });

  it("holds triples the store's own default graph does not, and some of them in several graphs", async () => {
    const count = 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }';
    const inGraphs = 'SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }';
    const [own, union, merged1, all] = [
      await answer(spread, count),
      await answer(spread, count, UNION),
      await answer(merged, count),
      await answer(spread, inGraphs),
    ];
    assert.deepEqual(union, merged1);
    assert.notDeepEqual(own, union);
    assert.ok(Number(own[0].slice(2)) + Number(all[0].slice(2)) > Number(union[0].slice(2)), 'triples repeat across graphs');
  });

  const shapes = [
    'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }',
    'SELECT ?s ?v { ?s a :Tenth ; :value ?v }',
    'SELECT ?s { ?s :value ?v FILTER(?v >= 90) }',
    'SELECT ?s { ?s :date ?d FILTER(?d > "2026-01-26"^^<http://www.w3.org/2001/XMLSchema#date>) }',
    'SELECT ?s { ?s :label ?l FILTER(?l < "L10") ?s :value 5 }',
    'SELECT ?a ?c { ?a :next ?b . ?b :next ?c . ?c a :Tenth }',
    'SELECT ?s ?t { ?s :value 3 OPTIONAL { ?s a ?t } }',
    'SELECT ?s { ?s :value 7 MINUS { ?s a :Tenth } }',
    'SELECT ?s { ?s :value 7 FILTER NOT EXISTS { ?s :next ?x . ?x a :Tenth } }',
    'SELECT ?l (COUNT(?s) AS ?n) (SUM(?v) AS ?sum) { ?s :label ?l ; :value ?v } GROUP BY ?l',
    'SELECT DISTINCT ?v { ?s :value ?v }',
    'SELECT ?s ?v { ?s :value ?v } ORDER BY DESC(?v) ?s LIMIT 7',
    'SELECT ?x { :s25 :next* ?x }',
    'SELECT ?x { ?x :next+ :s1490 }',
    'SELECT ?s ?v { VALUES ?s { :s1 :s2 :s999 } ?s :value ?v }',
    'SELECT ?s { { ?s :value 1 } UNION { ?s :value 2 } }',
    'SELECT ?s ?m { { SELECT ?s (MAX(?v) AS ?m) { ?s :next ?x . ?x :value ?v } GROUP BY ?s } FILTER(?m = 96) }',
    'ASK { :s1499 :next :s1498 }',
    'DESCRIBE :s42',
    'CONSTRUCT { ?s :twice ?v } WHERE { ?s :value ?v FILTER(?v = 11) }',
  ];
  for (const query of shapes) {
    it(query, async () => {
      const expected = await answer(merged, query);
      assert.ok(expected.length > 0 && expected[0] !== 'false', 'the shape has an answer to compare');
      assert.deepEqual(await answer(spread, query, UNION), expected);
      assert.deepEqual(await answer(spread, query, { ...UNION, preparedPlans: false }), expected, 'planned afresh');
    });
  }
});
