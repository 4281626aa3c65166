/**
 * Each of the optimizer's shortcuts against the plain path: a class of queries run with the
 * shortcut on (the default) and turned off alone (EngineQueryOptions.fastPaths), the same answers
 * both ways; where the plan shows the shortcut, that it is taken when on and not when off.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import type { EngineQueryOptions } from './engine-api.js';
import { explainQuery, type PlanNode } from './explain.js';
import { runQuery, runUpdate } from './query-engine.js';
import type { FastPathName } from './fast-paths.js';

const PREFIX = 'PREFIX : <http://ex/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> ';

/** Terms whose `=` and sameTerm differ, and terms of every kind: each subject gets a few. */
const VALUES = [
  ':red',
  ':blue',
  '_:b1',
  '"s"',
  '"s"@en',
  '"S"@EN',
  '1',
  '"01"^^xsd:integer',
  '1.0',
  '2.5e0',
  '-3',
  '"2008-01-01T12:00:00Z"^^xsd:dateTime',
  '"2008-01-01T13:00:00+01:00"^^xsd:dateTime',
  '"NaN"^^xsd:double',
  'true',
  '"x"^^:myType',
];

function data(): string {
  const triples: string[] = [];
  for (let i = 0; i < 240; i++) {
    const s = `:s${i}`;
    triples.push(`${s} :p ${i % 50} ; :q :o${i % 7} ; :f ${VALUES[i % VALUES.length]} , ${VALUES[(i * 5) % VALUES.length]} .`);
    if (i % 3 === 0) triples.push(`${s} :g ${VALUES[(i * 7) % VALUES.length]} ; :v ${((i * 37) % 101) - 20} .`);
    if (i % 4 === 0) triples.push(`${s} :v ${VALUES[i % VALUES.length]} .`);
  }
  for (let o = 0; o < 7; o++) triples.push(`:o${o} :name "o${o}" ; :rank ${o * 3} .`);
  return `INSERT DATA { ${triples.join('\n')} }`;
}

