/**
 * The Graph Store Protocol with RDF 1.2 content: PUT and POST of Turtle and N-Triples that hold
 * triple terms, reifiers, annotations and directional literals; GET in every RDF format, each
 * carrying them or refusing with a clear error.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import N3 from 'n3';
import type * as RDF from '@rdfjs/types';
import { startLocalServer, type RunningServer } from '../http/harness.js';

let server: RunningServer;
before(async () => {
  server = await startLocalServer();
});
after(async () => server.close());

const GRAPH = 'http://ex/g12';
const TURTLE = `VERSION "1.2"
PREFIX : <http://ex/>
:s :p "مرحبا"@ar--rtl ~ :r {| :source :web |} .
`;
const NTRIPLES = '<http://ex/a> <http://ex/b> <<( <http://ex/s> <http://ex/p> <<( _:x <http://ex/q> "1" )>> )>> .\n_:x <http://ex/q> "1" .\n';

async function put(body: string, contentType: string, graph = GRAPH, method = 'PUT'): Promise<number> {
  const response = await fetch(server.url(`/sparql/store?graph=${encodeURIComponent(graph)}`), { method, headers: { 'content-type': contentType }, body });
  await response.body?.cancel();
  return response.status;
}

async function get(accept: string, graph = GRAPH): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(server.url(`/sparql/store?graph=${encodeURIComponent(graph)}`), { headers: { accept } });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

test('PUT Turtle 1.2 and POST N-Triples 1.2; GET gives them back in the N-Triples family and RDF/XML', async () => {
  assert.ok([200, 201, 204].includes(await put(TURTLE, 'text/turtle')));
  assert.ok([200, 204].includes(await put(NTRIPLES, 'application/n-triples', GRAPH, 'POST')));

  const nt = await get('application/n-triples');
  assert.equal(nt.status, 200);
  const quads = new N3.Parser({ format: 'N-Triples' }).parse(nt.text);
  assert.equal(quads.length, 5, nt.text);
  assert.match(nt.text, /"مرحبا"@ar--rtl/);
  assert.match(
    nt.text,
    /<http:\/\/ex\/r> <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#reifies> <<\( <http:\/\/ex\/s> <http:\/\/ex\/p> "مرحبا"@ar--rtl \)>> \./,
  );
  // The blank node inside the nested triple term is the one the data describes.
  const nested = quads.find((q) => q.subject.value === 'http://ex/a')!.object as unknown as RDF.Quad;
  const inner = nested.object as unknown as RDF.Quad;
  assert.equal(inner.subject.value, quads.find((q) => q.subject.termType === 'BlankNode')!.subject.value);

  for (const accept of ['text/turtle', 'application/rdf+xml']) {
    const answer = await get(accept);
    assert.equal(answer.status, 200, accept);
    const format = accept === 'text/turtle' ? 'text/turtle' : undefined;
    if (format) assert.equal(new N3.Parser({ format }).parse(answer.text).length, 5, answer.text);
    else assert.match(answer.text, /rdf:parseType="Triple"/);
  }
});

test('GET as JSON-LD, which has no triple terms, is refused with the reason', async () => {
  assert.ok([200, 201, 204].includes(await put(TURTLE, 'text/turtle', 'http://ex/jsonld')));
  const answer = await get('application/ld+json', 'http://ex/jsonld');
  assert.notEqual(answer.status, 200, answer.text);
  assert.match(answer.text, /JSON-LD cannot carry RDF 1\.2 triple terms/);
});

test('a directional literal alone travels in JSON-LD as @direction', async () => {
  assert.ok([200, 201, 204].includes(await put('<http://ex/s> <http://ex/p> "abc"@he--rtl .', 'application/n-triples', 'http://ex/dir')));
  const answer = await get('application/ld+json', 'http://ex/dir');
  assert.equal(answer.status, 200);
  assert.match(answer.text, /"@direction":"rtl"/);
});

test('invalid RDF 1.2 content is a 400 naming the line', async () => {
  const response = await fetch(server.url(`/sparql/store?graph=${encodeURIComponent(GRAPH)}`), {
    method: 'PUT',
    headers: { 'content-type': 'application/n-triples' },
    body: '<http://ex/s> <http://ex/p> <http://ex/o> .\n<<( <http://ex/s> <http://ex/p> <http://ex/o> )>> <http://ex/p> <http://ex/o> .\n',
  });
  assert.equal(response.status, 400);
  assert.match(await response.text(), /line 2/);
});
