import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore, StoreReader } from '../../store/quad-store.js';
import { BATCH_SIZE } from '../batch.js';
import { runQuery, runUpdate } from '../query-engine.js';
import type { EngineQueryOptions } from '../engine-api.js';
import { explainQuery, type PlanNode } from '../explain.js';

const EX = 'http://example.org/';

async function rows(store: QuadStore, query: string, options?: EngineQueryOptions): Promise<string[]> {
  const result = await runQuery(store, query, options);
  assert.equal(result.kind, 'bindings');
  const out: string[] = [];
  if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => t?.value.replace(EX, '') ?? '-').join(' '));
  return out.sort();
}

describe('a pattern looked up with the same key for many solutions', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    const things = Array.from({ length: 40 }, (_, i) => `<${EX}t${i}> a <${EX}Thing> .`);
    const tags = Array.from({ length: 70 }, (_, i) => `<${EX}hub> <${EX}tag> ${i} .`);
    const graphs = ['g1', 'g2'].map((g) => `GRAPH <${EX}${g}> { <${EX}a> <${EX}p> <${EX}b> . <${EX}t1> <${EX}p> <${EX}${g}x> }`);
    await runUpdate(store, `INSERT DATA { ${things.join('\n')} <${EX}hub> <${EX}name> "hub", "Hub" . ${tags.join('\n')} ${graphs.join('\n')} }`);
  });
  after(() => store.close());

  it('gives every solution all the matches of a constant OPTIONAL pattern', async () => {
    const found = await rows(store, `SELECT ?t ?n WHERE { ?t a <${EX}Thing> OPTIONAL { <${EX}hub> <${EX}name> ?n } }`);
    assert.equal(found.length, 80);
    assert.equal(found.filter((r) => r.endsWith(' hub')).length, 40);
    assert.equal(found.filter((r) => r.endsWith(' Hub')).length, 40);
  });

  it('reads a key with more matches than it keeps again, whole', async () => {
    const found = await rows(store, `SELECT ?t ?v WHERE { ?t a <${EX}Thing> . <${EX}hub> <${EX}tag> ?v }`);
    assert.equal(found.length, 40 * 70);
    assert.equal(new Set(found).size, 40 * 70);
  });

  it('keeps the graph a solution binds when an existence check repeats', async () => {
    const found = await rows(
      store,
      `SELECT ?g ?t WHERE { VALUES ?g { <${EX}g1> <${EX}g2> <${EX}g3> } ?t a <${EX}Thing> GRAPH ?g { <${EX}a> <${EX}p> <${EX}b> } }`,
    );
    assert.equal(found.length, 80);
    assert.deepEqual([...new Set(found.map((r) => r.split(' ')[0]))], ['g1', 'g2']);
  });

  it('does not mix in the matches of a look-up over several graphs', async () => {
    const query = `SELECT ?g ?o FROM NAMED <${EX}g1> FROM NAMED <${EX}g2> WHERE {
      VALUES (?t ?g) { (<${EX}t1> <${EX}g1>) (<${EX}t1> UNDEF) (<${EX}t1> <${EX}g1>) } GRAPH ?g { ?t <${EX}p> ?o } }`;
    assert.deepEqual(await rows(store, query), ['g1 g1x', 'g1 g1x', 'g1 g1x', 'g2 g2x']);
  });

  it('does not carry matches over to a key that differs', async () => {
    const found = await rows(
      store,
      `SELECT ?t ?o WHERE { VALUES ?t { <${EX}t1> <${EX}t1> <${EX}t2> <${EX}t1> } OPTIONAL { GRAPH <${EX}g1> { ?t <${EX}p> ?o } } }`,
    );
    assert.deepEqual(found, ['t1 g1x', 't1 g1x', 't1 g1x', 't2 -']);
  });
});

