/**
 * Hostile input: mutated W3C queries and updates, random bytes, invalid UTF-8 and odd media types
 * sent at a real `quiver serve --memory`. The server must not crash, must not answer 500 to a
 * request that does not parse, must not hang, and must keep answering {base}/health.
 *
 * One request in eight is an update or query made to fetch and move graphs (fuzz-remote.ts): LOAD
 * and SERVICE of a hostile peer the test runs (endless, trickling, garbage, silent, …), of the server
 * itself, of loopback spellings, private addresses and names it must refuse, with GRAPH, COPY, MOVE
 * and the like, then mutated like the rest. The server must never quote what it fetched (SECRET),
 * never connect to the sentinel, and give up every download; a failed LOAD or SERVICE is one more
 * failed operation that may answer 500. Every request that fetches is confined to this machine.
 *
 * CI: 3,000 requests. Full run (QUIVER_FULL=1, or QUIVER_FUZZ_REQUESTS=N): 100,000.
 * Replay a run with QUIVER_SEED (the sequence of requests is the seed's; their interleaving is not).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Random, seedFromEnv } from './prng.js';
import { runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { isHealthy, postUpdate, sleep, update } from './sparql-client.js';
import { loadCorpus } from './fuzz-corpus.js';
import { mutate } from './fuzz-mutations.js';
import { buildRequest, describeRequest, type FuzzRequest } from './fuzz-requests.js';
import { confineFetches, RemoteFuzz } from './fuzz-remote.js';
import { SECRET, startHostilePeer, startSentinel, type HostilePeer } from './hostile-peer.js';
import { TargetSpellings } from './target-spellings.js';
import { freePort } from './server-process.js';

const REQUESTS = runSize('QUIVER_FUZZ_REQUESTS', 3000, 100_000);
const CONCURRENCY = 8;
const HEALTH_EVERY = 200;
const RESET_EVERY = 2000;
/** The share of requests made to fetch (LOAD, SERVICE) and move graphs. */
const REMOTE_SHARE = 1 / 8;
/** Well past the server's own time limits (10 s): only a hang takes this long. */
const HANG_MS = 60_000;

/** Data for the queries to chew on: numbers, strings, languages, dates, named graphs. */
const DATA = `PREFIX : <http://example.org/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
DROP SILENT ALL ;
INSERT DATA {
  :a :p 1, 2.5, "3"^^xsd:decimal, 4e0, "x", "y"@en, "z"@fr-BE, :b, "2020-01-01T00:00:00Z"^^xsd:dateTime, true, "NaN"^^xsd:double .
  :b :p :c ; :q :a ; :r "" , "\\u00e9\\u0000\\t" .
  :c :p :a ; a :T ; :name "Carol" .
  _:x :p _:y . _:y :q 7 .
  GRAPH :g1 { :a :p :b . :b :p :c }
  GRAPH :g2 { :c :q "in g2" }
}`;

interface Failure {
  kind: 'status 500' | 'hang' | 'connection error' | 'health' | 'echo';
  request?: string;
  body?: string;
  mutations?: string[];
  raw?: { path: string; headers: Record<string, string>; body?: string };
}

