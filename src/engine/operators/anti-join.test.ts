import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { termKey } from '../../rdf/terms.js';
import { runQuery, runUpdate } from '../query-engine.js';
import type { EngineQueryOptions } from '../engine-api.js';
import { explainQuery, type PlanNode } from '../explain.js';
import { existenceJoinTuning } from './anti-join.js';

const PREFIX = 'PREFIX : <http://ex/> ';
const ITEMS = 400;

/**
 * 400 items (more than the anti-join probes before it tries a table); a third of them tagged, a
 * quarter with an optional :opt; reviews of every other item by 7 users in two countries; marks in
 * two named graphs.
 */
function data(): string {
  const lines: string[] = [];
  for (let i = 0; i < ITEMS; i++) {
    lines.push(`:i${i} a :Item ; :n ${i} .`);
    if (i % 3 === 0) lines.push(`:i${i} :tag :t${i % 5} .`);
    if (i % 4 === 0) lines.push(`:i${i} :opt "o${i % 3}" .`);
    if (i % 2 === 0) lines.push(`:r${i} :about :i${i} ; :by :u${i % 7} .`);
  }
  for (let u = 0; u < 7; u++) lines.push(`:u${u} :country :c${u % 2} .`);
  const g1: string[] = [];
  const g2: string[] = [];
  for (let i = 0; i < ITEMS; i += 5) g1.push(`:i${i} :mark 1 .` + (i % 10 === 0 ? ` :i${i} :mark2 1 .` : ''));
  for (let i = 0; i < ITEMS; i += 6) g2.push(`:i${i} :mark 2 .` + (i % 4 === 0 ? ` :i${i} :mark2 2 .` : ''));
  return `INSERT DATA { ${lines.join(' ')} GRAPH :g1 { ${g1.join(' ')} } GRAPH :g2 { ${g2.join(' ')} } }`;
}

/** The answer's rows, sorted (the shapes' answers are sets). */
async function rows(store: QuadStore, query: string, options: EngineQueryOptions = {}): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query, { preparedPlans: false, ...options });
  assert.equal(result.kind, 'bindings');
  const out: string[] = [];
  if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => (t ? termKey(t) : '-')).join(' '));
  return out.sort();
}

type Tuning = typeof existenceJoinTuning;

/** Runs with the anti-join's choice forced (or left to it), the tuning restored after. */
async function withTuning<T>(tuning: Partial<Tuning>, run: () => Promise<T>): Promise<T> {
  const saved = { ...existenceJoinTuning };
  Object.assign(existenceJoinTuning, tuning);
  try {
    return await run();
  } finally {
    Object.assign(existenceJoinTuning, saved);
  }
}

const HASH: Partial<Tuning> = { probeFirst: 0, budgetScale: Infinity, buildFloor: Infinity };
const PROBE: Partial<Tuning> = { probeFirst: Infinity, budgetScale: 0, buildFloor: 0 };

function operators(node: PlanNode): PlanNode[] {
  return [node, ...node.children.flatMap(operators)];
}

function named(plan: PlanNode, operator: string): PlanNode[] {
  return operators(plan).filter((n) => n.operator === operator);
}

