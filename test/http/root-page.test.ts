/**
 * The root of the server leads to the query page, with and without a base path, as the roots of
 * Fuseki and Oxigraph do; and the plan of a query names the graphs its GRAPH clauses read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORM, startLocalServer, type RunningServer } from './harness.js';

describe('the root of the server', () => {
  let plain: RunningServer;
  let based: RunningServer;

  before(async () => {
    plain = await startLocalServer();
    based = await startLocalServer({ basePath: '/quiver' });
  });
  after(async () => {
    await plain?.close();
    await based?.close();
  });

  it('redirects / to the query page', async () => {
    const response = await fetch(plain.url('/'), { redirect: 'manual' });
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), '/sparql/select');
  });

  it('redirects {base}/ and {base} to the query page under the base path', async () => {
    for (const path of ['/quiver/', '/quiver']) {
      const response = await fetch(based.url(path), { redirect: 'manual' });
      assert.equal(response.status, 302, path);
      assert.equal(response.headers.get('location'), '/quiver/sparql/select', path);
    }
    assert.equal((await fetch(based.url('/'))).status, 404, 'outside the base path there is nothing');
  });

  it('the redirect ends on the query page in a browser', async () => {
    const response = await fetch(based.url('/quiver/'), { headers: { accept: 'text/html' } });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /<a href="\/quiver\/sparql\/select" aria-current="page">Query<\/a><a href="\/quiver\/sparql\/update">Update<\/a>/);
  });

  it('names the graph of a GRAPH clause in the plan', async () => {
    const response = await fetch(plain.url('/sparql/select'), {
      method: 'POST',
      headers: { 'content-type': FORM, accept: 'application/json' },
      body: new URLSearchParams({ query: 'SELECT * { GRAPH <http://example.org/g> { ?s ?p ?o } }', explain: 'true' }),
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /\(in graph <http:\/\/example\.org\/g>\)/);
  });
});
