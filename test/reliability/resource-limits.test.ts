/**
 * Resource limits: a query that would need gigabytes fails with a clear error under its memory
 * budget while the server keeps answering; an oversized body gets 413; a full queue 503 with
 * Retry-After; a query past its time limit 504; a client that goes away frees its worker.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { startLocalServer, startServer, type RunningServer } from '../http/harness.js';
import { createLocalService } from '../../src/service/local-service.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { isHealthy, postQuery, postUpdate, selectRows, sleep, update } from './sparql-client.js';

const NS = 'urn:quiver:limits:';

/** Three sets of `size` resources each: their cross product grows as size³. */
function setsUpdate(size: number): string {
  const lines: string[] = [];
  for (const set of ['A', 'B', 'C']) for (let i = 0; i < size; i++) lines.push(`<${NS}${set}/${i}> a <${NS}${set}> .`);
  return `INSERT DATA {\n${lines.join('\n')}\n}`;
}

const CROSS = `?a a <${NS}A> . ?b a <${NS}B> . ?c a <${NS}C> .`;
/** Gigabytes to sort: every combination, ordered by a computed string. */
const HUGE_SORT = `SELECT ?a ?b ?c ?k WHERE { ${CROSS} BIND(CONCAT(STR(?a), STR(?b), STR(?c)) AS ?k) } ORDER BY ?k`;
/**
 * Seconds of work with no memory to speak of: a count of the combinations through a filter that
 * reads all three at once, so every combination is tried (a bare COUNT(*) of a cross product is
 * answered at once, its solutions merged and counted: operators/counted-rows.ts).
 */
const SLOW_COUNT = `SELECT (COUNT(*) AS ?n) WHERE { ${CROSS} FILTER(?a != ?c || ?b != ?c) }`;
/** Millions of rows, streamed. */
const HUGE_STREAM = `SELECT ?a ?b ?c WHERE { ${CROSS} }`;
const SMALL = `SELECT ?a WHERE { ?a a <${NS}A> } LIMIT 3`;

describe('a query over its memory budget (quiver serve --query-memory)', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess(['--memory', '--workers', '2', '--query-memory', '64MiB']);
    await update(server.origin, setsUpdate(200));
  });
  after(async () => server.stop('SIGTERM'));

  it('fails with the budget named while other requests are answered', async () => {
    const started = Date.now();
    const heavy = postQuery(server.origin, HUGE_SORT).then(async (r) => ({ status: r.status, body: await r.text(), ms: Date.now() - started }));
    let answeredMeanwhile = 0;
    let settled = false;
    void heavy.then(() => (settled = true));
    while (!settled) {
      const t0 = Date.now();
      assert.ok(await isHealthy(server.origin, 2000), 'health check failed while the heavy query ran');
      assert.equal((await selectRows(server.origin, SMALL)).length, 3);
      assert.ok(Date.now() - t0 < 2000, `a small query took ${Date.now() - t0} ms next to the heavy one`);
      answeredMeanwhile++;
      await sleep(100);
    }
    const { status, body, ms } = await heavy;
    console.log(
      `memory budget: ${status} after ${ms} ms (${answeredMeanwhile} health checks and small queries answered meanwhile); peak RSS ${peakRssMb(server)} MiB: ${body.trim()}`,
    );
    assert.equal(status, 500, 'ResourceLimitError maps to 500 (src/errors.ts)');
    assert.match(body, /memory budget of 64 MiB/);
    assert.match(body, /--query-memory \(QUIVER_QUERY_MEMORY\)/, 'the message says how to change the budget');
    assert.ok(answeredMeanwhile > 0);
    assert.ok(server.alive());
    assert.equal((await selectRows(server.origin, SMALL)).length, 3);
    const peak = peakRssMb(server);
    if (peak !== undefined) assert.ok(peak < 1024, `the server grew to ${peak} MiB of RSS for a 64 MiB budget`);
  });
});

describe('the default memory budget (no --query-memory)', { timeout: 120_000 }, () => {
  it('is a quarter of a small heap limit, and stops the query that outgrows it', async () => {
    // 512 MB of old space makes a heap limit of about 560 MiB, workers' included: 140 MiB of budget.
    const server = await startServerProcess(['--memory', '--workers', '1'], { nodeOptions: ['--max-old-space-size=512'] });
    try {
      await update(server.origin, setsUpdate(200));
      const response = await postQuery(server.origin, HUGE_SORT);
      const body = await response.text();
      assert.equal(response.status, 500, body);
      const budget = Number(/memory budget of (\d+) MiB/.exec(body)?.[1]);
      assert.ok(budget >= 100 && budget <= 160, `a budget of ${budget} MiB for a heap of 512 MB: ${body}`);
      assert.ok(server.alive());
      assert.equal((await selectRows(server.origin, SMALL)).length, 3);
    } finally {
      await server.stop('SIGTERM');
    }
  });
});

