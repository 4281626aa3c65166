/**
 * `quiver load` beside a running `quiver serve` on the same store (issue 18, "one writer, whoever
 * writes"): while clients send INSERT DATA updates to the server, a load of an N-Quads file runs into
 * the same directory, empty or not, and either finishes, fails on a syntax error, or is SIGKILLed at a
 * seeded point; then the server is SIGKILLed too and restarted. Every acknowledged update must be
 * there, each file's data all there or not at all (all when its load exited 0, none when it failed),
 * and the store sound by checkStoreConsistency (indexes agree, no literal subjects, dictionary and
 * statistics right). The loads run with small stages: were a load into an empty store beside the
 * server to take the staged path, the server's writes would interleave with many stages.
 *
 * CI: 6 rounds (two of each ending). Full (QUIVER_FULL=1, or QUIVER_LOAD_BESIDE_ROUNDS=N): 50, about
 * half of them with the load SIGKILLed. Replay the choices: QUIVER_SEED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkStoreConsistency } from '../../src/store/consistency-check.js';
import { Random, seedFromEnv } from './prng.js';
import { runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { postUpdate, selectRows, sleep } from './sparql-client.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const ROUNDS = runSize('QUIVER_LOAD_BESIDE_ROUNDS', 6, 50);
const STATEMENTS = 15_000;
const CLIENTS = 2;
const EX = 'http://example.org/';
const ACKED = `${EX}acked`;

type Ending = 'finish' | 'syntax' | 'kill';

interface LoadRecord {
  round: number;
  ending: Ending;
  /** Exit code; null when killed. */
  code: number | null;
}

interface Ledger {
  /** Subjects of acknowledged updates, each a triple `<subject> acked "..."` (some in a named graph). */
  acknowledged: string[];
  loads: LoadRecord[];
}

