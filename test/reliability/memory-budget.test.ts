/**
 * The memory budgets hold the whole process: a real `quiver serve` started with --max-memory and
 * --query-memory is sent the requests that used to grow it by gigabytes (a sort of a million rows, a
 * 9.5 MB VALUES text, six heavy queries at once, a SERVICE and a LOAD whose answers never end),
 * while its resident memory is sampled every 50 ms from /proc. It must stay under the limit, every
 * attack must end in the budget's error (500, naming the flag), and /health and a small query must
 * answer throughout and after.
 *
 * Linux only (the samples come from /proc/<pid>/status); elsewhere the suite is skipped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { isHealthy, postQuery, postUpdate, selectRows, sleep, update } from './sparql-client.js';
import { runSize, timeLimit } from './run-size.js';
import { createLocalService } from '../../src/service/local-service.js';
import { ResourceLimitError } from '../../src/errors.js';

const NS = 'urn:quiver:memory:';
/** The process limit and the budget of one query, in MiB. */
const LIMIT_MIB = runSize('QUIVER_MEMORY_LIMIT_MIB', 600, 600);
const QUERY_MIB = runSize('QUIVER_MEMORY_QUERY_MIB', 64, 64);
/** Resources per set: the cross product of three sets has SET_SIZE³ rows (a million; 8 million at full size). */
const SET_SIZE = runSize('QUIVER_MEMORY_SET_SIZE', 100, 200);
/** Bytes of the VALUES text: the reported 9.5 MB (just under --max-body's default of 10 MiB). */
const VALUES_TEXT_BYTES = 9.5e6;
/** Rounds of the six concurrent heavy queries. */
const ROUNDS = runSize('QUIVER_MEMORY_ROUNDS', 1, 5);

const CROSS = `?a a <${NS}A> . ?b a <${NS}B> . ?c a <${NS}C> .`;
const HUGE_SORT = `SELECT ?a ?b ?c WHERE { ${CROSS} } ORDER BY ?c ?b ?a`;
/** A group per row. */
const HUGE_GROUPS = `SELECT ?a ?b ?c (COUNT(*) AS ?n) WHERE { ${CROSS} } GROUP BY ?a ?b ?c`;
/** A computed term per row, all kept to tell them apart; counted, so that nothing streams before the failure. */
const HUGE_DISTINCT = `SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?k WHERE { ${CROSS} BIND(CONCAT(STR(?a), STR(?b), STR(?c)) AS ?k) } }`;
const SMALL = `SELECT ?a WHERE { ?a a <${NS}A> } LIMIT 3`;

/** Three sets of `size` resources each: their cross product grows as size³. */
function setsUpdate(size: number): string {
  const lines: string[] = [];
  for (const set of ['A', 'B', 'C']) for (let i = 0; i < size; i++) lines.push(`<${NS}${set}/${i}> a <${NS}${set}> .`);
  return `INSERT DATA {\n${lines.join('\n')}\n}`;
}

/** A query whose text is a VALUES block of short strings, `bytes` long: tens of MiB to parse per MB. */
function valuesQuery(bytes: number, salt: number): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < bytes; i++) {
    const value = `"v${salt}_${String(i).padStart(8, '0')}"`;
    parts.push(value);
    length += value.length + 1;
  }
  return `SELECT (COUNT(*) AS ?n) WHERE { VALUES ?x { ${parts.join(' ')} } }`;
}

/** The server's resident memory, read from /proc every 50 ms. */
class RssSampler {
  peakKb = 0;
  samples = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 50);
  }

  sample(): void {
    const kb = statusField(this.pid, 'VmRSS');
    if (kb === undefined) return;
    this.samples++;
    this.peakKb = Math.max(this.peakKb, kb);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  get peakMib(): number {
    return Math.round(this.peakKb / 1024);
  }
}