describe('a pattern that matches the whole store', () => {
  // Several batches' worth: the first batch must not wait for the others.
  const TRIPLES = 5 * BATCH_SIZE;
  let store: QuadStore;
  let quadsRead = 0;
  /** The store, its readers' scans counting the quads they hand out. */
  let counted: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    const triples = Array.from({ length: TRIPLES }, (_, i) => `<${EX}s${i}> <${EX}p> ${i} .`);
    await runUpdate(store, `INSERT DATA { ${triples.join('\n')} }`);
    counted = Object.assign(Object.create(store) as QuadStore, {
      reader: () => {
        const reader = store.reader();
        return Object.assign(Object.create(reader) as StoreReader, {
          scan: function* (s: number, p: number, o: number, g: number) {
            for (const quad of reader.scan(s, p, o, g)) {
              quadsRead++;
              yield quad;
            }
          },
        });
      },
    });
  });
  after(() => store.close());

  it('hands on its first solutions before it has read the rest', async () => {
    quadsRead = 0;
    const result = await runQuery(counted, 'SELECT * WHERE { ?s ?p ?o }');
    assert.equal(result.kind, 'bindings');
    if (result.kind !== 'bindings') return;
    const batches = result.rows[Symbol.iterator]();
    assert.equal(batches.next().done, false);
    assert.ok(quadsRead < TRIPLES / 2, `read ${quadsRead} quads for the first batch`);
    batches.return?.();
  });

  it('answers ASK at its first match', async () => {
    quadsRead = 0;
    const result = await runQuery(counted, 'ASK { ?s ?p ?o }');
    assert.deepEqual(result.kind === 'boolean' && result.value, true);
    assert.ok(quadsRead < TRIPLES / 2, `read ${quadsRead} quads`);
  });
});

describe('a pattern whose solutions each match many quads', () => {
  // 1,000 subjects with 40 values each: look-ups for all of them read every one of the 40,000
  // quads, besides their own cost, so the join turns to a hash table part way through; a rule
  // that weighed only the number of look-ups (8,000 quads' worth) never would.
  const SUBJECTS = 1000;
  const VALUES = 40;
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    const triples: string[] = [];
    for (let s = 0; s < SUBJECTS; s++) {
      triples.push(`<${EX}s${s}> <${EX}k> ${s} .`);
      for (let v = 0; v < VALUES; v++) triples.push(`<${EX}s${s}> <${EX}m> ${v} .`);
    }
    await runUpdate(store, `INSERT DATA { ${triples.join('\n')} }`);
  });
  after(() => store.close());

  it('is joined by hash once its look-ups have read as much as the table holds, with the same answers', async () => {
    const query = `SELECT ?s ?k ?v WHERE { ?s <${EX}k> ?k . ?s <${EX}m> ?v }`;
    const explained = await explainQuery(store, query);
    assert.equal(explained.resultRows, SUBJECTS * VALUES);
    const scans = collect(explained.plan).filter((n) => n.details.includes(`<${EX}m>`));
    assert.ok(
      scans.some((n) => n.details.endsWith('(hash join)')),
      JSON.stringify(explained.plan),
    );
    const plain = await rows(store, query, { fastPaths: { hashJoins: false } });
    assert.equal(plain.length, SUBJECTS * VALUES);
    assert.deepEqual(await rows(store, query), plain);
  });

  it('is looked up when each solution reads one quad of a large table', async () => {
    // :one holds a quad for each of the 1,000 subjects and 40,000 for others: the look-ups read
    // 1,000 quads, far less than building the table would.
    const others = Array.from({ length: SUBJECTS * VALUES }, (_, i) => `<${EX}other${i}> <${EX}one> ${i} .`);
    const own = Array.from({ length: SUBJECTS }, (_, s) => `<${EX}s${s}> <${EX}one> ${s} .`);
    await runUpdate(store, `INSERT DATA { ${others.join('\n')} ${own.join('\n')} }`);
    const query = `SELECT ?s ?k ?v WHERE { ?s <${EX}k> ?k . ?s <${EX}one> ?v }`;
    const explained = await explainQuery(store, query);
    assert.equal(explained.resultRows, SUBJECTS);
    const scans = collect(explained.plan).filter((n) => n.details.includes(`<${EX}one>`));
    assert.ok(!scans.some((n) => n.details.endsWith('(hash join)')), JSON.stringify(explained.plan));
    assert.deepEqual(await rows(store, query), await rows(store, query, { fastPaths: { hashJoins: false } }));
  });
});

function collect(node: PlanNode): PlanNode[] {
  return [node, ...node.children.flatMap(collect)];
}

