/**
 * Slow clients (issue 18, finding 6: 3,000 slow request bodies were once held open at once, with no
 * time limit). A real `quiver serve --body-timeout 2` is opened many connections at once, each on a
 * seeded random plan: a front door (updates, forms, queries, the graph store, /health, by POST,
 * PUT, GET or DELETE) and a way of being slow at a random byte rate: connecting and sending
 * nothing, trickling the headers, trickling the body, stalling halfway through it, or trickling
 * chunks of a body that never ends. Some clients send in time, as a control.
 *
 * The server must close every slow connection soon after the body timeout (answering 408 if it
 * answers), answer every client that sent in time, keep answering /health and another client's
 * queries and writes meanwhile, and give back its sockets (open file descriptors, from /proc) and
 * memory once the slow clients are gone.
 *
 * CI: 300 clients. Full (QUIVER_FULL=1, or QUIVER_SLOW_CLIENTS=N): 3,000, the finding's number.
 * Replay the plans: QUIVER_SEED.
 */
import { test } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import { RawConnection, rawRequest } from '../http/raw-connection.js';
import { Random, seedFromEnv } from './prng.js';
import { FULL_RUN, runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { postUpdate, selectRows, sleep } from './sparql-client.js';
import { watchProcess } from './process-watch.js';

const CLIENTS = runSize('QUIVER_SLOW_CLIENTS', 300, 3000);
const BODY_TIMEOUT_S = 2;
const BODY_TIMEOUT_MS = BODY_TIMEOUT_S * 1000;
/**
 * The body timeout, Node's check interval (a quarter of it), and room for two shared cores; the
 * test's own event loop delay is added (it sees a close that late).
 */
const CLOSED_BY_MS = BODY_TIMEOUT_MS + BODY_TIMEOUT_MS / 4 + 3000;
/** How long a client waits for the close at most, to measure it. */
const WAIT_FOR_CLOSE_MS = 60_000;
/** Clients are opened over this long, so that nearly all of them are held at once. */
const RAMP_MS = 2000;
/**
 * A request or health check of the other client that takes longer than this is held up (thousands
 * of connections arriving within two seconds on two shared cores slow everything down for a moment).
 */
const BYSTANDER_LIMIT_MS = FULL_RUN ? 10_000 : 3000;

type Mode = 'silent' | 'slow headers' | 'slow body' | 'stalled body' | 'endless chunks' | 'in time';

interface Door {
  name: string;
  method: string;
  target: (i: number) => string;
  type?: string;
  body?: (i: number) => string;
  /** What pads a body (or a header) to any length without changing what it means. */
  pad: string;
}

const DOORS: Door[] = [
  {
    name: 'update',
    method: 'POST',
    target: () => '/sparql/update',
    type: 'application/sparql-update',
    body: (i) => `INSERT DATA { <urn:slow:${i}> <urn:p> ${i} }`,
    pad: ' ',
  },
  {
    name: 'form update on {base}/sparql',
    method: 'POST',
    target: () => '/sparql',
    type: 'application/x-www-form-urlencoded',
    body: (i) => `update=${encodeURIComponent(`INSERT DATA { <urn:slow:${i}> <urn:p> ${i} }`)}`,
    pad: '+',
  },
  { name: 'direct query', method: 'POST', target: () => '/sparql/select', type: 'application/sparql-query', body: () => 'ASK { ?s ?p ?o }', pad: ' ' },
  {
    name: 'graph store PUT',
    method: 'PUT',
    target: (i) => `/sparql/store?graph=urn:slow:${i}`,
    type: 'text/turtle',
    body: (i) => `<urn:slow:${i}> <urn:p> ${i} .`,
    pad: ' ',
  },
  {
    name: 'graph store POST',
    method: 'POST',
    target: () => '/sparql/store?default',
    type: 'text/turtle',
    body: (i) => `<urn:slow:${i}> <urn:q> ${i} .`,
    pad: ' ',
  },
  { name: 'query by GET', method: 'GET', target: () => `/sparql?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`, pad: 'x' },
  { name: 'health', method: 'GET', target: () => '/health', pad: 'x' },
  { name: 'graph store DELETE', method: 'DELETE', target: (i) => `/sparql/store?graph=urn:slow:${i}`, pad: 'x' },
];

interface Plan {
  index: number;
  door: Door;
  mode: Mode;
  /** Between two writes. */
  intervalMs: number;
  bytesPerWrite: number;
  /** When the client connects, from the start of the run. */
  startMs: number;
}

function planClient(random: Random, index: number): Plan {
  const door = random.pick(DOORS);
  const bodyless = door.body === undefined;
  const modes: Mode[] = bodyless
    ? ['silent', 'slow headers', 'slow headers', 'in time']
    : ['silent', 'slow headers', 'slow body', 'slow body', 'stalled body', 'endless chunks', 'in time'];
  return { index, door, mode: random.pick(modes), intervalMs: random.int(100, 1000), bytesPerWrite: random.int(1, 4), startMs: random.int(0, RAMP_MS) };
}

/** Bytes enough that, at the plan's rate, they take well over the body timeout to send. */
function slowLength(plan: Plan): number {
  return Math.ceil((2.5 * BODY_TIMEOUT_MS) / plan.intervalMs) * plan.bytesPerWrite;
}

interface Outcome {
  /** From the connection's establishment to the close (slow clients), or from the connect call to the answer (clients in time). */
  ms: number;
  /** A slow client's connection was closed by the server (not given up on by the client). */
  closed?: boolean;
  status?: number;
  problem?: string;
  /** A control the test itself sent too late to count. */
  late?: boolean;
}

async function runClient(origin: string, plan: Plan): Promise<Outcome> {
  const t0 = Date.now();
  const connection = await RawConnection.open(origin);
  const stop: (() => void)[] = [];
  try {
    if (plan.mode === 'in time') return await sendInTime(connection, plan, t0);
    sendSlowly(connection, plan, stop);
    return await closedByServer(connection, t0);
  } catch (error) {
    return { ms: -1, problem: (error as Error).message };
  } finally {
    for (const halt of stop) halt();
    connection.close();
  }
}

function sendSlowly(connection: RawConnection, plan: Plan, stop: (() => void)[]): void {
  const { door, index } = plan;
  const headers: Record<string, string> = door.type ? { 'Content-Type': door.type } : {};
  switch (plan.mode) {
    case 'silent':
      return;
    case 'slow headers': {
      const head = rawRequest(door.method, door.target(index), { ...headers, 'X-Padding': door.pad.repeat(slowLength(plan)) }, door.body?.(index));
      stop.push(trickle(connection, head, plan));
      return;
    }
    case 'slow body':
    case 'stalled body': {
      const body = door.body!(index) + door.pad.repeat(slowLength(plan));
      connection.write(rawRequest(door.method, door.target(index), { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }));
      const sent = plan.mode === 'slow body' ? body : body.slice(0, Math.floor(body.length / 3));
      stop.push(trickle(connection, sent, plan));
      return;
    }
    case 'endless chunks': {
      connection.write(rawRequest(door.method, door.target(index), { ...headers, 'Transfer-Encoding': 'chunked' }) + chunk(door.body!(index)));
      const timer = setInterval(() => connection.write(chunk(door.pad.repeat(plan.bytesPerWrite))), plan.intervalMs);
      stop.push(() => clearInterval(timer));
      return;
    }
  }
}

function chunk(data: string): string {
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
}

/** Writes `data` a few bytes at a time at the plan's rate; returns the function that stops it. */
function trickle(connection: RawConnection, data: string, plan: Plan): () => void {
  let at = 0;
  const timer = setInterval(() => {
    if (connection.isClosed || at >= data.length) return clearInterval(timer);
    connection.write(data.slice(at, (at += plan.bytesPerWrite)));
  }, plan.intervalMs);
  return () => clearInterval(timer);
}

/**
 * The server must close a slow connection soon after the body timeout (judged once the run's event
 * loop delay is known: see lateCloses), never before it, answering 408 if anything.
 */
async function closedByServer(connection: RawConnection, connectCalledAt: number): Promise<Outcome> {
  // From the connection's establishment: a connect may wait in the kernel's queue of a burst first.
  const ms = await connection.closedWithin(WAIT_FOR_CLOSE_MS);
  // From before the connect call: the server's clock for the request starts later, never sooner.
  const sinceConnectCall = Date.now() - connectCalledAt;
  const [response] = await connection.responses(1, 0).catch(() => [undefined]);
  const status = response?.status;
  if (status !== undefined && status !== 408) return { ms, status, closed: true, problem: `answered ${status}, not 408` };
  if (sinceConnectCall < BODY_TIMEOUT_MS - 100)
    return { ms, status, closed: true, problem: `closed ${sinceConnectCall} ms after the connect call, before the body timeout` };
  return { ms, status, closed: true };
}

/** Slow connections the server closed later than it should have, allowing for the test's own delay. */
function lateCloses(outcomes: Outcome[], plans: Plan[], ownDelayMs: number): string[] {
  return outcomes.flatMap((outcome, i) =>
    outcome.closed && outcome.ms > CLOSED_BY_MS + ownDelayMs
      ? [`client ${i} (${plans[i].door.name}, ${plans[i].mode}): closed ${outcome.ms} ms after it was established`]
      : [],
  );
}

/** A client that sends in time, in a few writes well within the body timeout, gets its answer. */
async function sendInTime(connection: RawConnection, plan: Plan, connectedAt: number): Promise<Outcome> {
  const { door, index } = plan;
  const body = door.body?.(index);
  const request = rawRequest(door.method, door.target(index), door.type ? { 'Content-Type': door.type } : {}, body);
  const connectMs = Date.now() - connectedAt;
  const pieces = Math.min(4, request.length);
  const size = Math.ceil(request.length / pieces);
  for (let at = 0; at < request.length; at += size) {
    connection.write(request.slice(at, at + size));
    await sleep(Math.min(plan.intervalMs, BODY_TIMEOUT_MS / 20));
  }
  const sendingMs = Date.now() - connectedAt;
  const response = await connection.responses(1, 15_000).then(
    ([first]) => first!,
    (error: Error) => error,
  );
  const ms = Date.now() - connectedAt;
  // With thousands of clients the test's own event loop falls behind: a control that it did not
  // connect or send in time proves nothing.
  if (connectMs > 250 || sendingMs > (BODY_TIMEOUT_MS * 3) / 4) return { ms, late: true };
  if (response instanceof Error) return { ms, problem: `sent in ${sendingMs} ms: ${response.message}` };
  // 503: the query queue is full, which a burst of thousands of connections may make it.
  const { status } = response;
  if ((status >= 500 && status !== 503) || status === 408)
    return { ms, status, problem: `answered ${status} to a request sent in ${sendingMs} ms: ${response.body.slice(0, 300)}` };
  return { ms, status };
}

interface Bystander {
  requests: number;
  slowestMs: number;
  failures: string[];
}

/** Another client's queries and writes while the slow ones are held. */
async function runBystander(server: ServerProcess, done: () => boolean): Promise<Bystander> {
  const record: Bystander = { requests: 0, slowestMs: 0, failures: [] };
  for (let i = 0; !done(); i++) {
    const t0 = Date.now();
    try {
      const response = await postUpdate(server.origin, `INSERT DATA { <urn:bystander:${i}> <urn:p> ${i} }`, AbortSignal.timeout(30_000));
      await response.arrayBuffer();
      if (response.status !== 200) record.failures.push(`write ${i}: ${response.status}`);
      const rows = await selectRows(server.origin, `SELECT ?o WHERE { <urn:bystander:${i}> <urn:p> ?o }`);
      if (rows.length !== 1) record.failures.push(`read ${i} does not see write ${i}`);
    } catch (error) {
      record.failures.push(`request ${i}: ${(error as Error).message}`);
    }
    const ms = Date.now() - t0;
    record.requests++;
    record.slowestMs = Math.max(record.slowestMs, ms);
    if (ms > BYSTANDER_LIMIT_MS) record.failures.push(`request ${i} took ${ms} ms`);
    await sleep(100);
  }
  return record;
}

test(`${CLIENTS} slow clients at once are cut at the body timeout while others are served`, { timeout: timeLimit(180_000, 900_000) }, async () => {
  const seed = seedFromEnv();
  const random = new Random(seed, 'slow-clients');
  console.log(`slow clients: seed ${seed} (replay with QUIVER_SEED=${seed}), ${CLIENTS} clients, --body-timeout ${BODY_TIMEOUT_S}`);
  const plans = Array.from({ length: CLIENTS }, (_, i) => planClient(random, i));
  const server = await startServerProcess(['--memory', '--workers', '1', '--body-timeout', String(BODY_TIMEOUT_S)]);
  const watch = watchProcess(server, { healthTimeoutMs: BYSTANDER_LIMIT_MS });
  try {
    await sleep(500);
    const filesBefore = watch.openFiles();
    let running = true;
    const bystander = runBystander(server, () => !running);
    const started = Date.now();
    const lag = monitorEventLoopDelay({ resolution: 20 });
    lag.enable();
    let peakFiles = 0;
    const sampler = setInterval(() => (peakFiles = Math.max(peakFiles, watch.openFiles() ?? 0)), 200);
    const outcomes = await Promise.all(
      plans.map(async (plan) => {
        await sleep(plan.startMs);
        return runClient(server.origin, plan);
      }),
    ).finally(() => {
      running = false;
      clearInterval(sampler);
      lag.disable();
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const other = await bystander;
    await sleep(1000);
    const filesAfter = watch.openFiles();
    await watch.stop();
    report(plans, outcomes, seconds);
    const lateControls = outcomes.filter((outcome) => outcome.late).length;
    console.log(`slow clients: the test's own event loop lagged up to ${Math.round(lag.max / 1e6)} ms (${lateControls} controls sent too late to count)`);
    console.log(
      `slow clients: server fds ${filesBefore} before, ${peakFiles} at the peak, ${filesAfter} after; peak RSS ${watch.peakRssMb()} MiB; ` +
        `/health ${watch.health.checks} checks, slowest ${watch.health.slowestMs} ms; other client: ${other.requests} write+read pairs, slowest ${other.slowestMs} ms`,
    );
    const problems = outcomes.flatMap((outcome, i) =>
      outcome.problem
        ? [`client ${i} (${plans[i].door.name}, ${plans[i].mode}, ${plans[i].intervalMs} ms × ${plans[i].bytesPerWrite} B): ${outcome.problem}`]
        : [],
    );
    problems.push(...lateCloses(outcomes, plans, lag.max / 1e6));
    for (const problem of problems.slice(0, 10)) console.log(`slow clients failure: ${problem}`);
    assert.equal(problems.length, 0, `${problems.length} clients went wrong (seed ${seed}); first: ${problems[0]}`);
    assert.ok(server.alive(), `the server died:\n${server.stderr()}`);
    assert.deepEqual(watch.health.failures, [], '/health did not answer in time');
    assert.deepEqual(other.failures, [], 'another client was held up');
    if (filesBefore !== undefined && filesAfter !== undefined)
      assert.ok(filesAfter <= filesBefore + 10, `the server holds ${filesAfter - filesBefore} more descriptors than before`);
  } finally {
    await watch.stop();
    await server.stop('SIGTERM');
  }
});

/** Counts by mode, with the slowest close (or answer) of each. */
function report(plans: Plan[], outcomes: Outcome[], seconds: string): void {
  const byMode = new Map<Mode, { n: number; slowest: number; statuses: Map<string, number> }>();
  plans.forEach((plan, i) => {
    const entry = byMode.get(plan.mode) ?? { n: 0, slowest: 0, statuses: new Map() };
    const status = outcomes[i].late ? 'sent too late to count' : String(outcomes[i].status ?? 'closed');
    entry.n++;
    entry.slowest = Math.max(entry.slowest, outcomes[i].ms);
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    byMode.set(plan.mode, entry);
  });
  const lines = [...byMode].map(
    ([mode, { n, slowest, statuses }]) => `${mode} ${n} (${[...statuses].map(([s, c]) => `${s}: ${c}`).join(', ')}; slowest ${slowest} ms)`,
  );
  console.log(`slow clients: done in ${seconds} s; ${lines.join(' · ')}`);
}
