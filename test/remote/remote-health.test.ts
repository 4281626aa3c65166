/**
 * {base}/health and {base}/metrics in remote mode, in front of a scripted endpoint on loopback:
 * healthy while the remote answers a trivial ASK, 503 when it is gone or too slow, one check per
 * moment however often load balancers ask, and the traffic to the remote counted for Prometheus.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, encodeQuery, type RunningServer } from '../http/harness.js';
import { RemoteService } from '../../src/service/remote-service.js';

const TTL_MS = 150;

/** A loopback SPARQL endpoint that counts what it is asked and answers as told. */
class FakeRemote {
  asks = 0;
  queries = 0;
  answer: 'normally' | 'slowly' | 'with 500' = 'normally';
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}/sparql`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const query = new URLSearchParams(body).get('query') ?? '';
      if (query === 'ASK {}') this.asks++;
      else this.queries++;
      if (this.answer === 'slowly') return; // never answers
      if (this.answer === 'with 500') return void response.writeHead(500).end('out of order');
      response.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      response.end(
        query.startsWith('ASK') ? '{"head":{},"boolean":true}' : '{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"1"}}]}}',
      );
    });
  }
}

async function healthOf(server: RunningServer): Promise<{ status: number; body: any }> {
  const response = await fetch(server.url('/health'), { headers: { accept: 'application/json' } });
  return { status: response.status, body: await response.json() };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('remote mode: health and metrics', () => {
  const remote = new FakeRemote();
  let service: RemoteService;
  let server: RunningServer;

  before(async () => {
    await remote.start();
    service = new RemoteService({ queryEndpoint: remote.endpoint, healthCheckTtlMs: TTL_MS });
    server = await startServer(service);
  });
  after(async () => {
    await server.close();
    await remote.stop();
  });

  it('is healthy while the remote answers, and says which remote it checked', async () => {
    const { status, body } = await healthOf(server);
    assert.equal(status, 200);
    assert.equal(body.status, 'ok');
    assert.equal(body.remote.endpoint, remote.endpoint);
    assert.equal(body.remote.answering, true);
    assert.equal(typeof body.remote.latencyMs, 'number');
    assert.equal(await (await fetch(server.url('/health'))).text(), 'ok\n');
  });

  it('asks the remote once per moment, however often it is asked itself', async () => {
    // A moment of a minute, so that a busy machine cannot stretch the requests beyond it.
    const patient = new RemoteService({ queryEndpoint: remote.endpoint, healthCheckTtlMs: 60_000 });
    const before = remote.asks;
    const checks = await Promise.all(Array.from({ length: 10 }, () => patient.health()));
    assert.deepEqual(new Set(checks.map((check) => check.status)), new Set(['ok']));
    await patient.health();
    assert.equal(remote.asks - before, 1);
    await patient.close();
  });

  it('answers 503 when the remote fails, with the reason, and 200 again when it recovers', async () => {
    remote.answer = 'with 500';
    await pause(TTL_MS + 10);
    const down = await healthOf(server);
    assert.equal(down.status, 503);
    assert.equal(down.body.status, 'unavailable');
    assert.equal(down.body.remote.answering, false);
    assert.match(down.body.remote.error, /answered 500/);
    remote.answer = 'normally';
    await pause(TTL_MS + 10);
    assert.equal((await healthOf(server)).status, 200);
  });

  it('counts the requests sent to the remote and those that failed, not the health checks', async () => {
    const scrape = async (): Promise<string> => (await fetch(server.url('/metrics'))).text();
    const counter = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    const first = await scrape();
    assert.match(first, /^# TYPE quiver_remote_requests_total counter$/m);
    assert.match(first, /^quiver_remote_up 1$/m);
    const ok = await fetch(server.url(`/sparql?${encodeQuery({ query: 'SELECT ?x {}' })}`));
    assert.equal(ok.status, 200);
    await ok.text();
    remote.answer = 'with 500';
    const failed = await fetch(server.url(`/sparql?${encodeQuery({ query: 'SELECT ?x {}' })}`));
    assert.equal(failed.status, 502);
    await failed.text();
    remote.answer = 'normally';
    const second = await scrape();
    assert.equal(counter(second, 'quiver_remote_requests_total') - counter(first, 'quiver_remote_requests_total'), 2);
    assert.equal(counter(second, 'quiver_remote_failures_total') - counter(first, 'quiver_remote_failures_total'), 1);
    assert.ok(counter(second, 'quiver_remote_request_seconds_total') > counter(first, 'quiver_remote_request_seconds_total'));
    assert.match(second, /^quiver_queries_running 0$/m);
  });
});

describe('remote mode: answers passed through', () => {
  it('sends the remote JSON document itself to a client asking for JSON, and rewrites it for others', async () => {
    let document =
      '{ "head": { "link": [], "vars": ["n"] },\n  "results": { "distinct": false, "ordered": true, "bindings": [\n' +
      '    { "n": { "type": "typed-literal", "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "7" }} ] } }';
    const remote = createServer((request, response) => {
      request.resume();
      // With its length (as Virtuoso sends it): answers of known, modest length are read whole.
      request.on('end', () => response.setHeader('content-type', 'application/sparql-results+json').end(document));
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const server = await startServer(new RemoteService({ queryEndpoint: `http://127.0.0.1:${(remote.address() as AddressInfo).port}/sparql` }));
    try {
      const url = server.url(`/sparql?${encodeQuery({ query: 'SELECT ?n {}' })}`);
      const json = await fetch(url, { headers: { accept: 'application/sparql-results+json' } });
      assert.match(json.headers.get('content-type')!, /^application\/sparql-results\+json/);
      // The remote's own layout and length, with the term type of the Recommendation (padded with white space).
      assert.equal(await json.text(), document.replace('"typed-literal"', '"literal"      '));
      const xml = await (await fetch(url, { headers: { accept: 'application/sparql-results+xml' } })).text();
      assert.match(xml, /<literal datatype="http:\/\/www.w3.org\/2001\/XMLSchema#integer">7<\/literal>/);
      // Passed on as a gateway passes its origin's answer: read (and refused, 502) only when rewritten.
      document = '{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"weird","value":"1"}}]}}';
      assert.equal((await fetch(url, { headers: { accept: 'application/sparql-results+json' } })).status, 200);
      const refused = await fetch(url, { headers: { accept: 'text/csv' } });
      assert.equal(refused.status, 502);
      assert.match(await refused.text(), /could not be read/);
    } finally {
      await server.close();
      remote.closeAllConnections();
      await new Promise((resolve) => remote.close(resolve));
    }
  });
});

