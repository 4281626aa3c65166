/**
 * SERVICE and LOAD against real HTTP peers on loopback: another Quiver endpoint for SERVICE,
 * a plain web server holding a Turtle document for LOAD. Loopback is no target by default
 * (net/fetch-targets.ts): these peers are opened with an allow list, as `--fetch-allow` does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStore } from '../../src/store/lmdb-store.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { runQuery, runUpdate } from '../../src/engine/query-engine.js';
import { EvaluationError } from '../../src/errors.js';
import { SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

/** The peers of this test listen on loopback. */
const LOOPBACK_PEERS = { fetchSettings: { allow: ['127.0.0.1'] } };

async function rows(store: QuadStore, query: string): Promise<string[]> {
  const result = await runQuery(store, query, LOOPBACK_PEERS);
  if (result.kind !== 'bindings') throw new Error('expected solutions');
  const out: string[] = [];
  for (const batch of result.rows) for (const row of batch) out.push(row.map((t) => t?.value ?? '-').join(' '));
  return out.sort();
}

describe('SERVICE and LOAD over HTTP', () => {
  let remote: RunningServer;
  let documents: Server;
  let documentsOrigin: string;
  let store: QuadStore;

  before(async () => {
    remote = await startLocalServer();
    const insert = await fetch(remote.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: 'INSERT DATA { <urn:a> <urn:name> "remote A" . <urn:b> <urn:name> "remote B" }',
    });
    assert.equal(insert.status, 200);
    documents = createServer((req, res) => {
      if (req.url === '/data.ttl') {
        res.writeHead(200, { 'content-type': 'text/turtle' });
        res.end('<urn:x> <urn:p> "loaded" . <urn:x> <urn:q> _:b . _:b <urn:p> "inner" .');
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: '/data.ttl' });
        res.end();
      } else if (req.url === '/to-file') {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    documentsOrigin = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
    store = openStore({ memory: true });
    await runUpdate(store, 'INSERT DATA { <urn:a> <urn:local> 1 . <urn:c> <urn:local> 3 }');
  });

  after(async () => {
    await store.close();
    await remote.close();
    await new Promise((resolve) => documents.close(resolve));
  });

  it('joins local solutions with a remote endpoint’s', async () => {
    const query = `SELECT ?s ?n ?v { ?s <urn:local> ?v SERVICE <${remote.url('/sparql/select')}> { ?s <urn:name> ?n } }`;
    assert.deepEqual(await rows(store, query), ['urn:a remote A 1']);
  });

  it('fails on an unreachable endpoint, unless SILENT', async () => {
    const dead = 'http://127.0.0.1:9/sparql';
    await assert.rejects(runQuery(store, `SELECT * { SERVICE <${dead}> { ?s ?p ?o } }`, LOOPBACK_PEERS), EvaluationError);
    assert.deepEqual(await rows(store, `SELECT ?v { ?s <urn:local> ?v SERVICE SILENT <${dead}> { ?s ?p ?o } }`), ['1', '3']);
  });

  it('LOADs a document into a graph, following redirects', async () => {
    await runUpdate(store, `LOAD <${documentsOrigin}/moved> INTO GRAPH <urn:g>`, LOOPBACK_PEERS);
    assert.deepEqual(await rows(store, 'SELECT ?o { GRAPH <urn:g> { <urn:x> <urn:q>/<urn:p> ?o } }'), ['inner']);
  });

  it('fails a LOAD of a missing document and keeps nothing of the request, unless SILENT', async () => {
    await assert.rejects(runUpdate(store, `INSERT DATA { <urn:y> <urn:p> 1 } ; LOAD <${documentsOrigin}/missing>`, LOOPBACK_PEERS), EvaluationError);
    assert.deepEqual(await rows(store, 'SELECT ?p { <urn:y> ?p ?o }'), []);
    await runUpdate(store, `LOAD SILENT <${documentsOrigin}/missing>`, LOOPBACK_PEERS);
  });

  it('fetches an aliased endpoint or document IRI from its alias, which the target policy still judges', async () => {
    const endpoint = 'http://endpoint.example/sparql';
    const aliases = { [endpoint]: remote.url('/sparql/select'), 'http://data.example/doc.ttl': `${documentsOrigin}/data.ttl` };
    const query = `SELECT ?s ?n ?v { ?s <urn:local> ?v SERVICE <${endpoint}> { ?s <urn:name> ?n } }`;
    const result = await runQuery(store, query, { fetchSettings: { allow: ['127.0.0.1'], aliases } });
    assert.equal(result.kind, 'bindings');
    assert.deepEqual([...(result as { rows: Iterable<unknown[]> }).rows].flat().length, 1);
    await assert.rejects(runQuery(store, query, { fetchSettings: { aliases } }), /SERVICE <http:\/\/endpoint\.example\/sparql>.*loopback/);
    await runUpdate(store, 'LOAD <http://data.example/doc.ttl> INTO GRAPH <urn:aliased>', { fetchSettings: { allow: ['127.0.0.1'], aliases } });
    assert.deepEqual(await rows(store, 'SELECT ?o { GRAPH <urn:aliased> { <urn:x> <urn:p> ?o } }'), ['loaded']);
  });

  it('SERVICE ?var asks each endpoint the pattern joined with it binds the variable to', async () => {
    const dead = 'http://127.0.0.1:9/sparql';
    const aliases = { 'http://one.example/sparql': remote.url('/sparql/select'), 'http://dead.example/sparql': dead };
    const settings = { fetchSettings: { allow: ['127.0.0.1'], aliases } };
    await runUpdate(
      store,
      'INSERT DATA { GRAPH <urn:catalog> { <urn:one> <urn:at> <http://one.example/sparql> . <urn:dead> <urn:at> <http://dead.example/sparql> } }',
    );
    const answer = async (query: string) => {
      const result = await runQuery(store, query, settings);
      assert.equal(result.kind, 'bindings');
      const { variables, rows } = result as { variables: string[]; rows: Iterable<(import('@rdfjs/types').Term | undefined)[][]> };
      return [...rows]
        .flat()
        .map((row) => row.map((t, i) => `${variables[i]}=${t?.value ?? '-'}`).join(' '))
        .sort();
    };
    assert.deepEqual(await answer('SELECT ?e ?n { GRAPH <urn:catalog> { <urn:one> <urn:at> ?e } SERVICE ?e { <urn:a> <urn:name> ?n } }'), [
      'e=http://one.example/sparql n=remote A',
    ]);
    // OPTIONAL: the left side gives the endpoints; SILENT turns the dead one into its empty solution.
    assert.deepEqual(await answer('SELECT ?s ?n { GRAPH <urn:catalog> { ?s <urn:at> ?e } OPTIONAL { SERVICE SILENT ?e { <urn:b> <urn:name> ?n } } }'), [
      's=urn:dead n=-',
      's=urn:one n=remote B',
    ]);
    await assert.rejects(answer('SELECT ?n { GRAPH <urn:catalog> { ?s <urn:at> ?e } SERVICE ?e { <urn:b> <urn:name> ?n } }'), EvaluationError);
    // Nothing binds the variable: an error, which SILENT hides.
    await assert.rejects(answer('SELECT ?n { SERVICE ?e { ?s <urn:name> ?n } }'), /no pattern joined with it binds \?e/);
    assert.deepEqual(await answer('SELECT ?n { SERVICE SILENT ?e { ?s <urn:name> ?n } }'), ['n=-']);
  });

  it('never follows a redirect to a non-http scheme', async () => {
    await assert.rejects(runUpdate(store, `LOAD <${documentsOrigin}/to-file>`, LOOPBACK_PEERS), /only fetches http\(s\)/);
  });
});
