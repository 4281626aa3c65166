/**
 * The join order's estimates against the rows the plan really gives (explain), on data whose
 * predicates are skewed the way real data is: a shape at a time (star, chain, OPTIONAL, NOT EXISTS),
 * with the store's per-predicate distinct figures and without them (the store-wide fall-back, as a
 * store written before them has it). And the plans those figures change, each answering as the
 * unoptimized plan does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { namedNode } from '../../rdf/index.js';
import { openStore } from '../../store/lmdb-store.js';
import { DEFAULT_GRAPH_ID, type QuadStore, type StoreReader, type StoreWriter } from '../../store/quad-store.js';
import { explainQuery, type PlanNode } from '../explain.js';
import { runQuery } from '../query-engine.js';

const PREFIX = 'PREFIX : <http://ex/> ';

/**
 * 1,000 people and 10 vendors with a country (10 countries); 5,000 reviews by 100 of the people,
 * 70% with a rating, each for one of 500 products; products of 5 types and 20 features each (of
 * 2,000); 10,000 offers of the products, each by a vendor; reviews and offers have a label each.
 * The store-wide distinct subjects (~16,500) and objects (~17,600) say nothing about one
 * predicate's: reviewers are 100, products with features 500.
 */
function writeData(w: StoreWriter): void {
  const iri = (name: string) => w.intern(namedNode(`http://ex/${name}`));
  const add = (s: string, p: string, o: string) => w.add(iri(s), iri(p), iri(o), DEFAULT_GRAPH_ID);
  for (let i = 0; i < 1000; i++) add(`p${i}`, 'country', `c${i % 10}`);
  for (let i = 0; i < 10; i++) add(`v${i}`, 'country', `c${i}`);
  for (let i = 0; i < 5000; i++) {
    add(`r${i}`, 'reviewer', `p${(i * 7) % 100}`);
    add(`r${i}`, 'label', `review-${i}`);
    if (i % 10 < 7) add(`r${i}`, 'rating', `n${i % 10}`);
    add(`r${i}`, 'reviewFor', `prod${i % 500}`);
  }
  for (let i = 0; i < 500; i++) {
    add(`prod${i}`, 'type', 'Product');
    add(`prod${i}`, 'type', `T${i % 5}`);
    for (let k = 0; k < 20; k++) add(`prod${i}`, 'feature', `f${(i * 13 + k) % 2000}`);
  }
  for (let i = 0; i < 10_000; i++) {
    add(`o${i}`, 'product', `prod${i % 500}`);
    add(`o${i}`, 'vendor', `v${i % 10}`);
    add(`o${i}`, 'label', `offer-${i}`);
  }
}