test(
  `acknowledged writes and loads beside a running server survive ${ROUNDS} rounds of finished, failed and SIGKILLed loads`,
  { timeout: timeLimit(180_000, 1_200_000) },
  async () => {
    const seed = seedFromEnv();
    const random = new Random(seed, 'load-beside-serve');
    const root = mkdtempSync(join(tmpdir(), 'quiver-load-beside-'));
    console.log(`load beside serve: seed ${seed} (replay with QUIVER_SEED=${seed}), ${ROUNDS} rounds`);
    const totals = { acknowledged: 0, loadsFinished: 0, loadsFailed: 0, loadsKilled: 0, killedLoadsPresent: 0, freshStores: 0 };
    let store = '';
    let ledger: Ledger = { acknowledged: [], loads: [] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const fresh = round === 0 || random.chance(0.5);
        if (fresh) {
          store = join(root, `store-${round}`);
          ledger = { acknowledged: [], loads: [] };
          totals.freshStores++;
        }
        const ending: Ending =
          ROUNDS <= 6 ? (['finish', 'syntax', 'kill'] as const)[round % 3] : random.chance(0.5) ? 'kill' : random.pick(['finish', 'syntax'] as const);
        // Clients first (the store has data when the load starts), or only once the load is under way.
        const writesFirst = random.chance(0.3);
        const context = `round ${round} (seed ${seed}, ${fresh ? 'fresh' : 'reused'} store, ${ending}, ${writesFirst ? 'writes first' : 'load first'})`;
        const file = join(root, `round-${round}.nq`);
        writeFileSync(file, loadFile(round, ending === 'syntax' ? random.int(STATEMENTS / 4, (3 * STATEMENTS) / 4) : undefined));

        const server = await startServerProcess(['--store', store, '--workers', '1']);
        try {
          const stop = { now: false };
          const writes: Promise<void>[] = [];
          const startClients = () => {
            for (let c = 0; c < CLIENTS; c++) writes.push(runClient(server, round, c, random, ledger, stop, context));
          };
          if (writesFirst) {
            startClients();
            await sleep(random.int(20, 200));
          }
          const load = startLoad(store, file);
          await load.started;
          if (!writesFirst) startClients();
          if (ending === 'kill') {
            const byTime = random.chance(0.3);
            const at = byTime ? random.int(0, 1000) : random.int(0, STATEMENTS);
            await (byTime ? Promise.race([sleep(at), load.exited]) : load.progressedPast(at));
            load.child.kill('SIGKILL');
          }
          const { code, signal } = await load.exited;
          assert.ok(server.alive(), `${context}: the server died\n${server.stderr()}`);
          const record: LoadRecord = { round, ending, code: signal === 'SIGKILL' ? null : code };
          if (ending !== 'kill') assert.equal(record.code, ending === 'finish' ? 0 : 1, `${context}: load exit\n${load.stderr()}`);
          if (ending === 'syntax') assert.match(load.stderr(), /round-\d+\.nq:\d+/, `${context}: the error names the line`);
          if (ending !== 'kill' && fresh && !writesFirst)
            assert.match(load.stderr(), /the store is open in process/, `${context}: an empty store open in the server is loaded in one transaction`);
          ledger.loads.push(record);
          totals[record.code === null ? 'loadsKilled' : record.code === 0 ? 'loadsFinished' : 'loadsFailed']++;
          // The server goes on taking writes after the load, then is killed too.
          await sleep(random.int(50, 300));
          stop.now = true;
          await server.stop('SIGKILL');
          await Promise.all(writes);
        } finally {
          if (server.alive()) await server.stop('SIGKILL');
        }

        // The store as the kills left it, before any recovery, then through a restarted server.
        const check = await checkStoreConsistency(store);
        assert.deepEqual(check.problems, [], `${context}: the store is not sound`);
        const restarted = await startServerProcess(['--store', store, '--workers', '1']);
        try {
          const present = new Set(
            (await selectRows(restarted.origin, `SELECT ?s WHERE { { ?s <${ACKED}> ?o } UNION { GRAPH ?g { ?s <${ACKED}> ?o } } }`)).map(
              (row) => row['s']!.value,
            ),
          );
          const lost = ledger.acknowledged.filter((subject) => !present.has(subject));
          assert.deepEqual(lost.slice(0, 10), [], `${context}: ${lost.length} of ${ledger.acknowledged.length} acknowledged updates lost`);
          for (const load of ledger.loads) {
            const found = await loadedStatements(restarted.origin, load.round);
            const expected = load.code === null ? [0, STATEMENTS] : [load.code === 0 ? STATEMENTS : 0];
            assert.ok(
              expected.includes(found),
              `${context}: round ${load.round}'s load (${load.ending}, exit ${load.code}) left ${found} of ${STATEMENTS} statements`,
            );
            if (load.round === round && load.code === null && found === STATEMENTS) totals.killedLoadsPresent++;
          }
        } finally {
          await restarted.stop('SIGKILL');
        }
        totals.acknowledged += ledger.acknowledged.filter((subject) => subject.startsWith(`${EX}ack/${round}/`)).length;
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    console.log(
      `load beside serve totals: rounds ${ROUNDS} (${totals.freshStores} on a fresh store), acknowledged updates ${totals.acknowledged}, 0 lost; ` +
        `loads finished ${totals.loadsFinished}, failed ${totals.loadsFailed}, killed ${totals.loadsKilled} (${totals.killedLoadsPresent} of them had committed)`,
    );
    assert.ok(totals.acknowledged >= ROUNDS, `too few updates were acknowledged (${totals.acknowledged}) for the test to mean anything`);
  },
);

/**
 * The round's file: STATEMENTS quads about subjects under load/ROUND/, a fifth in named graphs, with
 * IRIs, literals and blank nodes as objects; a broken line at `brokenAt` when given.
 */
function loadFile(round: number, brokenAt?: number): string {
  const lines: string[] = [];
  for (let i = 0; i < STATEMENTS; i++) {
    if (i === brokenAt) lines.push(`<${EX}load/${round}/broken> <${EX}p> .`);
    const s = `<${EX}load/${round}/s${i}>`;
    const o = i % 3 === 0 ? `"value ${i}"` : i % 3 === 1 ? `<${EX}load/${round}/s${(i * 7) % STATEMENTS}>` : `_:b${i % 101}`;
    const g = i % 5 === 0 ? ` <${EX}load/${round}/g${i % 3}>` : '';
    lines.push(`${s} <${EX}p${i % 11}> ${o}${g} .`);
  }
  return lines.join('\n') + '\n';
}

async function loadedStatements(origin: string, round: number): Promise<number> {
  const rows = await selectRows(
    origin,
    `SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } FILTER(STRSTARTS(STR(?s), "${EX}load/${round}/")) }`,
  );
  return Number(rows[0]!['n']!.value);
}

interface LoadProcess {
  child: ReturnType<typeof spawn>;
  /** Resolves once the load has read some of its file (or has ended). */
  started: Promise<void>;
  progressedPast(statements: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

function startLoad(store: string, file: string): LoadProcess {
  const child = spawn(process.execPath, [MAIN, 'load', '--store', store, file], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', QUIVER_PROGRESS_INTERVAL_MS: '20', QUIVER_LOAD_STAGE_STATEMENTS: '2048' },
  });
  let stderr = '';
  let counted = -1;
  const waiting: { at: number; resolve: () => void }[] = [];
  const exited = once(child, 'close').then(([code, signal]) => {
    for (const w of waiting.splice(0)) w.resolve();
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const match of chunk.matchAll(/([\d,]+) statements/g)) counted = Math.max(counted, Number(match[1]!.replace(/,/g, '')));
    for (const w of waiting.filter((w) => counted >= w.at)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  const progressedPast = (statements: number): Promise<void> =>
    counted >= statements || child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => waiting.push({ at: statements, resolve }));
  return { child, started: progressedPast(0), progressedPast, exited, stderr: () => stderr };
}

/** Sends INSERT DATA updates one after the other until told to stop; records the acknowledged ones. */
async function runClient(
  server: ServerProcess,
  round: number,
  client: number,
  random: Random,
  ledger: Ledger,
  stop: { now: boolean },
  context: string,
): Promise<void> {
  for (let seq = 0; !stop.now; seq++) {
    const subject = `${EX}ack/${round}/${client}/${seq}`;
    const triple = `<${subject}> <${ACKED}> "${round} ${client} ${seq}" . <${subject}> <${EX}note> <${EX}load/${round}/s${seq}> .`;
    const text = random.chance(0.3) ? `INSERT DATA { GRAPH <${EX}ack-graph/${client}> { ${triple} } }` : `INSERT DATA { ${triple} }`;
    let response: Response;
    try {
      response = await postUpdate(server.origin, text);
      await response.arrayBuffer();
    } catch (error) {
      if (stop.now || !server.alive()) return;
      throw error;
    }
    if (response.status === 200 || response.status === 204) ledger.acknowledged.push(subject);
    else if (!stop.now && response.status !== 503 && response.status !== 504) throw new Error(`${context}: update answered ${response.status}\n${text}`);
  }
}