describe('an open scan of a predicate (?s :p ?o) run again and again', () => {
  let store: QuadStore;
  const QUADS = 500;

  before(async () => {
    store = openStore({ memory: true });
    const quads = Array.from({ length: QUADS }, (_, i) => `<${EX}s${i % 97}> <${EX}open> <${EX}o${(i * 13) % 250}> .`);
    // More than a batch: a LIMIT stops the scan before its end.
    const many = Array.from({ length: 3 * BATCH_SIZE }, (_, i) => `<${EX}s${i}> <${EX}cut> ${i} .`);
    await runUpdate(store, `INSERT DATA { ${quads.join('\n')} ${many.join('\n')} }`);
  });
  after(() => store.close());

  /** Whether the plan's scan read a table in memory. */
  async function fromTable(query: string): Promise<boolean> {
    return JSON.stringify((await explainQuery(store, query, {})).plan).includes('(cached table)');
  }

  /** The answers in the order they come. */
  async function inOrder(query: string, options?: EngineQueryOptions): Promise<string[]> {
    const result = await runQuery(store, query, options);
    const out: string[] = [];
    if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => t?.value).join(' '));
    return out;
  }

  it('reads the store twice, then the table its second scan kept, in the same order', async () => {
    const query = `SELECT ?s ?o WHERE { ?s <${EX}open> ?o }`;
    const fromStore = await inOrder(query, { fastPaths: { cachedScans: false } });
    assert.equal(fromStore.length, QUADS);
    assert.equal(await fromTable(query), false);
    assert.equal(await fromTable(query), false);
    assert.equal(await fromTable(query), true);
    assert.deepEqual(await inOrder(query), fromStore);
  });

  it('keeps no table from a scan that a LIMIT cut short', async () => {
    const query = `SELECT ?o WHERE { ?s <${EX}cut> ?o } LIMIT 2`;
    for (let i = 0; i < 3; i++) assert.equal(await fromTable(query), false);
    assert.equal(await fromTable(`SELECT ?o WHERE { ?s <${EX}cut> ?o }`), false);
    assert.equal(await fromTable(`SELECT ?o WHERE { ?s <${EX}cut> ?o }`), true);
  });

  it('keeps no table after a write: the store content differs', async () => {
    const query = `SELECT ?s ?o WHERE { ?s <${EX}open> ?o }`;
    await rows(store, query);
    await rows(store, query);
    await runUpdate(store, `INSERT DATA { <${EX}new> <${EX}open> <${EX}x> }`);
    assert.equal(await fromTable(query), false);
    assert.equal((await rows(store, query)).length, QUADS + 1);
  });
});

describe('a pattern looked up for many solutions in query after query', () => {
  let store: QuadStore;
  const BIG = 2000;
  const SOLUTIONS = 100;

  before(async () => {
    store = openStore({ memory: true });
    const big = Array.from({ length: BIG }, (_, i) => `<${EX}s${i}> <${EX}big> ${i} .`);
    // Half the solutions have no quad in <big>: subjects t0, t1, …
    const small = Array.from({ length: SOLUTIONS }, (_, i) => `<${EX}${i % 2 ? 's' : 't'}${i * 7}> <${EX}small> true .`);
    await runUpdate(store, `INSERT DATA { ${big.join('\n')} ${small.join('\n')} }`);
  });
  after(() => store.close());

  const OFF: EngineQueryOptions = { fastPaths: { hashJoins: false } };

  it('is joined by hash once the look-ups of the queries before cost as much as its table', async () => {
    const query = `SELECT ?s ?v WHERE { ?s <${EX}small> true . ?s <${EX}big> ?v }`;
    const expected = await rows(store, query, OFF);
    assert.equal(expected.length, SOLUTIONS / 2);
    const hashed: boolean[] = [];
    for (let run = 0; run < 5; run++) {
      hashed.push(JSON.stringify((await explainQuery(store, query, {})).plan).includes('(hash join)'));
      assert.deepEqual(await rows(store, query), expected);
    }
    assert.equal(hashed[0], false);
    assert.equal(hashed[4], true);
  });

  it('answers EXISTS and NOT EXISTS from a table once their probes cost as much, as from the store', async () => {
    for (const filter of ['EXISTS', 'NOT EXISTS']) {
      const query = `SELECT ?s WHERE { ?s <${EX}small> true FILTER ${filter} { ?s <${EX}big> ?v } }`;
      const expected = await rows(store, query, OFF);
      assert.equal(expected.length, SOLUTIONS / 2);
      for (let run = 0; run < 40; run++) assert.deepEqual(await rows(store, query), expected, `${filter}, run ${run}`);
    }
  });
});
