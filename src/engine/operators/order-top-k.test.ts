import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { runQuery, runUpdate } from '../query-engine.js';
import { explainQuery } from '../explain.js';

const EX = 'http://example.org/';
const ROWS = 3000;

async function rows(store: QuadStore, query: string): Promise<string[]> {
  const result = await runQuery(store, query);
  assert.equal(result.kind, 'bindings');
  const out: string[] = [];
  if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => t?.value ?? '-').join(' '));
  return out;
}

describe('ORDER BY under LIMIT keeps only the best rows (top-k)', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    // Many ties: ?v takes 101 values over 3,000 subjects, ?w five.
    const triples = Array.from({ length: ROWS }, (_, i) => `<${EX}s${i}> <${EX}v> ${(i * 7919) % 101} ; <${EX}w> ${i % 5} .`);
    await runUpdate(store, `INSERT DATA { ${triples.join('\n')} }`);
  });
  after(() => store.close());

  const cases: [order: string, offset: number, limit: number][] = [
    ['?v', 0, 5],
    ['DESC(?v) ?s', 7, 10],
    ['?w', 0, 300],
    ['?w DESC(?v)', ROWS - 10, 30],
    ['?unbound ?v', 0, 4],
    ['?v', 0, 0],
  ];
  for (const [order, offset, limit] of cases) {
    it(`ORDER BY ${order} OFFSET ${offset} LIMIT ${limit} is that slice of the full sort, ties in the same order`, async () => {
      const query = `SELECT ?s ?v ?w WHERE { ?s <${EX}v> ?v ; <${EX}w> ?w } ORDER BY ${order}`;
      const all = await rows(store, query);
      assert.equal(all.length, ROWS);
      assert.deepEqual(await rows(store, `${query} OFFSET ${offset} LIMIT ${limit}`), all.slice(offset, offset + limit));
    });
  }

  it('explain names the bound; without the optimizer the sort is a full one', async () => {
    const query = `SELECT ?s WHERE { ?s <${EX}v> ?v } ORDER BY ?v LIMIT 3`;
    const plan = JSON.stringify((await explainQuery(store, query, {})).plan);
    assert.match(plan, /"operator":"OrderBy","details":"1 key, top 3"/);
    const unoptimized = JSON.stringify((await explainQuery(store, query, { optimize: false })).plan);
    assert.match(unoptimized, /"operator":"OrderBy","details":"1 key"/);
  });

  it('DISTINCT between the sort and the limit keeps the full sort', async () => {
    const plan = JSON.stringify((await explainQuery(store, `SELECT DISTINCT ?w WHERE { ?s <${EX}w> ?w } ORDER BY ?w LIMIT 2`, {})).plan);
    assert.match(plan, /"operator":"OrderBy","details":"1 key"/);
    assert.deepEqual(await rows(store, `SELECT DISTINCT ?w WHERE { ?s <${EX}w> ?w } ORDER BY ?w LIMIT 2`), ['0', '1']);
  });
});
