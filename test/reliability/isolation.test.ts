/**
 * Isolation under concurrency: writers move amounts between accounts (the total stays constant)
 * while readers sum the balances; every read must see the total. A long, slowly read result keeps
 * its snapshot while writes commit. Over HTTP against a real server, and on the store API.
 *
 * CI: 5 s of traffic. Full run (QUIVER_FULL=1, or QUIVER_ISOLATION_SECONDS=N): 30 s.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startLocalServer, type RunningServer } from '../http/harness.js';
import { openStore } from '../../src/store/lmdb-store.js';
import { runQuery, runUpdate } from '../../src/engine/query-engine.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { Random, seedFromEnv } from './prng.js';
import { runSize, timeLimit } from './run-size.js';
import { postQuery, postUpdate, selectRows, sleep, update } from './sparql-client.js';
import { CROSS_QUERY, SUM_QUERY, checkSnapshot, openingUpdate, total, transferUpdate, type Bank } from './bank.js';

const SECONDS = runSize('QUIVER_ISOLATION_SECONDS', 5, 30);
const WRITERS = 3;
const READERS = 2;
const FILLERS = 3000;
const seed = seedFromEnv();

describe('isolation over HTTP', { timeout: timeLimit(120_000, 300_000) }, () => {
  const bank: Bank = { accounts: 20, initial: 1000 };
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer();
    await update(server.origin, openingUpdate(bank, FILLERS));
    console.log(`isolation: seed ${seed} (replay with QUIVER_SEED=${seed}), ${SECONDS} s of traffic`);
  });
  after(async () => server.close());

  it('every concurrent SUM sees the constant total while transfers commit', async () => {
    const random = new Random(seed + 1);
    const stopAt = Date.now() + SECONDS * 1000;
    const [writes, reads] = await Promise.all([
      Promise.all(Array.from({ length: WRITERS }, () => transferUntil(server.origin, bank, random, stopAt))),
      Promise.all(Array.from({ length: READERS }, () => sumUntil(server.origin, bank, stopAt))),
    ]);
    const committed = writes.reduce((a, b) => a + b, 0);
    const checked = reads.reduce((a, b) => a + b, 0);
    console.log(`isolation: ${committed} transfers committed, ${checked} concurrent sums all equal to ${total(bank)}`);
    assert.ok(committed > 10 && checked > 10, `too little traffic: ${committed} transfers, ${checked} sums`);
  });

  it('a slowly read streamed result keeps its snapshot while transfers commit', async () => {
    const random = new Random(seed + 2);
    const response = await postQuery(server.origin, CROSS_QUERY, 'text/csv');
    assert.equal(response.status, 200);
    let streaming = true;
    let committedMeanwhile = 0;
    const writer = (async () => {
      while (streaming) {
        const answer = await postUpdate(server.origin, transferUpdate(bank, random));
        await answer.text();
        assert.equal(answer.status, 200);
        if (streaming) committedMeanwhile++;
      }
    })();
    const rows = await readCsvSlowly(response);
    streaming = false;
    await writer;
    const seen = checkSnapshot(bank, FILLERS, rows);
    const now = await balances(server.origin);
    const changed = [...seen].filter(([a, b]) => now.get(a) !== b).length;
    console.log(`isolation: ${rows.length} rows read slowly from one snapshot while ${committedMeanwhile} transfers committed; ${changed} balances differ now`);
    assert.ok(committedMeanwhile > 0, 'no transfer committed while the result was read');
    assert.ok(changed > 0, 'the balances read are still current: the snapshot was not tested');
  });
});

describe('isolation on the store API', () => {
  const bank: Bank = { accounts: 10, initial: 500 };
  let store: QuadStore;
  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(store, openingUpdate(bank, 500));
  });
  after(async () => store.close());

  it('a lazily pulled result keeps its snapshot while the same thread commits transfers', async () => {
    const random = new Random(seed + 3);
    const result = await runQuery(store, CROSS_QUERY);
    assert.equal(result.kind, 'bindings');
    const [a, b] = ['a', 'b'].map((v) => result.variables.indexOf(v));
    const rows: [string, number][] = [];
    let transfers = 0;
    for (const batch of result.rows) {
      for (const row of batch) rows.push([row[a]!.value, Number(row[b]!.value)]);
      // Commit between the batches of the open result.
      await runUpdate(store, transferUpdate(bank, random));
      transfers++;
    }
    const seen = checkSnapshot(bank, 500, rows);
    const fresh = await runQuery(store, SUM_QUERY);
    assert.equal(fresh.kind, 'bindings');
    const [[totalNow]] = [...fresh.rows].flat();
    assert.equal(Number(totalNow!.value), total(bank));
    assert.ok(transfers > 1, 'the result came in one batch: nothing committed while it was open');
    assert.ok(seen.size === bank.accounts);
  });
});

/** Transfers until the deadline; returns how many committed. */
async function transferUntil(origin: string, bank: Bank, random: Random, stopAt: number): Promise<number> {
  let committed = 0;
  while (Date.now() < stopAt) {
    const response = await postUpdate(origin, transferUpdate(bank, random));
    const body = await response.text();
    assert.equal(response.status, 200, body);
    committed++;
  }
  return committed;
}

/** Sums until the deadline, checking each; returns how many sums were checked. */
async function sumUntil(origin: string, bank: Bank, stopAt: number): Promise<number> {
  let checked = 0;
  while (Date.now() < stopAt) {
    const [row] = await selectRows(origin, SUM_QUERY);
    assert.equal(Number(row['total']!.value), total(bank), 'a read saw a total that no committed state has');
    assert.equal(Number(row['n']!.value), bank.accounts, 'a read saw an account with no balance, or with two');
    checked++;
  }
  return checked;
}

async function balances(origin: string): Promise<Map<string, number>> {
  const rows = await selectRows(origin, SUM_QUERY.replace('(SUM(?b) AS ?total) (COUNT(?b) AS ?n)', '?a ?b'));
  return new Map(rows.map((row) => [row['a']!.value, Number(row['b']!.value)]));
}

/** The (account, balance) columns of a CSV result, read in small pauses to hold the stream open. */
async function readCsvSlowly(response: Response): Promise<[string, number][]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    await sleep(2);
  }
  const lines = text.split('\r\n').filter((line) => line !== '');
  assert.equal(lines[0], 'a,b,f');
  return lines.slice(1).map((line) => {
    const [a, b] = line.split(',');
    return [a, Number(b)];
  });
}
