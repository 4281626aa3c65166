/**
 * The W3C SPARQL 1.1 Graph Store Protocol tests, run as real HTTP exchanges against a live server
 * over a real LocalService. The manifests' "/gsp" is rewritten to "/sparql/store", as they ask
 * runners to do; with direct identification a graph's IRI is then http://127.0.0.1:PORT/sparql/store/...
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import N3 from 'n3';
import { factory, type Quad } from '../../src/rdf/terms.js';
import { startLocalServer, type RunningServer } from '../http/harness.js';
import { matchRows } from '../w3c/isomorphism.js';
import { readGspManifest, type GspRequest } from './gsp-manifest.js';

const ENDPOINT = '/sparql/store';
const SUPPORTED = new Set(['IndirectGraphIdentification', 'DirectGraphIdentification', 'POSTGraphCreation']);

let server: RunningServer;

before(async () => {
  server = await startLocalServer();
});
after(async () => server.close());

for (const manifest of ['manifest-indirect.ttl', 'manifest-direct.ttl']) {
  describe(`W3C Graph Store Protocol tests (${manifest})`, () => {
    for (const test of readGspManifest(manifest)) {
      const unsupported = test.requires.filter((feature) => !SUPPORTED.has(feature));
      const skip = unsupported.length > 0 ? `needs ${unsupported.join(', ')}` : false;
      it(`${test.id}: ${test.name}`, { skip }, async () => {
        await emptyStore();
        const variables = new Map<string, string>();
        for (const [index, request] of test.requests.entries()) {
          await runExchange(request, variables, `${test.id} request ${index + 1} (${request.method})`);
        }
      });
    }
  });
}

async function emptyStore(): Promise<void> {
  const response = await fetch(server.url('/sparql/update'), {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: 'DROP ALL',
  });
  assert.equal(response.status, 200);
}

async function runExchange(request: GspRequest, variables: Map<string, string>, label: string): Promise<void> {
  const substitute = (text: string): string => [...variables].reduce((out, [name, value]) => out.split(name).join(value), text);
  const path = substitute(request.path).replace(/^\/gsp/, ENDPOINT);
  const response = await fetch(server.url(path), {
    method: request.method,
    headers: request.headers,
    body: request.body === undefined ? undefined : substitute(request.body),
  });
  const text = await response.text();
  const status = String(response.status);
  assert.ok(
    request.expected.statuses.some((expected) => expected === status || (expected.endsWith('xx') && expected[0] === status[0])),
    `${label}: status ${status}, expected ${request.expected.statuses.join(' or ')}; body: ${text.slice(0, 300)}`,
  );
  if (request.expected.location) {
    const location = response.headers.get('location');
    assert.ok(location, `${label}: no Location header`);
    variables.set(request.expected.location, location);
  }
  const expectedType = request.expected.headers['content-type'];
  if (expectedType) assert.equal(essence(response.headers.get('content-type')), essence(expectedType), `${label}: Content-Type`);
  if (request.expected.body !== undefined && request.method !== 'HEAD') {
    const expected = parse(request.expected.body, expectedType);
    const actual = parse(text, response.headers.get('content-type') ?? 'text/turtle');
    const rows = (quads: Quad[]) => quads.map((q) => [q.subject, q.predicate, q.object, q.graph] as const);
    assert.ok(matchRows(rows(expected), rows(actual)), `${label}: the graph differs\nexpected:\n${request.expected.body}\nactual:\n${text}`);
  }
}

function essence(type: string | null | undefined): string {
  return (type ?? '').split(';')[0]!.trim().toLowerCase();
}

function parse(text: string, contentType: string | undefined): Quad[] {
  return new N3.Parser({ format: essence(contentType) || 'text/turtle', factory }).parse(text) as Quad[];
}