function statusField(pid: number, field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** An HTTP peer whose answers never end: SPARQL results for SERVICE, N-Triples for LOAD. */
async function startEndlessPeer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    request.resume();
    const results = request.url === '/sparql';
    response.writeHead(200, { 'content-type': results ? 'application/sparql-results+json' : 'application/n-triples' });
    if (results) response.write('{"head":{"vars":["s"]},"results":{"bindings":[');
    let n = 0;
    let open = true;
    response.on('close', () => (open = false));
    const pump = (): void => {
      while (open) {
        const piece = Array.from({ length: 500 }, () => {
          n++;
          return results ? `${n > 1 ? ',' : ''}{"s":{"type":"literal","value":"row ${n}"}}` : `<${NS}s/${n}> <${NS}p> "value ${n}" .\n`;
        }).join('');
        if (!response.write(piece)) return void response.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A request's outcome: its status and the start of its body. */
async function outcome(response: Promise<Response>): Promise<{ status: number; body: string }> {
  const answer = await response;
  return { status: answer.status, body: (await answer.text()).slice(0, 2000) };
}

/** The budget's error: 500, a message about memory, and the flag that sets the budget. */
function assertBudgetError(what: string, result: { status: number; body: string }, pattern = /memory budget/): void {
  assert.equal(result.status, 500, `${what}: ${result.body}`);
  assert.match(result.body, pattern, what);
  assert.match(result.body, /--query-memory/, `${what}: the message names the flag`);
}

/**
 * /health and a small query, every 250 ms until stopped: both must answer (the small query may
 * wait for room in the budget, but not fail).
 */
function keepAsking(origin: string): { stop: () => Promise<{ answered: number; slowestMs: number }> } {
  let stopped = false;
  let answered = 0;
  let slowestMs = 0;
  // The first failure ends the loop and is thrown by stop().
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      assert.ok(await isHealthy(origin, 5000), '/health did not answer during the attacks');
      assert.equal((await selectRows(origin, SMALL)).length, 3);
      slowestMs = Math.max(slowestMs, Date.now() - started);
      answered++;
      await sleep(250);
    }
  })();
  loop.catch(() => (stopped = true));
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { answered, slowestMs };
    },
  };
}

const onLinux = existsSync('/proc/self/status');

