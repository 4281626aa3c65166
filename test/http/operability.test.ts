/**
 * Operating the server: the request log (one JSON line per request, no query text, no credential),
 * {base}/health (200 with the store open and writable, 503 once it is closed) and {base}/metrics
 * (Prometheus text whose counters move with the requests), on real listening servers; and `quiver
 * serve --log` with its credentials taken from the environment.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildServer } from '../../src/server/app.js';
import { accessHooks } from '../../src/server/auth.js';
import { createLocalService } from '../../src/service/local-service.js';
import { repoRoot } from '../protocol/protocol-manifest.js';
import { encodeQuery, SPARQL_UPDATE, startServer, type RunningServer } from './harness.js';

const TOKEN = 'operability-token-7f3a';
const DATA = 'INSERT DATA { <urn:a> <urn:p> 1 . <urn:b> <urn:p> 2 . GRAPH <urn:g> { <urn:c> <urn:p> 3 } }';
const QUERY = 'SELECT ?s { ?s <urn:p> ?o }';

/** Waits until `ready` holds (log lines are written when the server sees the response finish). */
async function eventually(ready: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The value of one sample of the exposition (labels written exactly as the server orders them). */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('request log, health and metrics', () => {
  let server: RunningServer;
  const lines: string[] = [];

  before(async () => {
    const service = await createLocalService({ memory: true, workers: 1 });
    server = await startServer(service, { requestLog: (line) => lines.push(line), ...accessHooks({ updateToken: TOKEN }) });
    const response = await fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE, authorization: `Bearer ${TOKEN}` },
      body: DATA,
    });
    assert.equal(response.status, 200);
  });
  after(async () => server.close());

  async function metrics(): Promise<string> {
    const response = await fetch(server.url('/metrics'));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    return response.text();
  }

  it('writes one JSON line per request with the hash of the query and the rows sent', async () => {
    lines.length = 0;
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: QUERY })}`));
    assert.equal(((await response.json()) as any).results.bindings.length, 2);
    await eventually(() => lines.length >= 1);
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith('\n') && !lines[0]!.slice(0, -1).includes('\n'));
    const entry = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(entry).sort(), ['durationMs', 'endpoint', 'id', 'method', 'path', 'queryHash', 'rows', 'status', 'time']);
    assert.equal(entry.method, 'GET');
    assert.equal(entry.endpoint, 'select');
    assert.equal(entry.path, '/sparql/select');
    assert.equal(entry.status, 200);
    assert.equal(entry.rows, 2);
    assert.match(entry.queryHash, /^[0-9a-f]{16}$/);
    assert.ok(typeof entry.durationMs === 'number' && entry.durationMs >= 0);
    assert.ok(!Number.isNaN(Date.parse(entry.time)));
    assert.doesNotMatch(lines[0]!, /urn:p|SELECT/, 'no query text');
  });

  it('logs writes, refused or not, without their credentials or their text', async () => {
    lines.length = 0;
    const refused = await fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE, authorization: 'Bearer wrong-guess' },
      body: 'CLEAR ALL',
    });
    assert.equal(refused.status, 401);
    const accepted = await fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE, authorization: `Bearer ${TOKEN}` },
      body: 'INSERT DATA { <urn:d> <urn:q> 4 }',
    });
    assert.equal(accepted.status, 200);
    await eventually(() => lines.length >= 2);
    const entries = lines.map((line) => JSON.parse(line));
    assert.deepEqual(
      entries.map((e) => [e.endpoint, e.status]),
      [
        ['update', 401],
        ['update', 200],
      ],
    );
    assert.equal(entries[0].queryHash, undefined, 'a refused update is never read');
    assert.match(entries[1].queryHash, /^[0-9a-f]{16}$/);
    for (const line of lines) {
      assert.ok(!line.includes(TOKEN) && !line.includes('wrong-guess') && !line.includes('Bearer'));
      assert.doesNotMatch(line, /urn:q|INSERT|CLEAR/);
    }
  });

  it('answers health as JSON to who asks for it, as text otherwise', async () => {
    const json = await fetch(server.url('/health'), { headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.deepEqual(await json.json(), { status: 'ok', store: 'open', writable: true });
    const text = await fetch(server.url('/health'));
    assert.equal(await text.text(), 'ok\n');
  });

  it('counts requests by endpoint and status, with latency histograms', async () => {
    const before = await metrics();
    const series = 'quiver_http_requests_total{endpoint="select",method="GET",status="200"}';
    const latency = 'quiver_http_request_duration_seconds_count{endpoint="select"}';
    for (let i = 0; i < 3; i++) await (await fetch(server.url(`/sparql/select?${encodeQuery({ query: QUERY })}`))).text();
    await (await fetch(server.url(`/sparql/select?${encodeQuery({ query: 'SELECT * {' })}`))).text();
    let after = '';
    await eventually(async () => {
      after = await metrics();
      return sample(after, latency) === (sample(before, latency) ?? 0) + 4;
    });
    assert.equal(sample(after, series), (sample(before, series) ?? 0) + 3);
    assert.equal(sample(after, 'quiver_http_requests_total{endpoint="select",method="GET",status="400"}'), 1);
    assert.equal(sample(after, latency), (sample(before, latency) ?? 0) + 4);
    assert.equal(sample(after, 'quiver_http_request_duration_seconds_bucket{endpoint="select",le="+Inf"}'), sample(after, latency));
    assert.match(after, /# TYPE quiver_http_request_duration_seconds histogram/);
    assert.equal(sample(after, 'quiver_http_requests_total{endpoint="update",method="POST",status="401"}'), 1);
  });

  it('reports the work in progress and the size of the store', async () => {
    const text = await metrics();
    assert.equal(sample(text, 'quiver_queries_running'), 0);
    assert.equal(sample(text, 'quiver_queries_queued'), 0);
    assert.equal(sample(text, 'quiver_updates_running'), 0);
    assert.equal(sample(text, 'quiver_store_triples'), 4);
    assert.ok(sample(text, 'quiver_store_size_bytes')! > 0);
    assert.equal(sample(text, 'quiver_store_writable'), 1);
    for (const line of text.trim().split('\n')) {
      assert.match(line, /^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[0-9.e+]+|\w+(\{[^}]*\})? \+Inf)$/, line);
    }
  });
});

describe('health of a closed store', () => {
  it('is 503 with the reason in JSON', async () => {
    const service = await createLocalService({ memory: true, workers: 1 });
    const app = buildServer(service);
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/health`;
      assert.equal((await fetch(url)).status, 200);
      await service.close();
      const response = await fetch(url, { headers: { accept: 'application/json' } });
      assert.equal(response.status, 503);
      assert.deepEqual(await response.json(), { status: 'unavailable', store: 'closed', writable: false });
      assert.equal((await fetch(url.replace(/health$/, 'metrics'))).status, 200, 'metrics still answer');
    } finally {
      await app.close();
    }
  });
});

describe('quiver serve --log', () => {
  it('writes JSON lines on stdout, with the update token from QUIVER_UPDATE_TOKEN kept out of them', async () => {
    const main = join(repoRoot(), 'dist', 'src', 'cli', 'main.js');
    const child = spawn(process.execPath, [main, 'serve', '--memory', '--port', '0', '--workers', '1', '--log'], {
      env: { ...process.env, QUIVER_UPDATE_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const body = 'INSERT DATA { <urn:x> <urn:y> 1 }';
      assert.equal((await fetch(`${url}/update`, { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body })).status, 401);
      assert.equal(
        (await fetch(`${url}/update`, { method: 'POST', headers: { 'content-type': SPARQL_UPDATE, authorization: `Bearer ${TOKEN}` }, body })).status,
        200,
      );
      const logLines = (): string[] => output.split('\n').filter((line) => line.startsWith('{'));
      await eventually(() => logLines().length >= 2);
      const logged = logLines().map((line) => JSON.parse(line));
      assert.deepEqual(
        logged.map((entry) => entry.status),
        [401, 200],
      );
      assert.ok(!output.includes(TOKEN));
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });
});
