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
    await runUpdate(store, PREFIX + `INSERT DATA {
      :r1 rdf:reifies <<( :a :p 1 )>> .
      :r2 rdf:reifies <<( :b :p <<( :a :q "x" )>> )>> .
      :a :name "A" .
    }`);
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

  it('the reifier syntax << s p o ~ r >> matches the reifier\'s triple', async () => {
    assert.deepEqual(await select(store, 'SELECT ?s ?o ?r { << ?s :p ?o ~ ?r >> }'), [
      'r=<http://ex/r1> s=<http://ex/a> o="1"^^<http://www.w3.org/2001/XMLSchema#integer>'.replace(/r=(\S+) s=(\S+) o=(.*)/, 's=$2 o=$3 r=$1'),
      's=<http://ex/b> o=<<( <http://ex/a> <http://ex/q> "x" )>> r=<http://ex/r2>',
    ].sort());
  });
});
