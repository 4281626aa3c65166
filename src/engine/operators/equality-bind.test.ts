/**
 * FILTER(?a = ?b) and sameTerm(?a, ?b) between two variables of a basic graph pattern run as a
 * join: the step after the first side's pattern binds the second, which is then looked up. `=`
 * compares values, so terms whose equals are other terms (numbers, date/times, language strings)
 * are not copied; every query here gives the plain path's answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import type { PlanNode } from '../explain.js';
import { runQuery, runUpdate } from '../query-engine.js';
import { explainQuery } from '../explain.js';

const PREFIX = 'PREFIX : <http://ex/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> ';
/** Values whose `=` and sameTerm differ: 1, 01 and 1.0; two zones of one instant; "a"@en and "a"@EN. */
const DATA = `INSERT DATA {
  :x :f :red , :blue , _:b1 , "s" , 1 , "2008-01-01T12:00:00Z"^^xsd:dateTime , "a"@en , "NaN"^^xsd:double .
  :y :f :red , "s" , "01"^^xsd:integer , 1.0 , "2008-01-01T13:00:00+01:00"^^xsd:dateTime , "a"@EN , "NaN"^^xsd:double .
  :z :f :blue , _:b1 , "t" , 2 .
  :w :g :red , 1 , "s" .
}`;

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

const QUERIES = [
  'SELECT ?o (COUNT(*) AS ?n) { :x :f ?a . ?o :f ?b FILTER(?a = ?b) } GROUP BY ?o',
  'SELECT ?o ?a ?b { :x :f ?a . ?o :f ?b FILTER(?a = ?b && ?o != :x) }',
  'SELECT ?o ?a ?b { :x :f ?a . ?o :f ?b FILTER(sameTerm(?a, ?b)) }',
  'SELECT ?o ?a { :x :f ?a . ?o :g ?b FILTER(?b = ?a) }',
  'SELECT * { ?s :f ?a . ?t :f ?b . ?u :g ?c FILTER(?a = ?b && ?b = ?c) }',
  'SELECT * { ?s :f ?a . ?t :f ?b FILTER(?a = ?b) FILTER(isLiteral(?a)) }',
  'SELECT * { ?s :f ?a OPTIONAL { ?t :g ?b FILTER(?a = ?b) } }',
];

describe('equality between variables as a join', () => {
  let store: QuadStore;
  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + DATA);
  });
  after(() => store.close());

  for (const query of QUERIES) {
    it(`gives the plain path's answers: ${query}`, async () => {
      assert.deepEqual(await answers(store, query), await answers(store, query, false));
    });
  }

  it('binds the second side from the first, then looks it up', async () => {
    const plan = operators((await explainQuery(store, PREFIX + QUERIES[0])).plan);
    const bind = plan.findIndex((line) => line.startsWith('EqualityBind ?b := ?a'));
    const lookup = plan.findIndex((line) => line.startsWith('PatternScan ?o <http://ex/f> ?b'));
    assert.ok(bind >= 0 && lookup > bind, plan.join('\n'));
    // The filter stays, after the look-up: it decides for the terms that were not copied.
    assert.ok(plan.findIndex((line) => line.startsWith('FilterStep (?a = ?b)')) > lookup);
  });

  it('finds value-equal terms that are not the same term (1 = 01 = 1.0, one instant in two zones)', async () => {
    const found = await answers(store, 'SELECT ?b { :x :f ?a . :y :f ?b FILTER(?a = ?b && isLiteral(?a)) }');
    assert.ok(found.includes('Literal:01') && found.includes('Literal:1.0'), found.join(', '));
    assert.ok(found.includes('Literal:2008-01-01T13:00:00+01:00'), found.join(', '));
  });
});
