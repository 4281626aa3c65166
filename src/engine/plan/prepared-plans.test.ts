import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { namedNode, termKey, type Term } from '../../rdf/terms.js';
import { runQuery, runUpdate } from '../query-engine.js';
import type { EngineQueryOptions, EngineQueryResult } from '../engine-api.js';
import { parseAsTemplate } from '../../sparql/parse.js';
import { placeholderTerms, templatePlansOf } from './prepared-plans.js';

const PREFIX = 'PREFIX : <http://ex/> ';

/** Every row (or quad) of an answer, in the order the engine gives them. */
async function answer(store: QuadStore, query: string, options: EngineQueryOptions = {}): Promise<string[]> {
  return lines(await runQuery(store, PREFIX + query, options));
}

function lines(result: EngineQueryResult): string[] {
  const out: string[] = [];
  if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => (t ? termKey(t) : '-')).join(' '));
  else if (result.kind === 'quads')
    for (const batch of result.quads) for (const q of batch) out.push([q.subject, q.predicate, q.object].map(termKey).join(' '));
  else out.push(String(result.value));
  return out;
}

/** The answer through the template's kept plans, checked against planning the query afresh. */
async function sameAsFresh(store: QuadStore, query: string): Promise<string[]> {
  const prepared = await answer(store, query);
  assert.deepEqual(prepared, await answer(store, query, { preparedPlans: false }), query);
  return prepared;
}

describe('prepared plans', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    // :Big has 40 members, :Small 2; :common is a feature of 30 items, :rare of 3: which pattern
    // goes first depends on the constants.
    const triples: string[] = [];
    for (let i = 0; i < 40; i++) {
      triples.push(`:i${i} a :Big ; :label "item ${i}" ; :price ${i % 7} .`);
      if (i < 30) triples.push(`:i${i} :feature :common .`);
      if (i % 13 === 0) triples.push(`:i${i} :feature :rare .`);
    }
    triples.push(':s1 a :Small ; :label "small 1" ; :feature :common ; :price 3 .', ':s2 a :Small ; :label "small 2" ; :feature :rare ; :price 9 .');
    await runUpdate(store, PREFIX + `INSERT DATA { ${triples.join('\n')} }`);
  });
  after(() => store.close());

  const byTypeAndFeature = (type: string, feature: string, price: number) =>
    `SELECT ?x ?l ?p { ?x a <http://ex/${type}> . ?x :feature <http://ex/${feature}> . ?x :label ?l . ?x :price ?p FILTER(?p > ${price}) }`;

  it('gives each query of a template the plan planning would make for it, join order included', async () => {
    // No ORDER BY: the rows come in the join order's order, so a wrong order shows.
    for (const [type, feature, price] of [
      ['Big', 'common', 2],
      ['Small', 'rare', 0],
      ['Big', 'rare', 1],
      ['Small', 'common', 5],
      ['Big', 'common', 4],
      ['Nothing', 'common', 1],
    ] as const) {
      await sameAsFresh(store, byTypeAndFeature(type, feature, price));
    }
    const template = parseAsTemplate(PREFIX + byTypeAndFeature('Big', 'common', 2))!.template;
    // :Big's members are found through the feature first, :Small's through the type.
    assert.ok(templatePlansOf(template)!.size >= 2, 'plans with different join orders');
    assert.equal((await answer(store, byTypeAndFeature('Small', 'rare', 0))).length, 1);
  });

  it('does not share a plan that a query still reads', async () => {
    const first = await runQuery(store, PREFIX + byTypeAndFeature('Big', 'common', 0));
    assert.equal(first.kind, 'bindings');
    const rows = first.kind === 'bindings' ? first.rows[Symbol.iterator]() : undefined;
    const firstBatch = rows!.next();
    // The same template with other constants, while the first query has not finished.
    await sameAsFresh(store, byTypeAndFeature('Big', 'common', 5));
    const seen = [firstBatch.value!, ...[...{ [Symbol.iterator]: () => rows! }]].flat();
    assert.deepEqual(
      seen.map((row) => row.map((t: Term | undefined) => (t ? termKey(t) : '-')).join(' ')),
      await answer(store, byTypeAndFeature('Big', 'common', 0), { preparedPlans: false }),
    );
  });

  it('follows the store: a constant it did not hold, then does', async () => {
    const query = 'SELECT ?x { ?x :feature <http://ex/brandNew> }';
    assert.deepEqual(await sameAsFresh(store, query), []);
    await runUpdate(store, PREFIX + 'INSERT DATA { :i1 :feature :brandNew }');
    assert.deepEqual(await sameAsFresh(store, query), [termKey(namedNode('http://ex/i1'))]);
    assert.equal((await sameAsFresh(store, 'SELECT ?x { ?x :feature <http://ex/rare> }')).length, 5);
  });

  it('takes literal constants in patterns and filters, stored or not', async () => {
    for (const label of ['item 3', 'none such', 'small 2']) {
      await sameAsFresh(store, `SELECT ?x ?p { ?x :label "${label}" ; :price ?p FILTER(?p != 4) }`);
    }
    await sameAsFresh(store, 'SELECT ?x { ?x :label ?l FILTER(STRSTARTS(?l, "small")) }');
    await sameAsFresh(store, 'SELECT ?x { ?x :label ?l FILTER(STRSTARTS(?l, "item 1")) }');
    await sameAsFresh(store, 'SELECT ?x { ?x a ?t FILTER(?t = <http://ex/Small>) }');
    await sameAsFresh(store, 'SELECT ?x { ?x a ?t FILTER(?t != <http://ex/Small>) }');
  });

  it('instantiates CONSTRUCT templates, DESCRIBE resources and OPTIONAL parts per query', async () => {
    for (const item of ['i1', 's2', 'i39']) {
      await sameAsFresh(store, `CONSTRUCT { <http://ex/${item}> :copy ?l } WHERE { <http://ex/${item}> :label ?l }`);
      await sameAsFresh(store, `DESCRIBE <http://ex/${item}>`);
      await sameAsFresh(store, `SELECT ?l ?f { <http://ex/${item}> :label ?l OPTIONAL { <http://ex/${item}> :feature ?f } }`);
      await sameAsFresh(store, `ASK { <http://ex/${item}> :feature <http://ex/rare> }`);
    }
  });

  it('plans per query where a placeholder sits out of a plan’s reach', async () => {
    const unreachable = [
      'SELECT ?x { ?x :price ?p FILTER(<http://www.w3.org/2001/XMLSchema#string>(?p) = "3") }',
      'SELECT ?x { VALUES ?t { <http://ex/Small> } ?x a ?t }',
      'SELECT ?x { GRAPH <http://ex/g> { ?x a ?t } }',
      'SELECT ?x { ?x (:feature|:nothing) <http://ex/rare> }',
    ];
    for (const query of unreachable) {
      const template = parseAsTemplate(PREFIX + query)!.template;
      assert.equal(placeholderTerms(template.algebra), undefined, query);
      await sameAsFresh(store, query);
    }
  });
});
