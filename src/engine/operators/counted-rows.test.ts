/**
 * Counting merged solutions (counted-rows.ts, plan/counted-rows-rule.ts): a chain of joins below a
 * grouping that only counts carries fewer solutions, each with its count, and every aggregate
 * answers as it does over the solutions one by one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore, StoreReader } from '../../store/quad-store.js';
import type { EngineQueryOptions } from '../engine-api.js';
import { ExecContext } from '../exec-context.js';
import { Batch } from '../batch.js';
import { explainQuery, type PlanNode } from '../explain.js';
import { runQuery, runUpdate } from '../query-engine.js';
import { CountedRows } from './counted-rows.js';

const PREFIX = 'PREFIX : <http://ex/> ';
const REVIEWS = 15_000;
const USERS = 300;
const PRODUCTS = 100;
const OFFERS = 1000;
const VENDORS = 20;

/** Reviews of products by users, offers of the products by vendors, users and vendors in countries. */
function data(): string {
  const triples: string[] = [];
  for (let r = 0; r < REVIEWS; r++) triples.push(`:r${r} :by :u${r % USERS} ; :for :p${(r * 7) % PRODUCTS} .`);
  for (let u = 0; u < USERS; u++) triples.push(`:u${u} :country :c${u % 5} ; :score ${u % 10} .`);
  for (let o = 0; o < OFFERS; o++) triples.push(`:o${o} :product :p${o % PRODUCTS} ; :vendor :v${(o * 3) % VENDORS} .`);
  for (let v = 0; v < VENDORS; v++) triples.push(`:v${v} :country :c${v % 5} ; :name "vendor ${v}" .`);
  return `INSERT DATA { ${triples.join('\n')} }`;
}

/** Each vendor of an offer of a product reviewed: 150,000 solutions, 30,000 of them by users of one country. */
const CHAIN = '?u :country :c1 . ?r :by ?u ; :for ?p . ?o :product ?p ; :vendor ?v . ?v :name ?name';

describe('solutions merged below a grouping that counts', () => {
  let store: QuadStore;
  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + data());
  });
  after(() => store.close());

  const OFF: EngineQueryOptions = { fastPaths: { countedRows: false } };

  async function answers(query: string, options: EngineQueryOptions = {}): Promise<string[]> {
    const result = await runQuery(store, PREFIX + query, options);
    assert.equal(result.kind, 'bindings');
    const out: string[] = [];
    if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => t?.value ?? '-').join(' '));
    return out.sort();
  }

  async function merges(query: string, options: EngineQueryOptions = {}): Promise<PlanNode[]> {
    const found: PlanNode[] = [];
    const visit = (node: PlanNode) => {
      if (node.operator === 'CountedRows') found.push(node);
      node.children.forEach(visit);
    };
    visit((await explainQuery(store, PREFIX + query, options)).plan);
    return found;
  }

  it('a chain counted per vendor merges its solutions where its variables stop being needed', async () => {
    const query = `SELECT ?name (COUNT(*) AS ?n) { ${CHAIN} } GROUP BY ?name`;
    const plan = (await explainQuery(store, PREFIX + query, {})).plan;
    const sequences: PlanNode[] = [];
    const visit = (node: PlanNode) => {
      if (node.operator === 'Sequence') sequences.push(node);
      node.children.forEach(visit);
    };
    visit(plan);
    const steps = sequences.flatMap((sequence) => sequence.children);
    const merging = steps.filter((step) => step.operator === 'CountedRows');
    assert.ok(merging.length > 0);
    // Each merge yields fewer solutions than the step before it.
    for (const merge of merging) assert.ok(merge.actualRows! < steps[steps.indexOf(merge) - 1].actualRows!, merge.details);
    assert.deepEqual(await answers(query), await answers(query, OFF));
    const total = (await answers(query)).reduce((sum, row) => sum + Number(row.split(' ').pop()), 0);
    assert.equal(total, (REVIEWS / 5) * (OFFERS / PRODUCTS));
  });

  // Each aggregate form over the same chain: whether it may merge (undefined: as estimates decide),
  // and the same answers either way.
  const forms: [aggregates: string, merged: boolean | undefined][] = [
    ['(COUNT(*) AS ?n)', true],
    ['(COUNT(?u) AS ?n) (COUNT(DISTINCT ?u) AS ?d)', true],
    ['(MIN(?u) AS ?lo) (MAX(?u) AS ?hi)', true],
    ['(COUNT(*) AS ?n) (SUM(DISTINCT ?score) AS ?s) (AVG(DISTINCT ?score) AS ?a)', undefined],
    ['(SUM(?score) AS ?s)', false],
    ['(AVG(?score) AS ?a)', false],
    ['(GROUP_CONCAT(?score) AS ?all)', false],
    ['(COUNT(DISTINCT *) AS ?n)', false],
  ];
  for (const [aggregates, merged] of forms) {
    for (const keys of ['?name', '']) {
      const query = `SELECT ${keys} ${aggregates} { ${CHAIN} . ?u :score ?score } ${keys ? `GROUP BY ${keys}` : ''}`;
      it(`${aggregates}${keys ? ' per ' + keys : ''}: ${merged === undefined ? 'perhaps merged' : merged ? 'merged' : 'every solution'}, the same answers`, async () => {
        if (merged !== undefined) assert.equal((await merges(query)).length > 0, merged);
        assert.equal((await merges(query, OFF)).length, 0);
        assert.deepEqual(await answers(query), await answers(query, OFF));
      });
    }
  }

  it('a filter in the chain keeps what it reads until it has run', async () => {
    const query = `SELECT ?name (COUNT(*) AS ?n) { ${CHAIN} . ?u :score ?score FILTER(?score > 3) } GROUP BY ?name`;
    assert.deepEqual(await answers(query), await answers(query, OFF));
  });

  it('over a union, an optional part or a sub-select, the answers are the same', async () => {
    for (const query of [
      `SELECT ?name (COUNT(*) AS ?n) { { ?r :for ?p } UNION { ?r :by ?u } ?o :product ?p ; :vendor ?v . ?v :name ?name } GROUP BY ?name`,
      `SELECT ?name (COUNT(*) AS ?n) { ${CHAIN} OPTIONAL { ?u :score ?score } } GROUP BY ?name`,
      `SELECT ?name (COUNT(*) AS ?n) { { SELECT ?name ?u { ${CHAIN} } } } GROUP BY ?name`,
    ]) {
      assert.deepEqual(await answers(query), await answers(query, OFF), query);
    }
  });
});

