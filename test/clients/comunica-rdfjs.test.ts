/**
 * Comunica querying a Quiver store in process, through the RDF/JS `Source` interface (`match`),
 * with no HTTP at all: the library's store is a source like any RDF/JS store, named graphs included.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QueryEngine } from '@comunica/query-sparql';
import { openQuiver, type QuiverStore } from '../../src/index.js';

const EX = 'http://example.org/';
let store: QuiverStore;

before(async () => {
  store = await openQuiver({ memory: true, workers: 1 });
  await store.update(`PREFIX : <${EX}> INSERT DATA {
    :alice :name "Alice" ; :knows :bob . :bob :name "Bob" .
    GRAPH :g { :carol :name "Carol" ; :knows :alice }
  }`);
});
after(() => store.close());

describe('Comunica over a Quiver store as an RDF/JS source', () => {
  it('answers SELECT with a join, ASK and CONSTRUCT over the default graph alone', async () => {
    const engine = new QueryEngine();
    const context = { sources: [store] };
    const bindings = await (await engine.queryBindings(`SELECT ?who ?name WHERE { ?who <${EX}knows> ?x . ?x <${EX}name> ?name }`, context)).toArray();
    assert.deepEqual(bindings.map((b) => `${b.get('who')!.value} ${b.get('name')!.value}`).sort(), [`${EX}alice Bob`]);
    assert.equal(await engine.queryBoolean(`ASK { <${EX}alice> <${EX}knows> <${EX}bob> }`, context), true);
    const quads = await (await engine.queryQuads(`CONSTRUCT { ?x <${EX}knownBy> ?who } WHERE { ?who <${EX}knows> ?x }`, context)).toArray();
    assert.deepEqual(
      quads.map((q) => q.subject.value),
      [`${EX}bob`],
    );
  });

  it('sees the named graphs through GRAPH', async () => {
    const engine = new QueryEngine();
    const bindings = await (await engine.queryBindings(`SELECT ?g ?name WHERE { GRAPH ?g { ?who <${EX}name> ?name } }`, { sources: [store] })).toArray();
    assert.deepEqual(
      bindings.map((b) => `${b.get('g')!.value} ${b.get('name')!.value}`),
      [`${EX}g Carol`],
    );
  });
});
