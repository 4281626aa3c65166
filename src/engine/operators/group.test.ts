/**
 * Two techniques of Group: a key that its input always binds is always bound in its output, so
 * sub-selects joined on their group keys are joined by hash, not as a cross product; and COUNT of a
 * variable counts IDs, decoding no term. Both give the plain path's answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import type { PlanNode } from '../explain.js';
import { runQuery, runUpdate } from '../query-engine.js';
import { explainQuery } from '../explain.js';

const PREFIX = 'PREFIX : <http://ex/> ';

async function answers(store: QuadStore, query: string, optimize = true): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query, { optimize });
  assert.equal(result.kind, 'bindings');
  const out: string[] = [];
  if (result.kind === 'bindings')
    for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => (t ? `${t.termType}:${t.value}` : '-')).join(' '));
  return out.sort();
}

function operators(node: PlanNode): string[] {
  return [`${node.operator} ${node.details ?? ''}`, ...(node.children ?? []).flatMap(operators)];
}

const JOINED = `SELECT ?p ?now ?before {
  { SELECT ?p (COUNT(?r) AS ?now) { ?r :about ?p ; :month 6 } GROUP BY ?p }
  { SELECT ?p (COUNT(DISTINCT ?r) AS ?before) { ?r :about ?p ; :month 5 } GROUP BY ?p }
}`;

describe('Group: keys bound for joins, counts on IDs', () => {
  let store: QuadStore;
  before(async () => {
    store = openStore({ memory: true });
    const triples: string[] = [];
    for (let r = 0; r < 300; r++) triples.push(`:r${r} :about :p${r % 17} ; :month ${5 + (r % 2)} ; :score ${r % 5}${r % 7 === 0 ? ', 1.0, "1"' : ''} .`);
    await runUpdate(store, `${PREFIX} INSERT DATA { ${triples.join('\n')} :loose :about :p1 . }`);
  });
  after(() => store.close());

  it('joins grouped sub-selects by hash on their group key', async () => {
    const plan = operators((await explainQuery(store, PREFIX + JOINED)).plan);
    assert.ok(
      plan.some((line) => line === 'IsolatedJoin hash join on ?p'),
      plan.join('\n'),
    );
    assert.deepEqual(await answers(store, JOINED), await answers(store, JOINED, false));
  });

  it('keeps an OPTIONAL key out of the join keys (it may be unbound)', async () => {
    const query = `SELECT * { { SELECT ?m (COUNT(*) AS ?n) { ?r :about ?p OPTIONAL { ?r :month ?m } } GROUP BY ?m }
      { SELECT ?m (COUNT(*) AS ?k) { ?r :month ?m } GROUP BY ?m } }`;
    assert.deepEqual(await answers(store, query), await answers(store, query, false));
  });

  for (const aggregate of ['COUNT(?s)', 'COUNT(DISTINCT ?s)', 'COUNT(?x)', 'COUNT(DISTINCT ?x)', 'COUNT(*)', 'COUNT(DISTINCT *)']) {
    it(`counts as the plain path does: ${aggregate}`, async () => {
      const query = `SELECT ?p (${aggregate} AS ?n) { ?r :about ?p OPTIONAL { ?r :score ?s } OPTIONAL { ?r :none ?x } } GROUP BY ?p`;
      assert.deepEqual(await answers(store, query), await answers(store, query, false));
    });
  }

  it('sums and averages as + adds, value by value: numeric types promoted, a non-number or an unbound value leaves it unbound', async () => {
    const query = `SELECT ?g (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) {
      VALUES (?g ?v) {
        (:ints 1) (:ints 2)
        (:decimals 0.10) (:decimals 0.20)
        (:mixed 1) (:mixed 2.5) (:mixed 1.0E0)
        (:doubleFirst 1.5E0) (:doubleFirst 2) (:doubleFirst 0.25) (:doubleFirst "0.5"^^<http://www.w3.org/2001/XMLSchema#float>)
        (:doubleThenWord 1.0E0) (:doubleThenWord 2) (:doubleThenWord "x")
        (:floats "0.1"^^<http://www.w3.org/2001/XMLSchema#float>) (:floats 1)
        (:word 1) (:word "x")
        (:unbound 1) (:unbound UNDEF)
        (:duration "P1D"^^<http://www.w3.org/2001/XMLSchema#dayTimeDuration>)
      }
    } GROUP BY ?g`;
    const rows = await answers(store, query);
    const literalRow = (g: string, sum: string, avg: string) => `NamedNode:http://ex/${g} ${sum} ${avg}`;
    assert.deepEqual(
      rows,
      [
        literalRow('decimals', 'Literal:0.3', 'Literal:0.15'),
        // A double total takes every other numeric type in double addition.
        literalRow('doubleFirst', 'Literal:4.25E0', 'Literal:1.0625E0'),
        literalRow('doubleThenWord', '-', '-'),
        literalRow('duration', '-', '-'),
        literalRow('floats', 'Literal:1.1E0', 'Literal:5.5E-1'),
        literalRow('ints', 'Literal:3', 'Literal:1.5'),
        literalRow('mixed', 'Literal:4.5E0', 'Literal:1.5E0'),
        literalRow('unbound', '-', '-'),
        literalRow('word', '-', '-'),
      ].sort(),
    );
  });
});
