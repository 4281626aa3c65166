/**
 * GET {base}/sparql/store naming no graph: the whole dataset, default graph and named graphs, in a
 * quad format chosen by Accept (TriG by default, N-Quads on request); HEAD answers the same headers.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import N3 from 'n3';
import { startLocalServer, type RunningServer } from '../http/harness.js';

let server: RunningServer;

before(async () => {
  server = await startLocalServer();
  const response = await fetch(server.url('/sparql/update'), {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: 'INSERT DATA { <http://ex/a> <http://ex/p> "in default" . GRAPH <http://ex/g> { <http://ex/b> <http://ex/p> _:x } }',
  });
  assert.equal(response.status, 200);
});
after(async () => server.close());

function graphsOf(text: string, format: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const quad of new N3.Parser({ format }).parse(text)) counts.set(quad.graph.value, (counts.get(quad.graph.value) ?? 0) + 1);
  return counts;
}

test('GET with neither ?default nor ?graph answers every graph, in TriG by default', async () => {
  const response = await fetch(server.url('/sparql/store'));
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^application\/trig/);
  assert.deepEqual(
    graphsOf(await response.text(), 'application/trig'),
    new Map([
      ['', 1],
      ['http://ex/g', 1],
    ]),
  );
});

test('Accept: application/n-quads gives N-Quads; a triple-only format is not acceptable', async () => {
  const response = await fetch(server.url('/sparql/store'), { headers: { accept: 'application/n-quads' } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^application\/n-quads/);
  assert.deepEqual(
    graphsOf(await response.text(), 'application/n-quads'),
    new Map([
      ['', 1],
      ['http://ex/g', 1],
    ]),
  );
  const turtleOnly = await fetch(server.url('/sparql/store'), { headers: { accept: 'text/turtle' } });
  assert.equal(turtleOnly.status, 406);
  await turtleOnly.body?.cancel();
});

test('HEAD on the store answers like GET, without a body', async () => {
  const response = await fetch(server.url('/sparql/store'), { method: 'HEAD' });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^application\/trig/);
  assert.equal(await response.text(), '');
});

test('?default and ?graph still name one graph', async () => {
  const response = await fetch(server.url('/sparql/store?default'), { headers: { accept: 'application/n-triples' } });
  assert.equal(response.status, 200);
  assert.equal((await response.text()).trim().split('\n').length, 1);
});