describe('request limits', { timeout: 120_000 }, () => {
  it('answers 413 to a body over --max-body and keeps serving', async () => {
    const server = await startLocalServer({ maxBody: 4096 });
    try {
      const big = `INSERT DATA { <${NS}s> <${NS}p> "${'x'.repeat(10_000)}" }`;
      const response = await postUpdate(server.origin, big);
      await response.text();
      assert.equal(response.status, 413);
      const query = await postQuery(server.origin, `SELECT ?o WHERE { <${NS}s> <${NS}p> ?o }`, 'application/sparql-results+json', undefined, ' '.repeat(5000));
      await query.text();
      assert.equal(query.status, 413);
      await update(server.origin, `INSERT DATA { <${NS}s> <${NS}p> "small" }`);
      assert.deepEqual(
        (await selectRows(server.origin, `SELECT ?o WHERE { <${NS}s> <${NS}p> ?o }`)).map((r) => r['o']!.value),
        ['small'],
      );
    } finally {
      await server.close();
    }
  });

  it('answers 400, not 500, to requests nested thousands deep, however warm the worker', async () => {
    const server = await startLocalServer();
    try {
      // The JIT shrinks frames as code warms up, so the stage that runs out of stack moves.
      for (const depth of [500, 2000, 4000, 9000, 9000, 20_000]) {
        const chain = Array.from({ length: depth }, (_, i) => i).join(' || ');
        for (const response of [
          await postQuery(server.origin, `SELECT * WHERE { BIND((${chain}) AS ?x) }`),
          await postUpdate(server.origin, `INSERT { <${NS}s> <${NS}p> ?x } WHERE { BIND((${chain}) AS ?x) }`),
        ]) {
          const body = await response.text();
          assert.ok(response.status === 200 || response.status === 400, `depth ${depth}: ${response.status} ${body.slice(0, 200)}`);
        }
      }
    } finally {
      await server.close();
    }
  });

  describe('one worker, one queue place, a 2 s time limit', () => {
    let server: RunningServer;
    const log: string[] = [];
    before(async () => {
      server = await startServer(await createLocalService({ memory: true, workers: 1, maxQueue: 1, queryTimeoutMs: 2000 }), {
        requestLog: (line) => log.push(line),
      });
      // 64 million combinations: counting them outlasts the limit however fast the engine gets (at 250, 15.6
      // million took 1.7 s on an idle 2-core machine).
      await update(server.origin, setsUpdate(400));
    });
    after(async () => server.close());

    it('answers 503 with Retry-After beyond the queue, 504 past the time limit', async () => {
      const running = postQuery(server.origin, SLOW_COUNT);
      await sleep(200);
      const queued = postQuery(server.origin, SLOW_COUNT);
      await sleep(200);
      const refused = await postQuery(server.origin, SMALL);
      const refusal = await refused.text();
      assert.equal(refused.status, 503, refusal);
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      const first = await running;
      const firstBody = await first.text();
      assert.equal(first.status, 504, firstBody);
      const second = await queued;
      await second.text();
      assert.equal(second.status, 504, 'the queued query counts its time from arrival');
      assert.equal((await selectRows(server.origin, SMALL)).length, 3);
      console.log(`limits: 503 (Retry-After: ${refused.headers.get('retry-after')}) "${refusal.trim()}"; 504 "${firstBody.trim()}"`);
    });

    it('frees the worker of a client that disconnects mid-stream, and logs the request as 499', async () => {
      for (const disconnect of [readFirstChunkThenDisconnect, readFirstChunkThenAbortFetch, readFirstChunkThenDisconnect, readFirstChunkThenAbortFetch]) {
        log.length = 0;
        await disconnect(server.origin, HUGE_STREAM);
        const t0 = Date.now();
        const rows = await selectRows(server.origin, SMALL);
        assert.equal(rows.length, 3);
        // Well under the 2 s time limit: the worker was freed by the disconnect, not by the deadline.
        assert.ok(Date.now() - t0 < 1500, `${disconnect.name}: the next query waited ${Date.now() - t0} ms for the worker`);
        for (const waitUntil = Date.now() + 2000; log.length < 2 && Date.now() < waitUntil;) await sleep(10);
        const statuses = log.map((line) => (JSON.parse(line) as { status: number }).status);
        assert.deepEqual(statuses, [499, 200], `${disconnect.name}: ${log.join('')}`);
      }
    });
  });
});

/** A client that goes away: node:http, whose destroy() closes the socket at once. */
function readFirstChunkThenDisconnect(origin: string, query: string): Promise<void> {
  const url = new URL(`${origin}/sparql`);
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/sparql-query', accept: 'text/tab-separated-values' };
    const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`the stream answered ${response.statusCode}`));
      response.once('data', () => {
        request.destroy();
        resolve();
      });
    });
    request.on('error', () => undefined);
    request.end(query);
  });
}

/**
 * The same with fetch(): aborting the body closes that connection too (the connections that linger
 * afterwards are the idle ones of fetch's pool, kept for the server's keep-alive time).
 */
async function readFirstChunkThenAbortFetch(origin: string, query: string): Promise<void> {
  const abort = new AbortController();
  const response = await fetch(`${origin}/sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: 'text/tab-separated-values' },
    body: query,
    signal: abort.signal,
  });
  if (response.status !== 200) throw new Error(`the stream answered ${response.status}`);
  await response.body!.getReader().read();
  abort.abort();
}

/** The server's peak resident memory (Linux), or undefined where /proc is not there. */
function peakRssMb(server: ServerProcess): number | undefined {
  try {
    const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}