const QUERIES: Record<FastPathName, string[]> = {
  hashJoins: [
    'SELECT * { ?s :p ?n . ?s :q ?o }',
    'SELECT * { ?s :q ?o . ?o :name ?l }',
    'SELECT ?s ?r { ?s :p ?n . ?s :q ?o . ?o :rank ?r FILTER(?r > 5) }',
    'SELECT * { ?s :q ?o OPTIONAL { ?o :rank ?r } }',
    'SELECT * { ?s :p ?n . ?s :g ?x }',
    'SELECT * { ?s :f ?x . ?s :g ?x }',
  ],
  objectRanges: [
    'SELECT ?s ?v { ?s :p ?n . ?s :v ?v FILTER(?v > 3 && ?v < 40) }',
    'SELECT ?s ?v { ?s :p ?n . ?s :v ?v FILTER(?v >= 1 && ?v <= 1) }',
    'SELECT ?s ?v { ?s :p ?n . ?s :v ?v FILTER(?v < 0) }',
    'SELECT ?s ?v { ?s :v ?v FILTER(?v >= -5 && ?v < 2.5) }',
    'SELECT ?s ?v { :o3 :rank ?r . ?s :p ?n . ?s :v ?v FILTER(?v > ?r - 4 && ?v < ?r + 4) }',
    'SELECT ?s ?v { ?s :p ?n . ?s :v ?v FILTER(?v < "NaN"^^xsd:double || ?v > 70) }',
  ],
  equalityBinds: [
    'SELECT ?t (COUNT(*) AS ?n) { :s0 :f ?a . ?t :f ?b FILTER(?a = ?b) } GROUP BY ?t',
    'SELECT ?t ?a ?b { :s1 :f ?a . ?t :f ?b FILTER(sameTerm(?a, ?b)) }',
    'SELECT ?t ?a { :s2 :f ?a . ?t :g ?b FILTER(?b = ?a) }',
    'SELECT * { :s3 :f ?a . ?t :f ?b . ?u :g ?c FILTER(?a = ?b && ?b = ?c) }',
    'SELECT * { :s5 :f ?a . ?t :f ?b FILTER(?a = ?b) FILTER(isLiteral(?a)) }',
    'SELECT * { :s6 :f ?a OPTIONAL { ?t :g ?b FILTER(?a = ?b) } }',
  ],
  idComparisons: [
    'SELECT * { ?s :f ?x FILTER(?x = :red) }',
    'SELECT * { ?s :f ?x FILTER(?x != :red) }',
    'SELECT * { ?s :f ?x FILTER(sameTerm(?x, :blue) || ?x = "s") }',
    'SELECT * { ?s :q ?o FILTER(:o3 = ?o) }',
    'SELECT * { ?s :q ?o FILTER(?o = :nowhere) }',
    'SELECT * { ?s :q ?o FILTER(?unbound = :o1 || ?o != :o2) }',
    'SELECT * { ?s :q ?o OPTIONAL { ?s :g ?g } FILTER(?g != :red) }',
  ],
  idCounts: [
    'SELECT ?o (COUNT(?x) AS ?n) { ?s :q ?o OPTIONAL { ?s :g ?x } } GROUP BY ?o',
    'SELECT ?o (COUNT(DISTINCT ?x) AS ?n) { ?s :q ?o OPTIONAL { ?s :f ?x } } GROUP BY ?o',
    'SELECT (COUNT(?x) AS ?n) (COUNT(DISTINCT ?x) AS ?d) { ?s :f ?x }',
    'SELECT (COUNT(DISTINCT ?none) AS ?n) { ?s :q ?o OPTIONAL { ?s :none ?none } }',
    'SELECT ?x (COUNT(?s) AS ?n) { ?s :v ?x } GROUP BY ?x HAVING (COUNT(?s) > 1)',
  ],
  valueMemos: [
    // The same ?o in neighbouring rows (every subject of one :q object), unbound values, errors.
    'SELECT ?s ?r { ?s :q ?o . ?o :rank ?k BIND(?k * 2 + 1 AS ?r) }',
    'SELECT ?o (AVG(xsd:double(STR(?k))) AS ?a) { ?s :q ?o . ?o :rank ?k } GROUP BY ?o',
    'SELECT ?s ?l { ?s :f ?x BIND(STRLEN(STR(?x)) AS ?l) }',
    'SELECT ?s { ?s :q ?o OPTIONAL { ?s :g ?g } FILTER(!BOUND(?g) || isIRI(?g)) }',
    'SELECT ?s ?d { ?s :v ?v BIND(xsd:decimal(?v) AS ?d) }',
    'SELECT ?s ?y { ?s :p ?n OPTIONAL { ?s :v ?v } BIND(-?v AS ?y) }',
    // Values of every kind repeating far apart, kept per term: comparisons that fail as type errors.
    'SELECT ?s { ?s :f ?x FILTER(?x > 1) }',
    'SELECT ?s ?l { ?s :f ?x BIND(LANG(?x) AS ?l) }',
    'SELECT ?x (COUNT(*) AS ?n) { ?s :f ?x FILTER(?x >= "2008-01-01T12:30:00Z"^^xsd:dateTime) } GROUP BY ?x',
  ],
  firstMatchExists: [
    'SELECT ?s { ?s :q ?o FILTER EXISTS { ?s :g ?x } }',
    'SELECT ?s { ?s :q ?o FILTER NOT EXISTS { ?s :v ?x } }',
    'SELECT ?s { ?s :q ?o FILTER EXISTS { ?o :rank 9 } }',
    'SELECT ?s { ?s :q ?o FILTER NOT EXISTS { ?t :q ?o . ?t :g :red } }',
    'SELECT ?s { ?s :f ?x FILTER EXISTS { ?s :g ?x } }',
    'SELECT ?s { ?s :q ?o FILTER EXISTS { ?s :nowhere ?x } }',
  ],
  orderedProbes: [
    // Probes in subject order: every key present, keys missing between, each key repeated.
    'SELECT * { ?s :p ?n . ?s :q ?o }',
    'SELECT * { ?s :p ?n . ?s :g ?x }',
    'SELECT * { ?s :f ?x . ?s :v ?v }',
    // Out of order: objects in subject order, and subjects in object order.
    'SELECT * { ?s :q ?o . ?o :name ?l }',
    'SELECT * { ?s :p 3 . ?t :v ?s }',
    'SELECT ?s ?n ?r { ?s :p ?n . ?s :q ?o . ?o :rank ?r . ?s :f ?x }',
  ],
  cachedScans: [
    // A hash join keyed by the object caches the table; then the open scans of the same predicate.
    'SELECT * { ?t :q ?o . ?s :q ?o }',
    'SELECT * { ?s :q ?o }',
    'SELECT ?o (COUNT(?s) AS ?n) { ?s :q ?o } GROUP BY ?o',
    'SELECT * { ?s :q ?o . ?o :name ?l }',
    'SELECT * { ?s :q ?o MINUS { ?o :rank 9 } }',
    'SELECT * { ?s :q ?s }',
    'SELECT * { GRAPH ?g { ?s :q ?o } }',
  ],
  countedRows: [
    // Counts over a chain whose middle variables nothing after reads: merged, then counted.
    'SELECT ?n (COUNT(*) AS ?c) { ?s :q ?o . ?t :q ?o . ?t :f ?x . ?o :name ?n } GROUP BY ?n',
    'SELECT (COUNT(?t) AS ?c) (COUNT(DISTINCT ?x) AS ?d) (MIN(?x) AS ?lo) (MAX(?x) AS ?hi) { ?s :q ?o . ?t :q ?o . ?t :f ?x . ?o :name ?n }',
    'SELECT ?n (COUNT(*) AS ?c) (SUM(DISTINCT ?r) AS ?ranks) { ?s :q ?o . ?t :q ?o ; :p ?p . ?o :name ?n ; :rank ?r FILTER(?p > 10) } GROUP BY ?n',
    'SELECT ?n ?x (COUNT(?s) AS ?c) { ?s :q ?o . ?t :q ?o . ?t :f ?x . ?o :name ?n } GROUP BY ?n ?x',
    // Aggregates that need every solution: left alone.
    'SELECT ?n (SUM(?p) AS ?sum) (AVG(?p) AS ?avg) { ?s :q ?o . ?t :q ?o ; :p ?p . ?o :name ?n } GROUP BY ?n',
    'SELECT (COUNT(DISTINCT *) AS ?c) { ?s :q ?o . ?t :q ?o . ?t :f ?x . ?o :name ?n }',
    'SELECT ?n (GROUP_CONCAT(?x) AS ?all) { ?s :q ?o . ?t :q ?o . ?t :f ?x . ?o :name ?n } GROUP BY ?n',
  ],
};

