import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildServer } from './app.js';
import type { ServerConfig } from './config.js';
import { createLocalService, type LocalService } from '../service/local-service.js';

interface Exchange {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

interface Seen {
  status: number;
  headers: string;
  body: string;
}

/** Headers that differ between any two responses whatever the route. */
const PER_RESPONSE = new Set(['date', 'keep-alive']);

async function exchange(origin: string, { method, path, headers, body }: Exchange): Promise<Seen> {
  const response = await fetch(origin + path, { method, headers, body, redirect: 'manual' });
  // An HTML page reports the time it took, so its length may differ by a digit.
  const html = response.headers.get('content-type')?.startsWith('text/html') === true;
  const seen = [...response.headers]
    .filter(([name]) => !PER_RESPONSE.has(name) && !(html && name === 'content-length'))
    .map(([name, value]) => `${name}: ${value}`);
  return { status: response.status, headers: withoutPerPageValues(seen.join('\n')), body: withoutPerPageValues(await response.text()) };
}

/** An HTML page's nonce (in its policy, style and data block) and the time it reports differ from one page to the next, and the two servers' ports. */
function withoutPerPageValues(text: string): string {
  return text
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:…')
    .replace(/(nonce(?:=|-)["']?|"styleNonce":")[A-Za-z0-9+/=]+/g, '$1…')
    .replace(/\d+(\.\d+)? ms\b/g, '… ms');
}

async function listening(service: LocalService, config: ServerConfig): Promise<{ app: FastifyInstance; origin: string }> {
  const app = buildServer(service, config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

const QUERY = { 'content-type': 'application/sparql-query' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ROWS = 'SELECT ?x ?y WHERE { VALUES ?x { 1 2 "a" <http://e/i> } VALUES ?y { "é"@fr 3.5 } }';
/** About 160,000 characters of JSON: beyond what goes out in one write, so it streams. */
const MANY_ROWS = `SELECT ?a ?b ?c WHERE { ${['a', 'b', 'c'].map((v) => `VALUES ?${v} { ${Array.from({ length: 12 }, (_, i) => i).join(' ')} }`).join(' ')} }`;

const EXCHANGES: Exchange[] = [
  { method: 'POST', path: '/sparql/select', headers: { ...QUERY, accept: 'application/sparql-results+json' }, body: ROWS },
  { method: 'POST', path: '/sparql', headers: { 'content-type': 'application/sparql-query; charset=UTF-8', accept: 'text/csv' }, body: ROWS },
  { method: 'POST', path: '/sparql/select', headers: { ...QUERY, accept: 'application/sparql-results+xml', origin: 'http://allowed.example' }, body: ROWS },
  { method: 'POST', path: '/sparql/select', headers: { ...QUERY, origin: 'http://elsewhere.example' }, body: 'ASK {}' },
  {
    method: 'POST',
    path: '/sparql/select',
    headers: { ...QUERY, accept: 'text/turtle' },
    body: 'CONSTRUCT { <http://e/s> <http://e/p> ?x } WHERE { VALUES ?x { 1 2 } }',
  },
  { method: 'POST', path: '/sparql/select', headers: { ...QUERY, accept: 'application/n-triples' }, body: 'DESCRIBE <http://e/nothing>' },
  { method: 'POST', path: '/sparql/select', headers: QUERY, body: MANY_ROWS },
  { method: 'POST', path: '/sparql/select?default-graph-uri=http%3A%2F%2Fe%2Fg&timeout=5', headers: QUERY, body: 'SELECT * { ?s ?p ?o }' },
  // Failures, worded by the same errorResponse on both paths.
  { method: 'POST', path: '/sparql/select', headers: QUERY, body: 'SELECT * { ?s ?p ' },
  { method: 'POST', path: '/sparql/select?output=json', headers: QUERY, body: 'SELECT * { ?s ?p ' },
  { method: 'POST', path: '/sparql/select?timeout=soon', headers: QUERY, body: 'ASK {}' },
  { method: 'POST', path: '/sparql/select?output=png', headers: QUERY, body: 'ASK {}' },
  { method: 'POST', path: '/sparql/select', headers: { ...QUERY, accept: 'image/png' }, body: 'ASK {}' },
  { method: 'POST', path: '/sparql/select', headers: QUERY, body: Buffer.from([0x41, 0x53, 0x4b, 0xff, 0x7b, 0x7d]) },
  { method: 'POST', path: '/sparql/select', headers: FORM, body: `query=${encodeURIComponent(ROWS)}&output=csv` },
  { method: 'POST', path: '/sparql/select?output=json', headers: FORM, body: `query=${encodeURIComponent('ASK {')}` },
  { method: 'POST', path: '/sparql/select', headers: FORM, body: 'query=ASK%7B%7D&query=ASK%7B%7D&output=xml' },
  { method: 'POST', path: '/sparql/select?query=ASK%7B%7D', headers: FORM, body: 'query=ASK%7B%7D' },
  { method: 'POST', path: '/sparql/select', headers: FORM, body: 'SELECT (50% AS ?x) {}' },
  { method: 'POST', path: '/sparql/select', headers: FORM, body: `query=${encodeURIComponent(ROWS)}&output=html` },
  { method: 'POST', path: '/sparql/select', headers: FORM, body: `query=${encodeURIComponent('ASK {')}&output=html` },
  { method: 'POST', path: '/sparql/select?output=json', headers: FORM, body: Buffer.from([0x71, 0x3d, 0xff]) },
  { method: 'GET', path: `/sparql/select?query=${encodeURIComponent(ROWS)}`, headers: { accept: 'text/tab-separated-values' } },
  { method: 'GET', path: `/sparql/select?query=${encodeURIComponent('SELECT * { ?s ?p ')}&output=xml` },
  { method: 'GET', path: '/sparql/select?query=ASK%7B%7D&query=ASK%7B%7D&output=json' },
  // Not plain: left to Fastify on the direct server too, and answered as before.
  { method: 'GET', path: `/sparql/select?query=${encodeURIComponent(ROWS)}`, headers: { accept: 'text/html' } },
  { method: 'GET', path: '/sparql?query=ASK%7B%7D' },
  { method: 'POST', path: '/sparql/select', headers: { ...QUERY, accept: 'text/html' }, body: ROWS },
  { method: 'POST', path: '/sparql/select?output=html', headers: QUERY, body: ROWS },
  { method: 'POST', path: '/sparql/select', headers: { 'content-type': 'application/sparql-query; charset=latin1' }, body: 'ASK {}' },
  { method: 'POST', path: '/sparql/select?query=ASK%7B%7D', headers: QUERY, body: 'ASK {}' },
  { method: 'POST', path: '/sparql/select', headers: QUERY, body: '' },
  { method: 'POST', path: '/sparql', headers: FORM, body: `query=${encodeURIComponent(ROWS)}` },
  { method: 'POST', path: '/sparql/select', headers: { 'content-type': 'text/plain' }, body: 'ASK {}' },
  { method: 'POST', path: '/sparql/update', headers: QUERY, body: 'ASK {}' },
];

describe('plain queries answered without Fastify (direct-queries.ts)', () => {
  let service: LocalService;
  const config: ServerConfig = { corsOrigins: ['http://allowed.example'], maxBody: 100_000 };

  before(async () => {
    service = await createLocalService({ memory: true, workers: 1 });
  });
  after(async () => {
    await service.close();
  });

  it('answers every request exactly as the Fastify route does: status, headers and body', async () => {
    const direct = await listening(service, config);
    const routed = await listening(service, { ...config, directQueries: false });
    try {
      for (const request of EXCHANGES) {
        const [expected, actual] = [await exchange(routed.origin, request), await exchange(direct.origin, request)];
        assert.deepEqual(actual, expected, `${request.method} ${request.path} ${JSON.stringify(request.headers)}`);
      }
    } finally {
      await direct.app.close();
      await routed.app.close();
    }
  });

  it('behind a trusted proxy and with the request log on: the same answers and the same log lines', async () => {
    const lines = { direct: [] as string[], routed: [] as string[] };
    const logged = (into: string[]) => (line: string) => void into.push(line);
    const direct = await listening(service, { trustProxy: true, requestLog: logged(lines.direct) });
    const routed = await listening(service, { trustProxy: true, requestLog: logged(lines.routed), directQueries: false });
    const relative = 'SELECT ?x WHERE { BIND(<relative> AS ?x) }';
    const forwarded: Record<string, string>[] = [
      { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example, public.example' },
      { 'x-forwarded-host': '' },
      {},
    ];
    try {
      for (const headers of forwarded) {
        for (const request of [...EXCHANGES.slice(0, 3), { method: 'POST', path: '/sparql/select', headers: QUERY, body: relative } as const]) {
          const sent: Exchange = { ...request, headers: { ...request.headers, ...headers } };
          assert.deepEqual(
            await exchange(direct.origin, sent),
            await exchange(routed.origin, sent),
            `${request.method} ${request.path} ${JSON.stringify(sent.headers)}`,
          );
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const comparable = (line: string) => JSON.stringify({ ...JSON.parse(line), id: '…', time: '…', durationMs: '…' });
      assert.equal(lines.direct.length, 12);
      assert.deepEqual(lines.direct.map(comparable), lines.routed.map(comparable));
      assert.match(lines.direct[0]!, /"queryHash":"[0-9a-f]{16}","rows":8\}/);
    } finally {
      await direct.app.close();
      await routed.app.close();
    }
  });

  it('stops the query of a client that leaves before its answer, and counts the request as 499', async () => {
    const { app, origin } = await listening(service, config);
    try {
      const cross = ['a', 'b', 'c', 'd', 'e'].map((v) => `VALUES ?${v} { ${Array.from({ length: 40 }, (_, i) => i).join(' ')} }`).join(' ');
      await sendThenLeave(origin, `SELECT (COUNT(*) AS ?n) WHERE { ${cross} }`, 300);
      const started = Date.now();
      assert.equal((await exchange(origin, { method: 'POST', path: '/sparql/select', headers: QUERY, body: 'ASK {}' })).status, 200);
      // One worker: had the count of 100 million rows gone on, this query would still wait for it.
      assert.ok(Date.now() - started < 1500, `the next query waited ${Date.now() - started} ms`);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      assert.match(metrics, /^quiver_http_requests_total\{endpoint="select",method="POST",status="499"\} 1$/m);
      assert.match(metrics, /^quiver_http_requests_total\{endpoint="select",method="POST",status="200"\} 1$/m);
    } finally {
      await app.close();
    }
  });

  it('leaves bodies beyond the limit, or without a declared length, to Fastify', async () => {
    const { app, origin } = await listening(service, { maxBody: 64 });
    try {
      const oversized = await exchange(origin, { method: 'POST', path: '/sparql/select', headers: QUERY, body: `ASK { ${' '.repeat(100)} }` });
      assert.equal(oversized.status, 413);
      const chunked = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${origin}/sparql/select`, { method: 'POST', headers: { ...QUERY, 'transfer-encoding': 'chunked' } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.write('ASK ');
        request.end('{}');
      });
      assert.equal(chunked, 200);
    } finally {
      await app.close();
    }
  });
});

function sendThenLeave(origin: string, query: string, afterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}/sparql/select`, { method: 'POST', headers: QUERY }, (response) => {
      reject(new Error(`answered ${response.statusCode} before the client left`));
    });
    request.on('error', () => undefined);
    request.end(query);
    setTimeout(() => {
      request.destroy();
      resolve();
    }, afterMs);
  });
}
