import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import type { PlanNode } from './explain.js';
import { runQuery, runUpdate } from './query-engine.js';
import { explainQuery } from './explain.js';
import { SparqlSyntaxError } from '../errors.js';

const PREFIX = 'PREFIX : <http://ex/> ';

function operators(node: PlanNode): string[] {
  return [node.operator, ...node.children.flatMap(operators)];
}

function find(node: PlanNode, operator: string): PlanNode | undefined {
  if (node.operator === operator) return node;
  for (const child of node.children) {
    const found = find(child, operator);
    if (found) return found;
  }
  return undefined;
}

async function rowCount(store: QuadStore, query: string): Promise<number> {
  const result = await runQuery(store, query);
  assert.equal(result.kind, 'bindings');
  let n = 0;
  if (result.kind === 'bindings') for (const batch of result.rows) n += batch.length;
  return n;
}

describe('explain', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + 'INSERT DATA { :a :p 1 ; :q :x . :b :p 2 ; :q :x . :c :p 3 . :d :r 4 }');
  });
  after(() => store.close());

  it('reports the plan with estimated and actual rows, the root counting the result rows', async () => {
    const query = PREFIX + 'SELECT ?s ?o { ?s :p ?o ; :q :x }';
    const explanation = await explainQuery(store, query);
    assert.equal(explanation.query, query);
    assert.equal(explanation.resultRows, 2);
    assert.equal(explanation.plan.actualRows, 2);
    assert.equal(explanation.resultRows, await rowCount(store, query));
    assert.ok(explanation.totalTimeMs >= 0);
    const scans = operators(explanation.plan).filter((o) => o === 'PatternScan');
    assert.equal(scans.length, 2);
    const scan = find(explanation.plan, 'PatternScan')!;
    assert.match(scan.details, /<http:\/\/ex\/[pq]>/);
    assert.equal(typeof scan.estimatedRows, 'number');
    assert.ok(scan.timeMs >= 0);
  });

  it('shows a filter pushed into the scans, with the variables it reads', async () => {
    const explanation = await explainQuery(store, PREFIX + 'SELECT * { ?s :p ?o FILTER(?o > 1) }');
    assert.equal(explanation.resultRows, 2);
    const filter = find(explanation.plan, 'FilterStep');
    assert.ok(filter, JSON.stringify(explanation.plan));
    assert.match(filter.details, /\?o/);
  });

  it('counts the triples of CONSTRUCT and the answer of ASK', async () => {
    const construct = await explainQuery(store, PREFIX + 'CONSTRUCT { ?s :copy ?o } WHERE { ?s :p ?o }');
    assert.equal(construct.plan.operator, 'Construct');
    assert.equal(construct.resultRows, 3);
    assert.equal(construct.plan.children[0].actualRows, 3);
    const ask = await explainQuery(store, PREFIX + 'ASK { :a :p 1 }');
    assert.equal(ask.plan.operator, 'Ask');
    assert.equal(ask.resultRows, 1);
  });

  it('explains the plan of EXISTS inside a filter', async () => {
    // The pattern reads ?o, which it does not bind: it is evaluated per solution, under the filter.
    const explanation = await explainQuery(store, PREFIX + 'SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?s :q :x FILTER(?o > 1) } }');
    assert.equal(explanation.resultRows, 2);
    const filter = find(explanation.plan, 'Filter')!;
    assert.equal(filter.children.length, 2);
  });

  it('explains NOT EXISTS as an anti-join: the left side, the table plan and the probe plan', async () => {
    const explanation = await explainQuery(store, PREFIX + 'SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?s :q :x } }');
    assert.equal(explanation.resultRows, 1);
    const join = find(explanation.plan, 'AntiJoin')!;
    assert.equal(join.children.length, 3);
    assert.equal(find(explanation.plan, 'Filter'), undefined);
  });

  it('rejects a syntax error as a query would', async () => {
    await assert.rejects(explainQuery(store, 'SELECT ?s {'), SparqlSyntaxError);
  });

  it('costs nothing afterwards: a plain query is not instrumented', async () => {
    const query = PREFIX + 'SELECT ?s { ?s :p ?o }';
    await explainQuery(store, query);
    assert.equal(await rowCount(store, query), 3);
  });
});

describe('evaluation without the optimizer (optimize: false)', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + 'INSERT DATA { :a :p 1 ; :q :x . :b :p 2 ; :q :x . :c :p 3 . :d :r 4 }');
  });
  after(() => store.close());

  it('joins the patterns in the order the query writes them, with the same answers', async () => {
    const query = PREFIX + 'SELECT ?s ?o { ?s :p ?o . ?s :q :x FILTER(?o > 1) }';
    const plain = await explainQuery(store, query, { optimize: false });
    const optimized = await explainQuery(store, query);
    const scanDetails = (plan: PlanNode): string[] =>
      collect(plan)
        .filter((n) => n.operator === 'PatternScan')
        .map((n) => n.details);
    assert.deepEqual(scanDetails(plain.plan), ['?s <http://ex/p> ?o', '?s <http://ex/q> <http://ex/x>']);
    // Without the optimizer the filter stays above the whole pattern; with it, it moves between the scans.
    assert.equal(plain.plan.children[0].operator, 'Filter');
    assert.ok(collect(optimized.plan).some((n) => n.operator === 'FilterStep'));
    assert.equal(plain.resultRows, 1);
    assert.equal(optimized.resultRows, 1);
  });
});