/** How the plan shows a shortcut taken, for those explain shows. */
const SHOWN: Partial<Record<FastPathName, (line: string) => boolean>> = {
  hashJoins: (line) => line.endsWith('(hash join)'),
  objectRanges: (line) => line.endsWith('(object range)'),
  equalityBinds: (line) => line.startsWith('EqualityBind'),
  cachedScans: (line) => line.endsWith('(cached table)'),
  countedRows: (line) => line.startsWith('CountedRows'),
};

function operators(node: PlanNode): string[] {
  return [`${node.operator} ${node.details ?? ''}`.trim(), ...node.children.flatMap(operators)];
}

describe('each fast path gives the answers of the plain path', () => {
  let store: QuadStore;
  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + data());
  });
  after(() => store.close());

  async function answers(query: string, options: EngineQueryOptions): Promise<string[]> {
    const result = await runQuery(store, PREFIX + query, options);
    assert.equal(result.kind, 'bindings');
    const out: string[] = [];
    if (result.kind === 'bindings')
      for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => (t ? `${t.termType}:${t.value}` : '-')).join(' '));
    return out.sort();
  }

  async function taken(query: string, options: EngineQueryOptions, shown: (line: string) => boolean): Promise<boolean> {
    return operators((await explainQuery(store, PREFIX + query, options)).plan).some(shown);
  }

  for (const [name, queries] of Object.entries(QUERIES) as [FastPathName, string[]][]) {
    const off: EngineQueryOptions = { fastPaths: { [name]: false } };
    describe(name, () => {
      for (const query of queries) {
        it(query, async () => {
          const expected = await answers(query, off);
          // Twice on: the second query of a template may run on a prepared plan.
          assert.deepEqual(await answers(query, {}), expected);
          assert.deepEqual(await answers(query, {}), expected);
          assert.deepEqual(await answers(query, { optimize: false }), expected);
        });
      }
      const shown = SHOWN[name];
      if (shown)
        it('is taken when on, and not when off', async () => {
          assert.ok((await Promise.all(queries.map((query) => taken(query, {}, shown)))).some(Boolean), `no query of ${name} takes it`);
          for (const query of queries) assert.equal(await taken(query, off, shown), false, query);
        });
    });
  }
});
