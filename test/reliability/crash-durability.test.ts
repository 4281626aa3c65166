/**
 * Durability under crashes: several clients stream updates at the real server, which is killed
 * with SIGKILL at a random moment and restarted on the same store, again and again. Every
 * acknowledged update must survive, and no request may be half there.
 *
 * CI: 10 kills. Full run (QUIVER_FULL=1, or QUIVER_CRASH_ITERATIONS=N): 50. Replay: QUIVER_SEED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Random, seedFromEnv } from './prng.js';
import { runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { postUpdate, selectRows, sleep } from './sparql-client.js';
import { CrashLedger, clientGraph, deleteUpdate, insertUpdate, itemIri, moveUpdate, type FoundTriple, type Outcome } from './crash-ledger.js';

const ITERATIONS = runSize('QUIVER_CRASH_ITERATIONS', 10, 50);
const CLIENTS = 4;
const ITEMS_PER_CLIENT = 4;
const KILL_AFTER_MS: [number, number] = [50, 700];

test(`acknowledged updates survive ${ITERATIONS} kills (SIGKILL) and no request is half applied`, { timeout: timeLimit(240_000, 900_000) }, async () => {
  const seed = seedFromEnv();
  const random = new Random(seed);
  const store = mkdtempSync(join(tmpdir(), 'quiver-crash-'));
  const ledger = new CrashLedger();
  console.log(`crash harness: seed ${seed} (replay with QUIVER_SEED=${seed}), ${ITERATIONS} iterations, ${CLIENTS} clients`);
  try {
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const server = await startServerProcess(['--store', store, '--workers', '1']);
      try {
        assertNoProblems(ledger.check(await storeContent(server.origin)), seed, iteration);
        const killed = { now: false };
        const clients = Array.from({ length: CLIENTS }, (_, c) => runClient(server, c, iteration, random, ledger, killed));
        await sleep(random.int(...KILL_AFTER_MS));
        killed.now = true;
        await server.stop('SIGKILL');
        await Promise.all(clients);
      } finally {
        if (server.alive()) await server.stop('SIGKILL');
      }
    }
    const server = await startServerProcess(['--store', store, '--workers', '1']);
    try {
      assertNoProblems(ledger.check(await storeContent(server.origin)), seed, ITERATIONS);
    } finally {
      await server.stop('SIGTERM');
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
  const t = ledger.totals;
  console.log(
    `crash harness totals: iterations ${ITERATIONS}, acknowledged ${t.acknowledged}, verified ${t.verified}, ` +
      `superseded before a check ${t.superseded}, lost ${t.lost}, partial ${t.partial}`,
  );
  assert.equal(t.lost, 0);
  assert.equal(t.partial, 0);
  assert.ok(t.acknowledged >= ITERATIONS, `too few updates were acknowledged (${t.acknowledged}) for the test to mean anything`);
  assert.equal(t.acknowledged, t.verified + t.superseded);
});

function assertNoProblems(problems: string[], seed: number, iteration: number): void {
  assert.deepEqual(problems, [], `after kill ${iteration} (seed ${seed}):\n${problems.slice(0, 20).join('\n')}`);
}

/** One client: sends updates one after the other until the server is killed. */
async function runClient(
  server: ServerProcess,
  client: number,
  iteration: number,
  random: Random,
  ledger: CrashLedger,
  killed: { now: boolean },
): Promise<void> {
  for (let seq = 0; !killed.now; seq++) {
    const id = `${iteration}.${client}.${seq}`;
    const choice = random.next();
    const deletable = ledger.deletable(client);
    if (choice < 0.25 && deletable.length > 0) {
      const victim = random.pick(deletable);
      ledger.recordDelete(victim, await send(server, deleteUpdate(victim, client), killed));
    } else if (choice < 0.55) {
      const item = itemIri(client, random.int(0, ITEMS_PER_CLIENT - 1));
      ledger.recordMove(id, item, await send(server, moveUpdate(id, item), killed));
    } else {
      ledger.recordInsert(id, client, await send(server, insertUpdate(id, client), killed));
    }
  }
}

/**
 * 'acknowledged' on 200/204. A request cut off by the kill has an unknown outcome; any other
 * answer while the server is up is a failure of its own.
 */
async function send(server: ServerProcess, text: string, killed: { now: boolean }): Promise<Outcome> {
  try {
    const response = await postUpdate(server.origin, text);
    const body = await response.text();
    if (response.status === 200 || response.status === 204) return 'acknowledged';
    if (!killed.now) throw new Error(`update answered ${response.status}: ${body}\n${text}`);
    return 'unknown';
  } catch (error) {
    if (killed.now || !server.alive()) return 'unknown';
    throw error;
  }
}

async function storeContent(origin: string): Promise<FoundTriple[]> {
  const rows = await selectRows(origin, `SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }`);
  const found = rows.map((row) => ({ s: row['s']!.value, p: row['p']!.value, o: row['o']!.value, g: row['g']?.value ?? '' }));
  for (const t of found) {
    if (t.g !== '' && !t.g.startsWith(clientGraph(0).slice(0, -1))) throw new Error(`unexpected graph ${t.g}`);
  }
  return found;
}