/** The shapes of negation and existence the answers are checked on, each against the unoptimized plan. */
const SHAPES: Record<string, string> = {
  'NOT EXISTS, the shared variable always bound': 'SELECT ?i { ?i a :Item FILTER NOT EXISTS { ?r :about ?i } }',
  'EXISTS, the shared variable always bound': 'SELECT ?i { ?i a :Item FILTER EXISTS { ?r :about ?i } }',
  'NOT EXISTS, a shared variable sometimes unbound on the left':
    'SELECT ?i ?t { ?i a :Item OPTIONAL { ?i :tag ?t } FILTER NOT EXISTS { ?i :opt ?o . ?x :tag ?t } }',
  'NOT EXISTS sharing no variable, P empty': 'SELECT ?i { ?i a :Item FILTER NOT EXISTS { ?x :country :c9 } }',
  'NOT EXISTS sharing no variable, P not empty': 'SELECT ?i { ?i a :Item FILTER NOT EXISTS { ?x :country :c1 } }',
  'NOT EXISTS with a filter inside on its own variables':
    'SELECT ?i { ?i a :Item FILTER NOT EXISTS { ?r :about ?i ; :by ?u . ?u :country ?c FILTER(?c = :c1) } }',
  'NOT EXISTS with a filter inside on a left-only variable (per solution)': 'SELECT ?i { ?i :n ?n FILTER NOT EXISTS { ?r :about ?i FILTER(?n > 100) } }',
  'NOT EXISTS with an OPTIONAL inside binding a left variable (per solution)':
    'SELECT ?i ?o { ?i :opt ?o FILTER NOT EXISTS { ?r :about ?i OPTIONAL { ?i :tag ?o } } }',
  'NOT EXISTS with an OPTIONAL inside on its own variables': 'SELECT ?i { ?i a :Item FILTER NOT EXISTS { ?r :about ?i OPTIONAL { ?r :by ?u } } }',
  'NOT EXISTS nested in NOT EXISTS': 'SELECT ?i { ?i a :Item FILTER NOT EXISTS { ?r :about ?i FILTER NOT EXISTS { ?r :by ?u . ?u :country :c0 } } }',
  'NOT EXISTS nested, the inner one reading an outer variable':
    'SELECT ?i { ?i :tag ?t FILTER NOT EXISTS { ?r :about ?i FILTER NOT EXISTS { ?j :tag ?t ; :opt ?o } } }',
  'NOT EXISTS inside GRAPH ?g': 'SELECT ?g ?i { GRAPH ?g { ?i :mark ?v FILTER NOT EXISTS { ?i :mark2 ?w } } }',
  'NOT EXISTS inside GRAPH ?g, P reading ?g': 'SELECT ?g ?i { GRAPH ?g { ?i :mark ?v } FILTER NOT EXISTS { GRAPH ?g { ?i :mark2 ?w } } }',
  'NOT EXISTS inside GRAPH <g>': 'SELECT ?i { GRAPH :g1 { ?i :mark ?v FILTER NOT EXISTS { ?i :mark2 ?w } } }',
  'NOT EXISTS over a left side with OPTIONAL': 'SELECT ?i ?o { ?i a :Item OPTIONAL { ?i :opt ?o } FILTER NOT EXISTS { ?r :about ?i } }',
  'NOT EXISTS among other conjuncts': 'SELECT ?i { ?i :n ?n FILTER(?n > 10 && NOT EXISTS { ?r :about ?i } && ?n < 300) }',
  'NOT EXISTS and EXISTS together': 'SELECT ?i { ?i a :Item FILTER(NOT EXISTS { ?r :about ?i } && EXISTS { ?i :tag ?t }) }',
  'NOT EXISTS over VALUES': 'SELECT ?i { ?i a :Item FILTER NOT EXISTS { VALUES ?i { :i1 :i2 :i3 } } }',
  'NOT EXISTS in a group joined to a later one': 'SELECT ?i ?n { { ?i a :Item FILTER NOT EXISTS { ?i :tag ?t } } ?i :n ?n }',
  'OPTIONAL with !BOUND': 'SELECT ?i { ?i a :Item OPTIONAL { ?i :tag ?t } FILTER(!BOUND(?t)) }',
  'OPTIONAL with !BOUND, two patterns': 'SELECT ?i { ?i a :Item OPTIONAL { ?r :about ?i ; :by ?u } FILTER(!BOUND(?u)) }',
  'OPTIONAL with its own filter, with !BOUND': 'SELECT ?i { ?i :n ?n OPTIONAL { ?r :about ?i ; :by ?u FILTER(?n > 50) } FILTER(!BOUND(?u)) }',
  'OPTIONAL with !BOUND of a variable P does not always bind': 'SELECT ?i { ?i a :Item OPTIONAL { ?r :about ?i OPTIONAL { ?i :tag ?t } } FILTER(!BOUND(?t)) }',
  'OPTIONAL with !BOUND of a variable the left binds too': 'SELECT ?i { ?i a :Item OPTIONAL { ?i :opt ?t } OPTIONAL { ?i :tag ?t } FILTER(!BOUND(?t)) }',
  'OPTIONAL with !BOUND and another conjunct': 'SELECT ?i { ?i :n ?n OPTIONAL { ?i :tag ?t } FILTER(!BOUND(?t) && ?n < 100) }',
  'OPTIONAL with !BOUND inside GRAPH ?g': 'SELECT ?g ?i { GRAPH ?g { ?i :mark ?v OPTIONAL { ?i :mark2 ?w } FILTER(!BOUND(?w)) } }',
  'MINUS on a shared variable': 'SELECT ?i { ?i a :Item MINUS { ?r :about ?i } }',
  'MINUS sharing no variable': 'SELECT ?i { ?i a :Item MINUS { ?x :country ?c } }',
};

