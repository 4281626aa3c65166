import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import { runQuery, runUpdate } from './query-engine.js';
import { ResourceLimitError } from '../errors.js';
import { chargeRequestText } from './text-memory.js';
import { StatementMemory } from './update/load-documents.js';
import { namedNode, literal, factory, defaultGraph } from '../rdf/terms.js';

const NS = 'urn:budget:';
const MIB = 2 ** 20;
const CROSS = `?a a <${NS}A> . ?b a <${NS}B> . ?c a <${NS}C> .`;

/** Every row of a result, pulled (errors of evaluation surface here). */
async function rowCount(store: QuadStore, query: string, memoryBudget?: number): Promise<number> {
  const result = await runQuery(store, query, { memoryBudget });
  assert.equal(result.kind, 'bindings');
  let n = 0;
  if (result.kind === 'bindings') for (const batch of result.rows) n += batch.length;
  return n;
}

function valuesQuery(values: number): string {
  const parts = Array.from({ length: values }, (_, i) => `"v${i}"`);
  return `SELECT (COUNT(*) AS ?n) WHERE { VALUES ?x { ${parts.join(' ')} } }`;
}

describe('what counts against a query memory budget', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    const lines: string[] = [];
    for (const set of ['A', 'B', 'C']) for (let i = 0; i < 60; i++) lines.push(`<${NS}${set}/${i}> a <${NS}${set}> .`);
    await runUpdate(store, `INSERT DATA { ${lines.join('\n')} }`);
  });
  after(async () => store.close());

  it('the sort keys of ORDER BY: 216,000 rows need more than 8 MiB, and pass without a budget', async () => {
    const query = `SELECT ?a ?b ?c WHERE { ${CROSS} } ORDER BY ?c ?b ?a`;
    await assert.rejects(
      rowCount(store, query, 8 * MIB),
      (error: Error) => error instanceof ResourceLimitError && /memory budget of 8 MiB/.test(error.message),
    );
    assert.equal(await rowCount(store, query), 216_000);
  });

  it('only the candidates of ORDER BY … LIMIT: the dropped ones give their memory back', async () => {
    assert.equal(await rowCount(store, `SELECT ?a ?b ?c WHERE { ${CROSS} } ORDER BY DESC(?c) ?b ?a LIMIT 5`, 4 * MIB), 5);
  });

  it('groups, each with its key and accumulators', async () => {
    const query = `SELECT ?a ?b ?c (COUNT(*) AS ?n) WHERE { ${CROSS} } GROUP BY ?a ?b ?c`;
    await assert.rejects(rowCount(store, query, 16 * MIB), ResourceLimitError);
    assert.equal(await rowCount(store, query, 256 * MIB), 216_000);
  });

  it('the parse of the query text, before the parser sees it, with the sizes in the message', async () => {
    const big = valuesQuery(100_000);
    await assert.rejects(runQuery(store, big, { memoryBudget: 16 * MIB }), (error: Error) => {
      assert.ok(error instanceof ResourceLimitError, String(error));
      assert.match(error.message, /^the query text \([\d.]+ MiB\) needs about \d+ MiB of memory to parse, more than its memory budget of 16 MiB$/);
      return true;
    });
    assert.equal(await rowCount(store, big, 512 * MIB), 1);
  });

  it('the parse of an update text, likewise', async () => {
    const triples = Array.from({ length: 50_000 }, (_, i) => `<${NS}s/${i}> <${NS}p> ${i} .`).join('\n');
    await assert.rejects(runUpdate(store, `INSERT DATA { ${triples} }`, { memoryBudget: 8 * MIB }), /the update text .* more than its memory budget of 8 MiB/);
  });

  it('charges what the parse keeps for the evaluation, and nothing without a budget', () => {
    assert.equal(chargeRequestText(valuesQuery(1000), undefined, 'query'), 0);
    const kept = chargeRequestText(valuesQuery(1000), 64 * MIB, 'query');
    assert.ok(kept > 100_000 && kept < 4 * MIB, `${kept}`);
  });

  it("the statements of an update's LOAD documents", () => {
    const memory = new StatementMemory(64 * 1024, 1000);
    const quad = factory.quad(namedNode(`${NS}s`), namedNode(`${NS}p`), literal('a value'), defaultGraph());
    memory.charge([quad], 'LOAD <x>');
    assert.ok(memory.held > 1000);
    assert.throws(
      () =>
        memory.charge(
          Array.from({ length: 1000 }, () => quad),
          'LOAD <x>',
        ),
      /LOAD <x>: the statements need more than the update's memory budget of 64 KiB$/,
    );
    new StatementMemory(undefined).charge(
      Array.from({ length: 1000 }, () => quad),
      'LOAD <x>',
    );
  });
});