describe('remote mode: RDF answers passed through', () => {
  it('sends the remote N-Triples document itself to a client asking for N-Triples, and rewrites it for others', async () => {
    // A layout of the remote's own (a comment, a blank line), which our writer would not produce.
    const document = '# from the remote\n<http://example.org/a> <http://example.org/p> "x"@en .\n\n<http://example.org/a>  <http://example.org/q> _:b1 .\n';
    let mediaType = 'application/n-triples';
    const remote = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.setHeader('content-type', `${mediaType}; charset=utf-8`).end(document));
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const server = await startServer(new RemoteService({ queryEndpoint: `http://127.0.0.1:${(remote.address() as AddressInfo).port}/sparql` }));
    try {
      const url = server.url(`/sparql?${encodeQuery({ query: 'PREFIX ex: <http://example.org/> CONSTRUCT WHERE { ?s ?p ?o }' })}`);
      const ntriples = await fetch(url, { headers: { accept: 'application/n-triples' } });
      assert.equal(ntriples.headers.get('content-type'), 'application/n-triples; charset=utf-8');
      assert.equal(await ntriples.text(), document);
      const turtle = await (await fetch(url, { headers: { accept: 'text/turtle' } })).text();
      assert.match(turtle, /@prefix ex: <http:\/\/example\.org\/>/);
      assert.match(turtle, /ex:a ex:p "x"@en/);
      // text/plain, N-Triples' old name, is still N-Triples: passed on under the current one.
      mediaType = 'text/plain';
      const legacy = await fetch(url, { headers: { accept: 'application/n-triples' } });
      assert.equal(legacy.headers.get('content-type'), 'application/n-triples; charset=utf-8');
      assert.equal(await legacy.text(), document);
    } finally {
      await server.close();
      remote.closeAllConnections();
      await new Promise((resolve) => remote.close(resolve));
    }
  });
});

describe('remote mode: health of a remote that is gone or stuck', () => {
  it('answers 503 at once when nothing listens, and 200 once the remote is there', async () => {
    const remote = new FakeRemote();
    await remote.start();
    const port = remote.port;
    await remote.stop();
    const server = await startServer(new RemoteService({ queryEndpoint: `http://127.0.0.1:${port}/sparql`, healthCheckTtlMs: TTL_MS }));
    try {
      const started = Date.now();
      const down = await healthOf(server);
      assert.equal(down.status, 503);
      assert.match(down.body.remote.error, /cannot be reached \(ECONNREFUSED\)/);
      assert.ok(Date.now() - started < 1000);
      await remote.start(port);
      await pause(TTL_MS + 10);
      assert.equal((await healthOf(server)).status, 200);
    } finally {
      await server.close();
      await remote.stop();
    }
  });

  it('gives up on a remote that does not answer within the check time limit', { timeout: 10_000 }, async () => {
    const remote = new FakeRemote();
    await remote.start();
    remote.answer = 'slowly';
    const server = await startServer(new RemoteService({ queryEndpoint: remote.endpoint }));
    try {
      const started = Date.now();
      const stuck = await healthOf(server);
      assert.equal(stuck.status, 503);
      assert.match(stuck.body.remote.error, /did not answer within the time limit/);
      assert.ok(Date.now() - started < 4000);
    } finally {
      await server.close();
      await remote.stop();
    }
  });
});
