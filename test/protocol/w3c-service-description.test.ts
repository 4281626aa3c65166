/**
 * The W3C SPARQL 1.1 Service Description tests (rdf-tests/sparql11/service-description). The
 * manifest names three tests and describes them only by name; each is implemented here against
 * the live server, for the description reached at {base}/sparql/select and through {base}/sparql.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, Store, type Quad } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { startLocalServer, type RunningServer } from '../http/harness.js';
import { sharedTestsDir } from './protocol-manifest.js';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const VOID_TRIPLES = 'http://rdfs.org/ns/void#triples';
const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';
const LANGUAGES = ['SPARQL10Query', 'SPARQL11Query', 'SPARQL11Update'].map((name) => SD + name);

let server: RunningServer;

before(async () => {
  server = await startLocalServer({ basePath: '/marmotta' });
  const response = await fetch(server.url('/marmotta/sparql/update'), {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: 'INSERT DATA { <http://example.org/s> <http://example.org/p> 1 . GRAPH <http://example.org/g> { <http://example.org/s> <http://example.org/p> 2 } }',
  });
  assert.equal(response.status, 200, await response.text());
});
after(async () => server.close());

/** The names of the manifest's tests, so that a renamed or added test is noticed here. */
function manifestTestNames(): string[] {
  const text = readFileSync(join(sharedTestsDir(), 'service-description', 'manifest.ttl'), 'utf8');
  const store = new Store(new Parser({ baseIRI: 'http://example/manifest.ttl' }).parse(text));
  return store
    .getSubjects(RDF_TYPE, 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#ServiceDescriptionTest', null)
    .map((s) => s.value.slice(s.value.indexOf('#') + 1))
    .sort();
}

async function fetchDescription(path: string, accept: string): Promise<{ url: string; store: Store }> {
  const response = await fetch(server.url(path), { headers: { accept }, redirect: 'follow' });
  assert.equal(response.status, 200);
  const text = await response.text();
  const mediaType = response.headers.get('content-type')!.split(';')[0]!;
  const quads = mediaType === 'application/rdf+xml' ? await parseRdfXml(text, response.url) : new Parser({ baseIRI: response.url }).parse(text);
  return { url: response.url, store: new Store(quads) };
}

function parseRdfXml(text: string, baseIRI: string): Promise<Quad[]> {
  return new Promise((resolve, reject) => {
    const quads: Quad[] = [];
    const parser = new RdfXmlParser({ baseIRI });
    parser.on('data', (quad: Quad) => quads.push(quad));
    parser.on('error', reject);
    parser.on('end', () => resolve(quads));
    parser.end(text);
  });
}

describe('W3C SPARQL 1.1 Service Description tests', () => {
  it('covers every test of the manifest', () => {
    assert.deepEqual(manifestTestNames(), ['conforms-to-schema', 'has-endpoint-triple', 'returns-rdf']);
  });

  for (const path of ['/marmotta/sparql/select', '/marmotta/sparql']) {
    it(`returns-rdf: GET on endpoint returns RDF (${path})`, async () => {
      for (const accept of ['text/turtle', 'application/rdf+xml', 'application/n-triples', '*/*']) {
        const { store } = await fetchDescription(path, accept);
        assert.ok(store.size > 0, accept);
      }
    });

    it(`has-endpoint-triple: Service description contains a matching sd:endpoint triple (${path})`, async () => {
      const { url, store } = await fetchDescription(path, 'text/turtle');
      for (const endpoint of new Set([url, server.url(path)])) {
        assert.equal(store.getQuads(null, SD + 'endpoint', endpoint, null).length, 1, endpoint);
      }
    });
  }

  it('conforms-to-schema: Service description conforms to schema', async () => {
    const { store } = await fetchDescription('/marmotta/sparql/select', 'application/rdf+xml');
    const services = store.getSubjects(RDF_TYPE, SD + 'Service', null);
    assert.ok(services.length > 0, 'an sd:Service');
    for (const service of services) {
      const endpoints = store.getObjects(service, SD + 'endpoint', null);
      assert.ok(endpoints.length > 0 && endpoints.every((e) => e.termType === 'NamedNode'), 'sd:endpoint IRIs');
      const languages = store.getObjects(service, SD + 'supportedLanguage', null);
      assert.ok(languages.length > 0 && languages.every((l) => LANGUAGES.includes(l.value)), 'sd:supportedLanguage');
      for (const property of ['resultFormat', 'inputFormat', 'feature', 'extensionFunction', 'languageExtension']) {
        assert.ok(
          store.getObjects(service, SD + property, null).every((o) => o.termType === 'NamedNode'),
          `sd:${property} IRIs`,
        );
      }
      for (const dataset of store.getObjects(service, SD + 'defaultDataset', null)) {
        assert.ok(hasType(store, dataset, SD + 'Dataset'), 'sd:Dataset');
        for (const graph of store.getObjects(dataset, SD + 'defaultGraph', null)) {
          assert.ok(hasType(store, graph, SD + 'Graph'), 'sd:Graph');
          assertTripleCounts(store, graph);
        }
        for (const named of store.getObjects(dataset, SD + 'namedGraph', null)) {
          assert.ok(hasType(store, named, SD + 'NamedGraph'), 'sd:NamedGraph');
          const names = store.getObjects(named, SD + 'name', null);
          assert.equal(names.length, 1, 'one sd:name');
          for (const graph of store.getObjects(named, SD + 'graph', null)) assertTripleCounts(store, graph);
        }
      }
    }
    const named = store.getObjects(null, SD + 'name', null).map((n) => n.value);
    assert.ok(named.includes('http://example.org/g'), 'the named graph is described');
  });
});

function assertTripleCounts(store: Store, graph: Quad['subject'] | Quad['object']): void {
  for (const count of store.getObjects(graph, VOID_TRIPLES, null)) {
    assert.equal(count.termType, 'Literal');
    assert.equal((count as { datatype: { value: string } }).datatype.value, XSD_INTEGER);
    assert.match(count.value, /^\d+$/);
  }
}

function hasType(store: Store, node: Quad['object'], type: string): boolean {
  return store.getQuads(node as Quad['subject'], RDF_TYPE, type, null).length > 0;
}
