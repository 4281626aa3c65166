/**
 * An update's WHERE clause means exactly what the same pattern means in a query, whatever it holds
 * inside GRAPH and whatever names its dataset (none, WITH, USING / USING NAMED, the protocol's
 * using-graph-uri / using-named-graph-uri). Each pattern is run both ways over the same store: as a
 * SELECT with the equivalent dataset, and as an INSERT whose template records every solution in a
 * graph of its own; the two multisets of solutions must be equal.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { runQuery, runUpdate } from '../query-engine.js';
import type { EngineQueryOptions, EngineUpdateOptions } from '../engine-api.js';

const PREFIX = 'PREFIX : <http://ex/> ';
const OUT = 'urn:recorded-solutions';
const DATA = 'INSERT DATA { :d :p 0 . GRAPH :g1 { :a :p 1 . :a :q :b } GRAPH :g2 { :c :p 3 } } ; CREATE GRAPH :g3';
const ALL_NAMED = 'FROM NAMED :g1 FROM NAMED :g2 FROM NAMED :g3';

/** WHERE patterns with GRAPH in every form that has no triple pattern binding its graph, and some that do. */
const PATTERNS = [
  'GRAPH ?g { }',
  'GRAPH ?g { FILTER(true) }',
  'GRAPH ?g { FILTER(false) }',
  'GRAPH ?g { BIND(1 AS ?x) }',
  'GRAPH ?g { VALUES ?x { 1 2 } }',
  'GRAPH ?g { OPTIONAL { ?s :p ?o } }',
  'GRAPH ?g { FILTER NOT EXISTS { ?s :p 3 } }',
  'GRAPH ?g { FILTER EXISTS { ?s :q ?o } }',
  'GRAPH ?g { MINUS { ?s :p 1 } }',
  'GRAPH ?g { { } UNION { ?s :p ?o } }',
  'GRAPH ?g { SELECT ?s { ?s :p ?o } }',
  'GRAPH ?g { GRAPH ?h { } }',
  'GRAPH ?g { ?s :p ?o }',
  'GRAPH ?g { ?s ?p ?o FILTER(?o != 1) }',
  'GRAPH :g1 { }',
  'GRAPH :g3 { }',
  'GRAPH :nothere { }',
  'GRAPH :nothere { FILTER(true) }',
  'GRAPH :nothere { BIND(1 AS ?x) }',
  'GRAPH :g2 { ?s ?p ?o }',
  '?s :p ?o GRAPH ?g { }',
  '?s :p ?o OPTIONAL { GRAPH ?g { ?s :q ?x } }',
  '{ GRAPH ?g { } } UNION { BIND(:none AS ?g) }',
  'BIND(:g1 AS ?g) GRAPH ?g { }',
  '?s ?p ?o',
  'FILTER NOT EXISTS { GRAPH ?g { :c :p 3 } }',
];

interface DatasetCase {
  name: string;
  /** Written between the template and WHERE (USING) or before DELETE/INSERT (WITH). */
  withClause?: string;
  usingClause?: string;
  update?: EngineUpdateOptions;
  /** The same dataset for a query. */
  fromClause?: string;
  query?: EngineQueryOptions;
}

const DATASETS: DatasetCase[] = [
  { name: 'the store' },
  { name: 'WITH', withClause: 'WITH :g1', fromClause: `FROM :g1 ${ALL_NAMED}` },
  { name: 'WITH an absent graph', withClause: 'WITH :nothere', fromClause: `FROM :nothere ${ALL_NAMED}` },
  { name: 'USING and USING NAMED', usingClause: 'USING :g1 USING NAMED :g2', fromClause: 'FROM :g1 FROM NAMED :g2' },
  { name: 'USING NAMED only', usingClause: 'USING NAMED :g1', fromClause: 'FROM NAMED :g1' },
  { name: 'WITH overridden by USING NAMED', withClause: 'WITH :g2', usingClause: 'USING NAMED :g1', fromClause: 'FROM NAMED :g1' },
  {
    name: 'using-named-graph-uri',
    update: { usingNamedGraphUris: ['http://ex/g2'] },
    query: { namedGraphUris: ['http://ex/g2'] },
  },
  {
    name: 'using-graph-uri and using-named-graph-uri',
    update: { usingGraphUris: ['http://ex/g2'], usingNamedGraphUris: ['http://ex/g1', 'http://ex/g3'] },
    query: { defaultGraphUris: ['http://ex/g2'], namedGraphUris: ['http://ex/g1', 'http://ex/g3'] },
  },
];

const VARIABLES = ['g', 'h', 's', 'p', 'o', 'x'];