/** The store as one written before the per-predicate figures reads: statistics without them. */
function withoutPredicateFigures(store: QuadStore): QuadStore {
  const strip = (reader: StoreReader): StoreReader =>
    new Proxy(reader, {
      get(target, key) {
        if (key === 'statistics') {
          return () => {
            const { predicateSubjects: _s, predicateObjects: _o, ...rest } = target.statistics();
            return rest;
          };
        }
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { path: store.path, reader: () => strip(store.reader()), write: (fn, options) => store.write(fn, options), close: async () => {} };
}

function find(node: PlanNode, test: (node: PlanNode) => boolean): PlanNode | undefined {
  if (test(node)) return node;
  for (const child of node.children) {
    const found = find(child, test);
    if (found) return found;
  }
  return undefined;
}

function scans(node: PlanNode): string[] {
  return [...(node.operator === 'PatternScan' ? [node.details.replace(/ \(.*$/, '')] : []), ...node.children.flatMap(scans)];
}

/** How far an estimate is off, as a factor (at least 1) either way. */
function factorOff(node: PlanNode): number {
  const estimate = Math.max(node.estimatedRows ?? Number.NaN, 1);
  const actual = Math.max(node.actualRows, 1);
  return Math.max(estimate / actual, actual / estimate);
}

async function answers(store: QuadStore, query: string, optimize: boolean): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query, { optimize });
  assert.equal(result.kind, 'bindings');
  const rows: string[] = [];
  if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) rows.push(JSON.stringify(row));
  return rows.sort();
}

describe('join order estimates from per-predicate distinct subjects and objects', () => {
  let store: QuadStore;
  let old: QuadStore;

  before(() => {
    store = openStore({ memory: true });
    store.write(writeData);
    old = withoutPredicateFigures(store);
  });
  after(() => store.close());

  /**
   * Each shape: the query, and which node of its plan to compare (the basic graph pattern, or the
   * OPTIONAL, or what the NOT EXISTS filters).
   */
  const shapes: { name: string; query: string; node: (plan: PlanNode) => PlanNode | undefined; actual: number }[] = [
    {
      name: 'star: products of a type and their features',
      query: 'SELECT * { ?prod :type :T1 ; :feature ?f }',
      node: (plan) => find(plan, (n) => n.operator === 'Sequence'),
      actual: 2000,
    },
    {
      name: 'chain: reviews, their reviewers, the reviewers’ countries',
      query: 'SELECT * { ?r :reviewer ?p . ?p :country ?c }',
      node: (plan) => find(plan, (n) => n.operator === 'Sequence'),
      actual: 5000,
    },
    {
      name: 'OPTIONAL: reviews with their reviewer’s country, and a rating where there is one',
      query: 'SELECT * { ?r :reviewer ?p . ?p :country ?c OPTIONAL { ?r :rating ?x } }',
      node: (plan) => find(plan, (n) => n.operator === 'LeftJoin'),
      actual: 5000,
    },
    {
      name: 'NOT EXISTS: offers of the products of a type, not by one vendor',
      query: 'SELECT * { ?o :product ?prod . ?prod :type :T1 FILTER NOT EXISTS { ?o :vendor :v3 } }',
      node: (plan) => find(plan, (n) => n.operator === 'AntiJoin')?.children[0],
      actual: 2000,
    },
  ];

  for (const shape of shapes) {
    it(`${shape.name}: within a factor of 2, where the store-wide figures were off by more than 3`, async () => {
      const explained = find((await explainQuery(store, PREFIX + shape.query)).plan, () => true)!;
      const node = shape.node(explained);
      assert.ok(node, 'the node is in the plan');
      assert.equal(node.actualRows, shape.actual);
      assert.ok(factorOff(node) <= 2, `estimated ${node.estimatedRows} for ${node.actualRows}`);
      const before = shape.node((await explainQuery(old, PREFIX + shape.query)).plan);
      assert.ok(before && factorOff(before) > 3, `the store-wide figures estimated ${before?.estimatedRows} for ${before?.actualRows}`);
      assert.deepEqual(await answers(store, shape.query, true), await answers(store, shape.query, false));
    });
  }

  it('the OPTIONAL counts the rows each left solution gets from its right side', async () => {
    // Each product has 20 offers: the OPTIONAL multiplies its left side.
    const query = 'SELECT * { ?prod :type :T1 OPTIONAL { ?o :product ?prod } }';
    const optional = find((await explainQuery(store, PREFIX + query)).plan, (n) => n.operator === 'LeftJoin')!;
    assert.ok(factorOff(optional) <= 2, `estimated ${optional.estimatedRows} for ${optional.actualRows}`);
    assert.ok(optional.actualRows > 2 * optional.children[0].actualRows);
    assert.deepEqual(await answers(store, query, true), await answers(store, query, false));
  });

  /**
   * Plans the figures change: the order each way, and the same answers as the unoptimized plan
   * (the query's own order) and as the plan from the store-wide figures.
   */
  for (const [query, why] of [
    ['SELECT * { ?prod :type :T1 . ?o :product ?prod . ?r :reviewFor ?prod . ?r :rating :n1 }', 'the reviews and their rating check before the offers'],
    [
      'SELECT * { ?prod :type :T3 . ?prod :feature ?f . ?r :reviewFor ?prod . ?r :reviewer ?p . ?p :country :c6 }',
      'the reviewers’ country before the features',
    ],
    [
      'SELECT ?c (COUNT(*) AS ?n) { ?prod :type :T0 . ?o :product ?prod . ?r :reviewFor ?prod . ?r :reviewer ?p . ?p :country ?c } GROUP BY ?c',
      'the offers, the largest fan-out, last',
    ],
  ]) {
    it(`a plan the figures change (${why}) answers as the unoptimized one`, async () => {
      const [now, was] = await Promise.all([explainQuery(store, PREFIX + query), explainQuery(old, PREFIX + query)]);
      assert.notDeepEqual(scans(now.plan), scans(was.plan), 'the join order changed');
      const expected = await answers(store, query, false);
      assert.ok(expected.length > 0);
      assert.deepEqual(await answers(store, query, true), expected);
      assert.deepEqual(await answers(old, query, true), expected);
    });
  }
});
