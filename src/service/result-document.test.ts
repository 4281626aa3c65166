import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalService, type LocalService } from './local-service.js';
import type { DocumentFormats, QueryResult } from './sparql-service.js';
import { parseSparqlResults } from '../formats/results-parser.js';

const EX = 'http://example.org/';
const JSON_RESULTS = { format: 'json', mediaType: 'application/sparql-results+json' };
const N_TRIPLES = { format: 'ntriples', mediaType: 'application/n-triples' };
const AS_THE_HTTP_LAYER_ASKS: DocumentFormats = { solutions: JSON_RESULTS, quads: N_TRIPLES };

/** VALUES ?i { 0 ... count-1 }. */
function values(variable: string, count: number): string {
  return `VALUES ?${variable} { ${Array.from({ length: count }, (_, i) => i).join(' ')} }`;
}

async function rowCount(result: QueryResult): Promise<number> {
  assert.ok(result.kind === 'bindings' || result.kind === 'quads');
  let count = 0;
  for await (const batch of result.kind === 'bindings' ? result.rows : result.quads) count += batch.length;
  return count;
}

describe('results written by the query worker (documentFormats)', () => {
  let service: LocalService;
  before(async () => {
    service = await createLocalService({ memory: true, workers: 1 });
    await service.update({ update: `INSERT DATA { <${EX}a> <${EX}name> "Ann" ; <${EX}age> 41 . <${EX}b> <${EX}name> "Bob"@en . }` });
  });
  after(() => service.close());

  test('a small SELECT comes written in the format asked for, and its rows can still be read', async () => {
    const result = await service.query({ query: `SELECT ?s ?name WHERE { ?s <${EX}name> ?name } ORDER BY ?s`, documentFormats: AS_THE_HTTP_LAYER_ASKS });
    assert.equal(result.kind, 'bindings');
    assert.equal(result.kind === 'bindings' && result.document?.mediaType, JSON_RESULTS.mediaType);
    const document = result.kind === 'bindings' ? result.document! : undefined;
    assert.equal(document?.rows, 2);
    assert.equal(new TextDecoder().decode(document?.bytes), document?.text);
    const parsed = await parseSparqlResults(document!.text!, JSON_RESULTS.mediaType);
    assert.equal(parsed.kind, 'bindings');
    assert.deepEqual(parsed.kind === 'bindings' && parsed.rows.map((row) => row.map((term) => term?.value)), [
      [`${EX}a`, 'Ann'],
      [`${EX}b`, 'Bob'],
    ]);
    assert.equal(await rowCount(result), 2);
  });

  test('an empty result is a document too', async () => {
    const result = await service.query({ query: `SELECT ?s WHERE { ?s <${EX}nothing> ?o }`, documentFormats: AS_THE_HTTP_LAYER_ASKS });
    assert.ok(result.kind === 'bindings' && result.document);
    assert.equal(result.document.rows, 0);
    assert.deepEqual(JSON.parse(result.document.text!), { head: { vars: ['s'] }, results: { bindings: [] } });
    assert.equal(await rowCount(result), 0);
  });

  test('CONSTRUCT comes in the RDF format asked for', async () => {
    const result = await service.query({ query: `CONSTRUCT { ?s <${EX}label> ?n } WHERE { ?s <${EX}name> ?n }`, documentFormats: AS_THE_HTTP_LAYER_ASKS });
    assert.ok(result.kind === 'quads' && result.document);
    assert.equal(result.document.mediaType, N_TRIPLES.mediaType);
    assert.equal(result.document.rows, 2);
    assert.equal(result.document.text!.trim().split('\n').length, 2);
    assert.match(result.document.text!, /"Bob"@en \.$/m);
    assert.equal(await rowCount(result), 2);
  });

  test('no document unless asked for, nor for a kind of result not asked for', async () => {
    const plain = await service.query({ query: `SELECT * WHERE { ?s ?p ?o }` });
    assert.ok(plain.kind === 'bindings' && plain.document === undefined);
    assert.equal(await rowCount(plain), 3);
    const onlyQuads = await service.query({ query: `SELECT * WHERE { ?s ?p ?o }`, documentFormats: { quads: N_TRIPLES } });
    assert.ok(onlyQuads.kind === 'bindings' && onlyQuads.document === undefined);
    assert.equal(await rowCount(onlyQuads), 3);
  });

  test('HTML is left to the HTTP layer (it needs the query, a nonce and the time taken)', async () => {
    const html = { format: 'html', mediaType: 'text/html' };
    const result = await service.query({ query: `SELECT * WHERE { ?s ?p ?o }`, documentFormats: { solutions: html } });
    assert.ok(result.kind === 'bindings' && result.document === undefined);
    assert.equal(await rowCount(result), 3);
  });

  test('a result larger than one message streams as rows, without a document', async () => {
    // 200 × 200 rows of two cells: more cells than one worker message holds.
    const result = await service.query({ query: `SELECT * WHERE { ${values('i', 200)} ${values('j', 200)} }`, documentFormats: AS_THE_HTTP_LAYER_ASKS });
    assert.ok(result.kind === 'bindings' && result.document === undefined);
    assert.equal(await rowCount(result), 40_000);
  });

  test('ASK is answered as a boolean, as before', async () => {
    const result = await service.query({ query: `ASK { <${EX}a> ?p ?o }`, documentFormats: AS_THE_HTTP_LAYER_ASKS });
    assert.deepEqual(result, { kind: 'boolean', value: true });
  });
});