function solutionKey(values: Record<string, string>): string {
  return VARIABLES.map((v) => `${v}=${values[v] ?? '-'}`).join(' ');
}

async function querySolutions(store: QuadStore, pattern: string, dataset: DatasetCase): Promise<string[]> {
  const text = `${PREFIX} SELECT * ${dataset.fromClause ?? ''} WHERE { ${pattern} }`;
  const result = await runQuery(store, text, dataset.query);
  assert.equal(result.kind, 'bindings');
  const keys: string[] = [];
  if (result.kind !== 'bindings') return keys;
  for (const batch of result.rows) {
    for (const row of batch) {
      const values: Record<string, string> = {};
      row.forEach((term, i) => {
        if (term) values[result.variables[i]] = term.value;
      });
      keys.push(solutionKey(values));
    }
  }
  return keys.sort();
}

/** Each solution becomes a fresh blank node in OUT with one triple per bound variable. */
async function updateSolutions(store: QuadStore, pattern: string, dataset: DatasetCase): Promise<string[]> {
  const record = VARIABLES.map((v) => `_:r <urn:var:${v}> ?${v} .`).join(' ');
  const text = `${PREFIX} ${dataset.withClause ?? ''} INSERT { GRAPH <${OUT}> { _:r <urn:solution> true . ${record} } } ${dataset.usingClause ?? ''} WHERE { ${pattern} }`;
  await runUpdate(store, text, dataset.update);
  const result = await runQuery(
    store,
    `SELECT ?r ?v ?value { GRAPH <${OUT}> { ?r <urn:solution> true OPTIONAL { ?r ?v ?value FILTER(?v != <urn:solution>) } } }`,
  );
  const solutions = new Map<string, Record<string, string>>();
  if (result.kind === 'bindings') {
    for (const batch of result.rows) {
      for (const [r, v, value] of batch) {
        const values = solutions.get(r!.value) ?? {};
        if (v && value) values[v.value.slice('urn:var:'.length)] = value.value;
        solutions.set(r!.value, values);
      }
    }
  }
  await runUpdate(store, `DROP SILENT GRAPH <${OUT}>`);
  return [...solutions.values()].map(solutionKey).sort();
}

describe("an update's WHERE clause has the query's semantics", () => {
  for (const dataset of DATASETS) {
    it(`for every form of GRAPH, over ${dataset.name}`, async () => {
      const store = openStore({ memory: true });
      try {
        await runUpdate(store, PREFIX + DATA);
        for (const pattern of PATTERNS) {
          const expected = await querySolutions(store, pattern, dataset);
          assert.deepEqual(await updateSolutions(store, pattern, dataset), expected, `WHERE { ${pattern} } over ${dataset.name}`);
        }
      } finally {
        await store.close();
      }
    });
  }

  it('inserts one triple per named graph for GRAPH ?g { }, and nothing for an absent graph', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + 'INSERT DATA { GRAPH :g1 { :a :p 1 } GRAPH :g2 { :c :p 3 } }');
      await runUpdate(store, PREFIX + 'INSERT { :log :graph ?g } WHERE { GRAPH ?g { } }');
      await runUpdate(store, PREFIX + 'INSERT { :log :absent :yes } WHERE { GRAPH :nothere { } }');
      const result = await runQuery(store, PREFIX + 'SELECT ?p ?o { :log ?p ?o } ORDER BY ?o');
      const rows = result.kind === 'bindings' ? [...result.rows].flat().map((row) => row.map((t) => t?.value).join(' ')) : [];
      assert.deepEqual(rows, ['http://ex/graph http://ex/g1', 'http://ex/graph http://ex/g2']);
    } finally {
      await store.close();
    }
  });

  it('deletes through GRAPH ?g with a FILTER only, as DELETE WHERE would', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + 'INSERT DATA { GRAPH :g1 { :a :p 1 } GRAPH :g2 { :a :p 1 } }');
      await runUpdate(store, PREFIX + 'DELETE { GRAPH ?g { :a :p 1 } } WHERE { GRAPH ?g { FILTER(?g = :g1) } }');
      await runUpdate(store, PREFIX + 'DELETE { GRAPH ?g { :a :p 1 } } WHERE { GRAPH ?g { } FILTER(?g = :g1) }');
      const result = await runQuery(store, PREFIX + 'SELECT ?g { GRAPH ?g { :a :p 1 } }');
      const graphs = result.kind === 'bindings' ? [...result.rows].flat().map((row) => row[0]?.value) : [];
      assert.deepEqual(graphs, ['http://ex/g2']);
    } finally {
      await store.close();
    }
  });
});