describe('a filter over a UNION', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + 'INSERT DATA { :a :p 1 ; :q 5 . :b :p 2 . :c :q 3 . :d :r 7 }');
  });
  after(() => store.close());

  it('moves into each branch, right after the scan that binds its variable', async () => {
    const query = PREFIX + 'SELECT * { { ?s :p ?n } UNION { ?s :q ?n } FILTER(?n > 1) }';
    const plan = (await explainQuery(store, query)).plan;
    assert.equal(collect(plan).filter((n) => n.operator === 'FilterStep').length, 2);
    assert.ok(!collect(plan).some((n) => n.operator === 'Filter'));
  });

  it('stays above the union when one branch does not bind its variable', async () => {
    const query = PREFIX + 'SELECT * { { ?s :p ?n } UNION { ?s :r ?m } FILTER(?n > 1) }';
    const plan = (await explainQuery(store, query)).plan;
    assert.ok(collect(plan).some((n) => n.operator === 'Filter'));
  });
});

describe('the optimizer gives the answers of the plain evaluation', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    const triples = Array.from({ length: 60 }, (_, i) => `:s${i} :p ${i} ; :q :o${i % 7} ${i % 3 === 0 ? '; :r "x"' : ''} .`).join('\n');
    await runUpdate(store, PREFIX + `INSERT DATA { ${triples} :s1 :q "literal" . :o1 :label "one" }`);
  });
  after(() => store.close());

  async function rows(query: string, optimize: boolean): Promise<string[]> {
    const result = await runQuery(store, PREFIX + query, { optimize });
    const out: string[] = [];
    if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => t?.value ?? '-').join(' '));
    return out.sort();
  }

  const queries = [
    'SELECT * { ?s :p ?n ; :q ?o FILTER(?n > 10 && ?o != :o3) }',
    'SELECT * { ?s :q ?o FILTER(?o = :o1) }',
    'SELECT * { ?s :q ?o FILTER(sameTerm(?o, :o2) || ?o = "literal") }',
    'SELECT * { ?s :p ?n OPTIONAL { ?s :r ?r } FILTER(?n < 20 && !BOUND(?r)) }',
    'SELECT * { ?s :p ?n OPTIONAL { ?s :q ?o . ?o :label ?l FILTER(?n > 0) } }',
    'SELECT * { ?s :p ?n . ?t :p ?m FILTER(?n = ?m + 50) }',
    'SELECT * { { ?s :p ?n } MINUS { ?s :r ?r } FILTER(?n > 30) }',
    'SELECT * { ?s :p ?n FILTER(?undefined = :o1 || ?n = 5) }',
    // A filter over a UNION, into every branch that binds what it reads, or kept above the union.
    'SELECT * { { ?s :p ?n } UNION { ?s :q ?o . ?s :p ?n } FILTER(?n > 40) }',
    'SELECT * { { ?s :p ?n } UNION { ?s :q ?o } FILTER(?n > 40 || !BOUND(?n)) }',
    'SELECT * { { ?s :p ?n } UNION { ?s :r ?r } FILTER(?n < 10) }',
    'SELECT * { { ?s :p ?n } UNION { { ?s :q ?o } UNION { ?s :p ?n . ?s :r ?r } } FILTER(?n >= 30 && ?s != :s33) }',
    'SELECT * { { ?s :p ?n } UNION { ?s :q ?o } FILTER(EXISTS { ?s :r ?r } && ?n > 3) }',
    'SELECT * { { ?s :q ?o } UNION { ?s :p ?n } OPTIONAL { ?s :r ?r } FILTER(?o = :o2 || BOUND(?r)) }',
  ];
  for (const query of queries) {
    it(query, async () => {
      assert.deepEqual(await rows(query, true), await rows(query, false));
    });
  }

  it('joins a large batch by hash, and says so in the plan', async () => {
    const explanation = await explainQuery(store, PREFIX + 'SELECT * { ?s :p ?n . ?s :q ?o }');
    assert.equal(explanation.resultRows, 61);
    assert.ok(
      collect(explanation.plan).some((n) => n.details.endsWith('(hash join)')),
      JSON.stringify(explanation.plan),
    );
  });
});

function collect(node: PlanNode): PlanNode[] {
  return [node, ...node.children.flatMap(collect)];
}
