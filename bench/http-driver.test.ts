import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { canonicalTriple, countAnswer, runMixes } from './http-driver.js';
import type { QueryMix } from './query-mixes.js';

const json = (rows: object[]): string => JSON.stringify({ head: { vars: ['x'] }, results: { bindings: rows } });

test('SELECT answers count their bindings; the digest ignores row order', () => {
  const a = { x: { type: 'uri', value: 'http://example.org/a' } };
  const b = { x: { type: 'literal', value: 'b', 'xml:lang': 'EN' } };
  const first = countAnswer('select', json([a, b]));
  assert.equal(first.rows, 2);
  assert.equal(countAnswer('select', json([b, a])).digest, first.digest);
  assert.notEqual(countAnswer('select', json([a])).digest, first.digest);
});

test('an explicit xsd:string datatype does not change the digest', () => {
  const plain = countAnswer('select', json([{ x: { type: 'literal', value: 'v' } }]));
  const typed = countAnswer('select', json([{ x: { type: 'literal', value: 'v', datatype: 'http://www.w3.org/2001/XMLSchema#string' } }]));
  assert.equal(typed.digest, plain.digest);
});

test('ASK counts as one row when true', () => {
  assert.equal(countAnswer('ask', '{"head":{},"boolean":true}').rows, 1);
  assert.equal(countAnswer('ask', '{"head":{},"boolean":false}').rows, 0);
});

test('CONSTRUCT and DESCRIBE answers count distinct N-Triples lines', () => {
  const t = '<http://e/s> <http://e/p> "o" .';
  assert.equal(countAnswer('construct', `${t}\n${t}\n<http://e/s> <http://e/p> "p" .\n`).rows, 2);
  assert.equal(countAnswer('describe', '').rows, 0);
});

test('a body that is not SPARQL JSON results is an error, not zero rows', () => {
  assert.throws(() => countAnswer('select', '{"error":"boom"}'));
});

test('runMixes spreads whole mixes over the clients and records every query, errors included', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      seen.push(req.headers['content-type'] ?? '');
      if (body.includes('FAIL')) res.writeHead(500).end('no');
      else res.writeHead(200, { 'content-type': 'application/sparql-results+json' }).end(json([{}, {}, {}]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql`;
  const instance = (seq: number, text: string) => ({ query: 'q02', seq, form: 'select' as const, params: {}, text, deterministic: true });
  const mixes: QueryMix[] = [1, 2, 3].map((mix) => ({ mix, queries: [instance(1, 'SELECT * {}'), instance(2, mix === 2 ? 'FAIL' : 'SELECT * {}')] }));
  try {
    const run = await runMixes(mixes, { endpoint, clients: 2, timeoutMs: 5000 });
    assert.equal(run.samples.length, 6);
    assert.equal(run.samples.filter((s) => s.rows === 3).length, 5);
    const failed = run.samples.find((s) => s.error !== undefined)!;
    assert.deepEqual([failed.mix, failed.seq], [2, 2]);
    assert.match(failed.error!, /HTTP 500/);
    assert.ok(seen.every((type) => type === 'application/sparql-query'));
  } finally {
    server.close();
  }
});

test('N-Triples answers compare the same whether an engine separates terms with tabs or spaces', () => {
  assert.equal(canonicalTriple('<http://e/s>\t<http://e/p>\t"a\tb  c" .'), '<http://e/s> <http://e/p> "a\tb  c" .');
  assert.equal(canonicalTriple('<http://e/s> <http://e/p> "say \\"hi\\"  " .'), '<http://e/s> <http://e/p> "say \\"hi\\"  " .');
  const spaced = countAnswer('describe', '<http://e/s> <http://e/p> "o"@en .\n');
  assert.equal(countAnswer('describe', '<http://e/s>\t<http://e/p>\t"o"@en .\n').digest, spaced.digest);
});

test("an engine's protocol needs go on the wire: form encoding, extra parameters, a prologue", async () => {
  const requests: { url: string; type: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', type: req.headers['content-type'] ?? '', body });
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' }).end(json([{}]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql`;
  const mixes: QueryMix[] = [{ mix: 1, queries: [{ query: 'q01', seq: 1, form: 'select', params: {}, text: 'SELECT * {}', deterministic: true }] }];
  try {
    const protocol = { encoding: 'form' as const, params: { 'default-graph-uri': 'http://g' }, prologue: 'DEFINE x "y"' };
    const run = await runMixes(mixes, { endpoint, clients: 1, timeoutMs: 5000, protocol });
    assert.equal(run.samples[0].rows, 1);
    assert.equal(requests[0].url, '/sparql?default-graph-uri=http%3A%2F%2Fg');
    assert.equal(requests[0].type, 'application/x-www-form-urlencoded');
    assert.equal(new URLSearchParams(requests[0].body).get('query'), 'DEFINE x "y"\nSELECT * {}');
  } finally {
    server.close();
  }
});
