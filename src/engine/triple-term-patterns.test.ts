import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import { runQuery, runUpdate } from './query-engine.js';
import { termToString } from '../rdf/terms.js';

const PREFIX = 'PREFIX : <http://ex/> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> ';

async function select(store: QuadStore, query: string): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query);
  const rows: string[] = [];
  if (result.kind !== 'bindings') return rows;
  for (const batch of result.rows) for (const row of batch) rows.push(row.map((t, i) => `${result.variables[i]}=${t ? termToString(t) : '-'}`).join(' '));
  return rows.sort();
}

describe('triple-term patterns with variables inside', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(
      store,
      PREFIX +
        `INSERT DATA {
      :r1 rdf:reifies <<( :a :p 1 )>> .
      :r2 rdf:reifies <<( :b :p <<( :a :q "x" )>> )>> .
      :a :name "A" .
      << << :s :in :o >> :q :z >> :from :doc .
      GRAPH :g { << :s :in :o >> :says :yes }
    }`,
    );
  });
  after(() => store.close());

  it('binds the variables of a triple term to the parts of the stored one', async () => {
    assert.deepEqual(await select(store, 'SELECT ?r ?s ?o { ?r rdf:reifies <<( ?s :p ?o )>> }'), [
      'r=<http://ex/r1> s=<http://ex/a> o="1"^^<http://www.w3.org/2001/XMLSchema#integer>',
      'r=<http://ex/r2> s=<http://ex/b> o=<<( <http://ex/a> <http://ex/q> "x" )>>',
    ]);
  });

  it('matches nested triple terms, constants inside, and variables shared with the rest of the pattern', async () => {
    assert.deepEqual(await select(store, 'SELECT ?r ?x { ?r rdf:reifies <<( :b :p <<( :a :q ?x )>> )>> }'), ['r=<http://ex/r2> x="x"']);
    assert.deepEqual(await select(store, 'SELECT ?r ?n { ?r rdf:reifies <<( ?s :p 1 )>> . ?s :name ?n }'), ['r=<http://ex/r1> n="A"']);
    assert.deepEqual(await select(store, 'SELECT ?r { ?r rdf:reifies <<( ?s :p ?s )>> }'), []);
    assert.deepEqual(await select(store, 'SELECT * { ?r rdf:reifies <<( :a :p 1 )>> }'), ['r=<http://ex/r1>']);
  });

  it("the reifier syntax << s p o ~ r >> matches the reifier's triple", async () => {
    assert.deepEqual(
      await select(store, 'SELECT ?s ?o ?r { << ?s :p ?o ~ ?r >> }'),
      [
        'r=<http://ex/r1> s=<http://ex/a> o="1"^^<http://www.w3.org/2001/XMLSchema#integer>'.replace(/r=(\S+) s=(\S+) o=(.*)/, 's=$2 o=$3 r=$1'),
        's=<http://ex/b> o=<<( <http://ex/a> <http://ex/q> "x" )>> r=<http://ex/r2>',
      ].sort(),
    );
  });
  it('matches nested reified triples: the inner reifier is a blank node inside the outer triple term', async () => {
    assert.deepEqual(await select(store, 'SELECT ?d { << << :s :in :o >> :q :z >> :from ?d }'), ['d=<http://ex/doc>']);
    assert.deepEqual(await select(store, 'SELECT ?s ?w { << << ?s :in :o >> :q ?w >> :from :doc }'), ['s=<http://ex/s> w=<http://ex/z>']);
    assert.equal((await select(store, 'SELECT ?x { << ?x :q :z >> :from :doc }')).length, 1);
    assert.deepEqual(await select(store, 'SELECT ?d { << << :s :in :other >> :q :z >> :from ?d }'), []);
  });

  it('treats a labelled blank node inside a triple term as a variable shared with the rest of the pattern', async () => {
    assert.deepEqual(await select(store, 'SELECT ?o { _:r rdf:reifies <<( :a :p ?o )>> . _:r rdf:reifies ?t }'), [
      'o="1"^^<http://www.w3.org/2001/XMLSchema#integer>',
    ]);
    assert.deepEqual(await select(store, 'SELECT ?r { ?r rdf:reifies <<( :b :p <<( _:x :q "x" )>> )>> }'), ['r=<http://ex/r2>']);
  });

  it('matches reified triples inside GRAPH', async () => {
    assert.deepEqual(await select(store, 'SELECT ?g ?v { GRAPH ?g { << :s :in ?o >> :says ?v } }'), ['g=<http://ex/g> v=<http://ex/yes>']);
  });

  it('builds a triple term with variables in an expression from the solution, as TRIPLE() does', async () => {
    assert.deepEqual(await select(store, 'SELECT ?t { :a :name ?n BIND(<<( :a :name ?n )>> AS ?t) }'), ['t=<<( <http://ex/a> <http://ex/name> "A" )>>']);
    assert.deepEqual(await select(store, 'SELECT ?t { :a :name ?n BIND(<<( :a :p <<( :a :name ?n )>> )>> AS ?t) }'), [
      't=<<( <http://ex/a> <http://ex/p> <<( <http://ex/a> <http://ex/name> "A" )>> )>>',
    ]);
    assert.deepEqual(await select(store, 'SELECT ?t { BIND(<<( :a :name ?unbound )>> AS ?t) }'), ['t=-']);
  });
});