describe('CountedRows', () => {
  const WIDTH = 3;
  const KEY = 0;
  const WEIGHT = 2;
  const ctx = new ExecContext({} as StoreReader, { defaultGraphs: [0], namedGraphs: null });
  ctx.width = WIDTH;

  /** Batches of (key, other, weight) rows. */
  function batches(rows: number[][]): Batch[] {
    const out: Batch[] = [];
    for (let i = 0; i < rows.length; i += 1024) {
      const batch = new Batch(WIDTH);
      for (const row of rows.slice(i, i + 1024)) batch.appendRow(row);
      out.push(batch);
    }
    return out;
  }

  function weightsByKey(op: CountedRows, rows: number[][]): { rows: number; weights: Map<number, number> } {
    let count = 0;
    const weights = new Map<number, number>();
    for (const batch of op.execute(batches(rows), ctx)) {
      for (let r = 0; r < batch.length; r++) {
        count++;
        const key = batch.get(r, KEY);
        weights.set(key, (weights.get(key) ?? 0) + (batch.get(r, WEIGHT) || 1));
      }
    }
    return { rows: count, weights };
  }

  it('adds the counts of solutions alike on the key, a count of 0 standing for 1', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [1 + (i % 7), 100 + i, i % 3]);
    const op = new CountedRows([KEY], WEIGHT);
    op.estimate = 7;
    const { rows: out, weights } = weightsByKey(op, rows);
    assert.equal(out, 7);
    for (let key = 1; key <= 7; key++) {
      const expected = rows.filter((r) => r[KEY] === key).reduce((sum, r) => sum + (r[WEIGHT] || 1), 0);
      assert.equal(weights.get(key), expected);
    }
  });

  it('stops merging solutions that do not repeat, far more than expected, and the counts still add up', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => [1 + i, 0, 0]);
    const op = new CountedRows([KEY], WEIGHT);
    op.estimate = 100;
    const { rows: out, weights } = weightsByKey(op, rows);
    assert.equal(out, rows.length);
    assert.equal(
      [...weights.values()].reduce((a, b) => a + b, 0),
      rows.length,
    );
  });

  it('keeps merging while the planner expected as many distinct solutions', () => {
    // 6,000 keys, each twice, the second time after all the firsts: the first 4,096 rows do not repeat.
    const rows = Array.from({ length: 12_000 }, (_, i) => [1 + (i % 6000), 0, 0]);
    const op = new CountedRows([KEY], WEIGHT);
    op.estimate = 6000;
    const { rows: out, weights } = weightsByKey(op, rows);
    assert.equal(out, 6000);
    assert.ok([...weights.values()].every((w) => w === 2));
  });
});