test(`the server survives ${REQUESTS} hostile requests`, { timeout: timeLimit(600_000, 7_200_000) }, async () => {
  const seed = seedFromEnv();
  const random = new Random(seed);
  const { corpus, source } = loadCorpus();
  console.log(`fuzz: seed ${seed} (replay with QUIVER_SEED=${seed}), ${REQUESTS} requests, seeds: ${source}`);
  const peer = await startHostilePeer();
  const sentinel = await startSentinel();
  const targets = await TargetSpellings.resolve({ peer: peer.port, self: await freePort(), sentinel: sentinel.port });
  const remote = new RemoteFuzz(peer, targets);
  const server = await startServerProcess([
    ...['--memory', '--workers', '2', '--query-timeout', '10', '--update-timeout', '10', '--port', String(targets.ports.self)],
    ...['--fetch-allow', targets.allowList, '--max-fetch-bytes', '1MiB', '--fetch-timeout', '1'],
  ]);
  const statuses = new Map<number, number>();
  const evaluationErrors = new Map<string, number>();
  const failures: Failure[] = [];
  const slowest: Slow[] = [];
  let sent = 0;
  const started = Date.now();
  try {
    await update(server.origin, DATA);
    const next = (): { request: FuzzRequest; mutations: string[] } | undefined => {
      if (sent >= REQUESTS) return undefined;
      sent++;
      const fetching = random.chance(REMOTE_SHARE);
      // Most fetching requests are updates: LOADs, and graphs moved about.
      const kind = random.chance(fetching ? 0.4 : 0.7) ? 'query' : 'update';
      const text = fetching
        ? kind === 'query'
          ? remote.query(random)
          : remote.update(random)
        : random.pick(kind === 'query' ? corpus.queries : corpus.updates);
      // Half the fetching requests go as made, the other half mutated like the rest.
      const { body, applied } = fetching && random.chance(0.5) ? { body: Buffer.from(text), applied: ['remote'] } : mutate(text, random);
      return { request: buildRequest(kind, confineFetches(body), random), mutations: fetching ? ['remote', ...applied] : applied };
    };
    const worker = async (): Promise<void> => {
      for (let job = next(); job; job = next()) {
        const n = sent;
        const t0 = Date.now();
        await sendOne(server, job.request, job.mutations, statuses, evaluationErrors, failures);
        keepSlowest(slowest, { ms: Date.now() - t0, mutations: job.mutations, request: describeRequest(job.request).slice(0, 300) });
        if (n % HEALTH_EVERY === 0 && !(await isHealthy(server.origin))) failures.push({ kind: 'health', request: `after request ${n}` });
        if (n % RESET_EVERY === 0) await resetData(server.origin);
        if (!server.alive()) throw new Error(`the server died after ${n} requests:\n${server.stderr()}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    assert.ok(server.alive(), `the server died:\n${server.stderr()}`);
    assert.ok(await isHealthy(server.origin), 'the server does not answer /health after the run');
    assert.ok(await downloadsGivenUp(peer, 10_000), `${peer.openAnswers()} downloads from the peer still open after the run`);
  } finally {
    await server.stop('SIGTERM');
    await peer.close();
    await sentinel.close();
  }
  console.log(
    `fuzz: the peer served ${[...peer.hits]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}; sentinel connections: ${sentinel.connections()}`,
  );
  assert.equal(sentinel.connections(), 0, 'the server connected to a target it must refuse');
  const seconds = (Date.now() - started) / 1000;
  const byStatus = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  console.log(`fuzz: ${sent} requests in ${seconds.toFixed(1)} s (${byStatus}); ${failures.length} failures`);
  for (const [message, n] of [...evaluationErrors].sort(([, a], [, b]) => b - a)) console.log(`fuzz: 500 (failed operation) ${n}x: ${message}`);
  for (const s of slowest) console.log(`fuzz: slow (${s.ms} ms, ${s.mutations.join('+')}): ${s.request.replace(/\s+/g, ' ')}`);
  if (failures.length > 0) {
    const file = join(tmpdir(), `quiver-fuzz-${seed}.json`);
    writeFileSync(file, JSON.stringify(failures, null, 2));
    for (const f of failures.slice(0, 10)) console.log(`fuzz failure (${f.kind}): ${f.request}\n  → ${f.body?.slice(0, 2000)}`);
    console.log(`fuzz: all failures, with the raw requests, in ${file}`);
  }
  assert.equal(failures.length, 0, `${failures.length} failures (seed ${seed}); first: ${failures[0]?.kind}: ${failures[0]?.body}`);
});

/**
 * Back to the seed data, so that mutated updates cannot grow the store without bound. The reset
 * waits its turn behind fuzzed updates that may run up to their time limit: retried on 503/504.
 */
async function downloadsGivenUp(peer: HostilePeer, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (peer.openAnswers() > 0 && Date.now() < until) await sleep(100);
  return peer.openAnswers() === 0;
}

async function resetData(origin: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const response = await postUpdate(origin, DATA);
    const body = await response.text();
    if (response.status === 200 || response.status === 204) return;
    if (attempt >= 10 || (response.status !== 503 && response.status !== 504)) throw new Error(`resetting the data answered ${response.status}: ${body}`);
    await sleep(1000);
  }
}

interface Slow {
  ms: number;
  mutations: string[];
  request: string;
}

const SLOWEST_KEPT = 5;

function keepSlowest(slowest: Slow[], entry: Slow): void {
  if (slowest.length === SLOWEST_KEPT && entry.ms <= slowest[SLOWEST_KEPT - 1].ms) return;
  slowest.push(entry);
  slowest.sort((a, b) => b.ms - a.ms);
  slowest.length = Math.min(slowest.length, SLOWEST_KEPT);
}

async function sendOne(
  server: ServerProcess,
  request: FuzzRequest,
  mutations: string[],
  statuses: Map<number, number>,
  evaluationErrors: Map<string, number>,
  failures: Failure[],
): Promise<void> {
  const raw = { path: request.path, headers: request.headers, body: request.body?.toString('base64') };
  try {
    const response = await fetch(server.origin + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(HANG_MS),
    });
    const body = await response.text();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (body.includes(SECRET)) failures.push({ kind: 'echo', request: describeRequest(request), body, mutations, raw });
    if (response.status !== 500) return;
    const message = genuineEvaluationError(body);
    if (message) evaluationErrors.set(message, (evaluationErrors.get(message) ?? 0) + 1);
    else failures.push({ kind: 'status 500', request: describeRequest(request), body, mutations, raw });
  } catch (error) {
    const kind = (error as Error).name === 'TimeoutError' ? 'hang' : 'connection error';
    failures.push({ kind, request: describeRequest(request), body: String((error as Error).cause ?? error), mutations, raw });
  }
}

/**
 * 500s that are the protocol's answer to an operation that failed on the data or the network
 * (SPARQL 1.1 Update: CREATE of an existing graph, DROP of a missing one, a LOAD that fails, without
 * SILENT; SPARQL 1.1 Federated Query: a SERVICE that fails), and two things Quiver does not do:
 * SERVICE in an update's WHERE clause and SERVICE with a variable endpoint (reported with issue 18).
 */
const GENUINE_EVALUATION_ERRORS: RegExp[] = [
  /\b(ADD|MOVE|COPY|DROP|CLEAR|CREATE): the graph (<|&lt;)(?:(?!&gt;)[^<>])*(>|&gt;) (does not exist|already exists)/,
  /\b(LOAD|SERVICE) (<|&lt;)(?:(?!&gt;)[^<>])*(>|&gt;)(: [a-z ]+|( failed| answered| did not)[a-z ]*)/,
  /SERVICE is not available here|SERVICE with a variable endpoint is not supported/,
];

/**
 * The accepted failure's message, its graph name generalized so that the run's summary counts kinds,
 * or undefined. Whatever the error format (text, HTML, JSON, XML), the message is in the body as is or escaped.
 */
function genuineEvaluationError(body: string): string | undefined {
  for (const pattern of GENUINE_EVALUATION_ERRORS) {
    const match = pattern.exec(body);
    if (match) return match[0].replace(/(<|&lt;)(?:(?!&gt;)[^<>])*(>|&gt;)/, '<G>');
  }
  return undefined;
}