describe(
  `the process stays under --max-memory ${LIMIT_MIB}MiB (--query-memory ${QUERY_MIB}MiB)`,
  { skip: !onLinux && 'needs /proc', timeout: timeLimit(120_000, 600_000) },
  () => {
    let server: ServerProcess;
    let peer: { server: Server; origin: string };
    let rss: RssSampler;
    let asking: ReturnType<typeof keepAsking>;

    before(async () => {
      peer = await startEndlessPeer();
      server = await startServerProcess([
        '--memory',
        '--workers',
        '2',
        '--max-memory',
        `${LIMIT_MIB}MiB`,
        '--query-memory',
        `${QUERY_MIB}MiB`,
        // The budget, not the fetch limit, is to stop the endless answers.
        '--max-fetch-bytes',
        '1GiB',
        '--fetch-allow',
        new URL(peer.origin).host,
      ]);
      await update(server.origin, setsUpdate(SET_SIZE));
      rss = new RssSampler(server.child.pid!);
      asking = keepAsking(server.origin);
    });

    after(async () => {
      // Stopped by the last test already, unless it did not run.
      rss?.stop();
      await asking?.stop().catch(() => undefined);
      await server?.stop('SIGTERM');
      peer?.server.closeAllConnections();
      peer?.server.close();
    });

    it(`fails a sort of ${SET_SIZE ** 3} rows with the budget's error`, async () => {
      assertBudgetError('the sort', await outcome(postQuery(server.origin, HUGE_SORT)));
    });

    it(`refuses a ${(VALUES_TEXT_BYTES / 1e6).toFixed(1)} MB VALUES text before parsing it`, async () => {
      const result = await outcome(postQuery(server.origin, valuesQuery(VALUES_TEXT_BYTES, 0)));
      assertBudgetError('the VALUES text', result, /needs about \d+ MiB of memory to parse, more than its memory budget/);
    });

    it(`fails six heavy queries sent at once, ${ROUNDS} time(s)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const heavy = [
          HUGE_SORT,
          HUGE_GROUPS,
          HUGE_DISTINCT,
          valuesQuery(VALUES_TEXT_BYTES, 2 * round + 1),
          valuesQuery(VALUES_TEXT_BYTES, 2 * round + 2),
          HUGE_SORT,
        ];
        const results = await Promise.all(heavy.map((query) => outcome(postQuery(server.origin, query))));
        results.forEach((result, i) => assertBudgetError(`heavy query ${i + 1} of round ${round + 1}`, result));
      }
    });

    it('stops an endless SERVICE answer at its share of the budget', async () => {
      const result = await outcome(postQuery(server.origin, `SELECT (COUNT(*) AS ?n) WHERE { SERVICE <${peer.origin}/sparql> { ?s ?p ?o } }`));
      assertBudgetError('the SERVICE answer', result, /the share of the query memory budget \(--query-memory\)/);
    });

    it('stops an endless LOAD document at the update memory budget', async () => {
      const result = await outcome(postUpdate(server.origin, `LOAD <${peer.origin}/data.nt> INTO GRAPH <${NS}loaded>`));
      assertBudgetError('the LOAD document', result, /the statements need more than the update's memory budget/);
    });

    it(`kept the resident memory under ${LIMIT_MIB} MiB, and still answers`, async () => {
      const { answered, slowestMs } = await asking.stop();
      rss.stop();
      const highWaterMib = Math.round((statusField(server.child.pid!, 'VmHWM') ?? 0) / 1024);
      console.log(
        `memory budget: peak RSS ${rss.peakMib} MiB sampled (${rss.samples} samples), high-water mark ${highWaterMib} MiB, limit ${LIMIT_MIB} MiB; ${answered} health checks and small queries answered during the attacks, the slowest in ${slowestMs} ms`,
      );
      assert.ok(rss.samples > 0, 'no sample of the resident memory');
      assert.ok(rss.peakMib < LIMIT_MIB, `peak RSS ${rss.peakMib} MiB over the limit of ${LIMIT_MIB} MiB`);
      assert.ok(highWaterMib < LIMIT_MIB, `high-water mark ${highWaterMib} MiB over the limit of ${LIMIT_MIB} MiB`);
      assert.ok(answered > 0);
      assert.ok(server.alive(), server.stderr());
      assert.ok(await isHealthy(server.origin));
      assert.equal((await selectRows(server.origin, SMALL)).length, 3);
      const metrics = await (await fetch(`${server.origin}/metrics`)).text();
      assert.match(metrics, new RegExp(`^quiver_memory_limit_bytes ${LIMIT_MIB * 2 ** 20}$`, 'm'));
      assert.match(metrics, /^quiver_memory_reserved_bytes 0$/m, 'nothing runs: nothing reserved');
    });
  },
);

describe("a query whose memory the engine's accounting misses", { timeout: timeLimit(60_000, 60_000) }, () => {
  it("kills only its worker, at the worker's heap limit: the budget's error, and a new worker takes over", async () => {
    // No query budget, so nothing is counted: the heap limit alone stops the query.
    const service = await createLocalService({ memory: true, workers: 1, workerMemoryMb: 48, inlineCheapQueries: false });
    try {
      await service.update({ update: setsUpdate(70) });
      const heavy = service.query({ query: `SELECT ?k WHERE { ${CROSS} BIND(CONCAT(STR(?a), STR(?b), STR(?c)) AS ?k) } ORDER BY ?k` });
      await assert.rejects(heavy, (error: Error) => error instanceof ResourceLimitError && /ran out of memory/.test(error.message));
      const small = await service.query({ query: SMALL });
      assert.equal(small.kind, 'bindings');
      let rows = 0;
      if (small.kind === 'bindings') for await (const batch of small.rows) rows += batch.length;
      assert.equal(rows, 3);
      assert.equal(service.load().queries.replacedWorkers, 1);
    } finally {
      await service.close();
    }
  });
});