describe('anti-joins and semi-joins', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, PREFIX + data());
  });
  after(() => store.close());

  for (const [name, query] of Object.entries(SHAPES)) {
    it(`answers as the unoptimized plan, probing, hashing and choosing: ${name}`, async () => {
      const expected = await rows(store, query, { optimize: false });
      assert.deepEqual(await withTuning(PROBE, () => rows(store, query)), expected, 'probing');
      assert.deepEqual(await withTuning(HASH, () => rows(store, query)), expected, 'hashing');
      assert.deepEqual(await rows(store, query), expected, 'choosing');
    });
  }

  it('evaluates a FILTER’s EXISTS on its own group’s solution, not on bindings from before the group', async () => {
    const small = openStore({ memory: true });
    try {
      await runUpdate(small, PREFIX + 'INSERT DATA { :a :p :b1 . :c :q :d ; :r :b2 }');
      // In the second group ?b is unbound, so { ?c :r ?b } has a solution (?b = :b2) whatever the first binds.
      for (const options of [{}, { optimize: false }, { preparedPlans: true }]) {
        assert.deepEqual(await rows(small, 'SELECT * { ?a :p ?b { ?c :q ?d FILTER NOT EXISTS { ?c :r ?b } } }', options), []);
        assert.deepEqual(await rows(small, 'SELECT ?d { ?a :p ?b { ?c :q ?d FILTER EXISTS { ?c :r ?b } } }', options), ['<http://ex/d']);
      }
    } finally {
      small.close();
    }
  });

  it('plans NOT EXISTS as an AntiJoin and EXISTS as a SemiJoin, no filter left', async () => {
    const not = await explainQuery(store, PREFIX + SHAPES['NOT EXISTS, the shared variable always bound']);
    assert.equal(not.resultRows, ITEMS / 2);
    assert.equal(named(not.plan, 'AntiJoin').length, 1);
    assert.equal(named(not.plan, 'Filter').length, 0);
    assert.match(named(not.plan, 'AntiJoin')[0].details, /^hash on \?i/);
    const exists = await explainQuery(store, PREFIX + SHAPES['EXISTS, the shared variable always bound']);
    assert.equal(exists.resultRows, ITEMS / 2);
    assert.equal(named(exists.plan, 'SemiJoin').length, 1);
  });

  it('keeps NOT EXISTS per solution where P reads a variable of the solution it does not bind', async () => {
    for (const name of [
      'NOT EXISTS with a filter inside on a left-only variable (per solution)',
      'NOT EXISTS with an OPTIONAL inside binding a left variable (per solution)',
    ]) {
      const explanation = await explainQuery(store, PREFIX + SHAPES[name]);
      assert.equal(named(explanation.plan, 'AntiJoin').length, 0, name);
      assert.match(named(explanation.plan, 'Filter')[0].details, /NOT EXISTS/, name);
    }
  });

  it('plans OPTIONAL with !BOUND as an AntiJoin, and keeps the left join where ?x is not P’s alone', async () => {
    const rewritten = await explainQuery(store, PREFIX + SHAPES['OPTIONAL with !BOUND']);
    assert.equal(named(rewritten.plan, 'AntiJoin').length, 1);
    assert.equal(named(rewritten.plan, 'LeftJoin').length, 0);
    assert.equal(named(rewritten.plan, 'Filter').length, 0);
    for (const name of ['OPTIONAL with !BOUND of a variable P does not always bind', 'OPTIONAL with !BOUND of a variable the left binds too']) {
      const kept = await explainQuery(store, PREFIX + SHAPES[name]);
      assert.equal(named(kept.plan, 'AntiJoin').length, 0, name);
      assert.ok(named(kept.plan, 'LeftJoin').length > 0, name);
    }
  });

  it('looks solutions up in a table once there are enough of them, probing the first ones', async () => {
    // The union's first branch (the 134 tagged items) comes in a batch short of the mark, the second (every item) reaches it.
    const query = PREFIX + 'SELECT ?i { { ?i :tag ?t } UNION { ?i a :Item } FILTER NOT EXISTS { ?r :about ?i } }';
    const explanation = await withTuning({ probeFirst: 200 }, () => explainQuery(store, query));
    const join = named(explanation.plan, 'AntiJoin')[0];
    const [, hashed, tableRows, probed] = /(\d+) solutions looked up in (\d+) rows, (\d+) probed/.exec(join.details)!.map(Number);
    assert.deepEqual({ hashed, tableRows, probed }, { hashed: ITEMS, tableRows: ITEMS / 2, probed: 134 }, join.details);
    // The estimate and the actual rows, side by side.
    assert.equal(typeof join.estimatedRows, 'number');
    assert.equal(join.actualRows, ITEMS / 2 + 67);
  });

  it('builds the table on from batch to batch, reading each row of P once', async () => {
    // 134 tagged items, then 400, against a table of 200 reviews read within an allowance of one
    // row per solution seen: not finished during the first batch, finished during the second.
    const query = PREFIX + 'SELECT ?i { { ?i :tag ?t } UNION { ?i a :Item } FILTER NOT EXISTS { ?r :about ?i } }';
    const explanation = await withTuning({ probeFirst: 0, buildFloor: 0, budgetScale: 0.5 }, () => explainQuery(store, query));
    const join = named(explanation.plan, 'AntiJoin')[0];
    assert.match(join.details, /: 400 solutions looked up in 200 rows, 134 probed$/);
    // P's own plan produced each of its rows once.
    assert.equal(named(explanation.plan, 'PatternScan').find((n) => n.details.includes('about') && n.actualRows > 0)!.actualRows, ITEMS / 2);
  });

  it('keeps probing where the table would be too large for the solutions', async () => {
    // Four items against every triple of the store: a table is never worth it.
    const query = PREFIX + 'SELECT ?i { VALUES ?i { :i1 :i2 :i3 :i4 } FILTER NOT EXISTS { ?i ?p ?o } }';
    const explanation = await withTuning({ probeFirst: 0, buildFloor: 0 }, () => explainQuery(store, query));
    assert.equal(explanation.resultRows, 0);
    assert.match(named(explanation.plan, 'AntiJoin')[0].details, /: 0 solutions looked up in 0 rows, 4 probed/);
  });
});
