/**
 * The 34 W3C SPARQL 1.1 Protocol tests, run as real HTTP exchanges against a live server over a
 * real LocalService. The server is mounted under a path prefix, so the manifest's "/sparql/" is
 * rewritten to "{base}/sparql" as the manifest asks runners to do.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startLocalServer, type RunningServer } from '../http/harness.js';
import { readProtocolManifest, type ProtocolRequest, type ProtocolTest } from './protocol-manifest.js';

const BASE_PATH = '/marmotta';

const RESULT_TYPES = {
  boolean: ['application/sparql-results+json', 'application/sparql-results+xml'],
  tabular: ['application/sparql-results+json', 'application/sparql-results+xml', 'text/csv', 'text/tab-separated-values'],
  RDF: ['text/turtle', 'application/rdf+xml', 'application/n-triples', 'application/ld+json', 'application/n-quads', 'application/trig'],
};

let server: RunningServer;

before(async () => {
  server = await startLocalServer({ basePath: BASE_PATH });
});
after(async () => server.close());

describe('W3C SPARQL 1.1 Protocol tests', () => {
  for (const test of readProtocolManifest()) {
    it(`${test.id}: ${test.name}`, async () => {
      await resetStore(test);
      for (const [index, request] of test.requests.entries()) await runExchange(request, `${test.id} request ${index + 1}`);
    });
  }
});

/** Each test starts from an empty store holding only its ut:graphData, as named graphs. */
async function resetStore(test: ProtocolTest): Promise<void> {
  const inserts = test.graphData.map(({ file, graph }) => `GRAPH <${graph}> {\n${readFileSync(file, 'utf8')}\n}`);
  const update = `DROP ALL${inserts.length > 0 ? ` ;\nINSERT DATA {\n${inserts.join('\n')}\n}` : ''}`;
  const response = await fetch(server.url(`${BASE_PATH}/sparql/update`), {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: update,
  });
  assert.equal(response.status, 200, `setting up the store: ${await response.text()}`);
}

async function runExchange(request: ProtocolRequest, label: string): Promise<void> {
  const path = request.absolutePath.replace(/^\/sparql\/?/, `${BASE_PATH}/sparql`);
  const response = await fetch(server.url(path), {
    method: request.method,
    headers: request.headers,
    body: request.body && encodeBody(request.body),
    redirect: 'follow',
  });
  const text = await response.text();
  const statusClass = Math.floor(response.status / 100);
  assert.ok(
    request.expectedStatusClasses.includes(statusClass),
    `${label}: status ${response.status}, expected ${request.expectedStatusClasses.map((c) => `${c}xx`).join(' or ')}; body: ${text.slice(0, 300)}`,
  );
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (request.expectedFormat) {
    assert.ok(RESULT_TYPES[request.expectedFormat].includes(mediaType), `${label}: ${mediaType} is not a ${request.expectedFormat} format`);
  }
  if (request.expectedBoolean !== undefined) {
    assert.equal(booleanResult(mediaType, text), request.expectedBoolean, `${label}: boolean result`);
  }
}

function encodeBody(body: { chars: string; encoding: string }): Uint8Array {
  if (/^utf-?16/i.test(body.encoding)) return Buffer.from('\ufeff' + body.chars, 'utf16le');
  return new TextEncoder().encode(body.chars);
}

function booleanResult(mediaType: string, text: string): boolean {
  if (mediaType === 'application/sparql-results+json') return JSON.parse(text).boolean;
  const match = /<boolean>\s*(true|false)\s*<\/boolean>/.exec(text);
  assert.ok(match, `no boolean in ${text.slice(0, 200)}`);
  return match[1] === 'true';
}
