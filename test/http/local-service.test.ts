/**
 * End to end: HTTP requests against a server over a real LocalService (worker threads, a throw-away
 * LMDB store, the real engine and serializers).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../reliability/server-process.js';
import { encodeQuery, FORM, MISSPELLED_FORM, SPARQL_QUERY, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

const EX = 'http://example.org/';
const DATA = `PREFIX ex: <${EX}>
INSERT DATA {
  ex:alice ex:name "Alice" ; ex:age 30 .
  ex:bob ex:name "Bob"@en ; ex:age 25 .
  GRAPH ex:g { ex:carol ex:name "Carol <script>" }
}`;

describe('a server over a real LocalService', () => {
  let server: RunningServer;

  before(async () => {
    server = await startLocalServer({ basePath: '/marmotta' });
    const response = await update(DATA);
    assert.equal(response.status, 200, await response.text());
  });
  after(async () => server.close());

  function update(text: string, path = '/marmotta/sparql/update'): Promise<Response> {
    return fetch(server.url(path), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: text });
  }

  function select(query: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(server.url(`/marmotta/sparql/select?${encodeQuery({ query, ...extra })}`), { headers });
  }

  it('answers SELECT in JSON, XML, CSV, TSV and HTML', async () => {
    const query = `SELECT ?name WHERE { ?s <${EX}name> ?name } ORDER BY ?name`;
    const json = (await (await select(query)).json()) as any;
    assert.deepEqual(
      json.results.bindings.map((b: any) => b.name.value),
      ['Alice', 'Bob'],
    );
    assert.match(await (await select(query, { output: 'xml' })).text(), /<literal xml:lang="en">Bob<\/literal>/);
    assert.equal(await (await select(query, { output: 'csv' })).text(), 'name\r\nAlice\r\nBob\r\n');
    assert.equal(await (await select(query, { output: 'tsv' })).text(), '?name\n"Alice"\n"Bob"@en\n');
    const html = await select(query, { output: 'html' });
    assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await html.text(), /Alice/);
  });

  it('answers ASK, CONSTRUCT and DESCRIBE', async () => {
    assert.equal(((await (await select(`ASK { <${EX}alice> ?p ?o }`)).json()) as any).boolean, true);
    const turtle = await select(`CONSTRUCT { ?s <${EX}label> ?n } WHERE { ?s <${EX}name> ?n }`);
    assert.equal(turtle.headers.get('content-type'), 'text/turtle; charset=utf-8');
    assert.match(await turtle.text(), /"Alice"/);
    const described = await select(`DESCRIBE <${EX}alice>`, { output: 'ntriples' });
    assert.match(await described.text(), /<http:\/\/example\.org\/alice> <http:\/\/example\.org\/age> "30"/);
  });

  it('escapes values in HTML results', async () => {
    const html = await (await select(`SELECT ?n { GRAPH ?g { ?s <${EX}name> ?n } }`, { output: 'html' })).text();
    assert.ok(html.includes('Carol &lt;script&gt;'));
    assert.ok(!html.includes('<script>'));
  });

  it('applies the protocol dataset', async () => {
    const count = async (extra: Record<string, string>): Promise<string> => {
      const json = (await (await select(`SELECT (COUNT(*) AS ?c) { ?s ?p ?o }`, extra)).json()) as any;
      return json.results.bindings[0].c.value;
    };
    assert.equal(await count({}), '4');
    assert.equal(await count({ 'default-graph-uri': `${EX}g` }), '1');
  });

  it('reports a syntax error with 400, line and column', async () => {
    const response = await select('SELECT * WHERE {\n  ?s ?p \n}');
    assert.equal(response.status, 400);
    assert.match(await response.text(), /line \d+, column \d+/);
  });

  it('runs updates by every route of the contract', async () => {
    const graph = (n: number) => `<${EX}route${n}>`;
    const routes: [string, RequestInit][] = [
      [`/marmotta/sparql/update?${encodeQuery({ update: `CREATE GRAPH ${graph(1)}` })}`, {}],
      [`/marmotta/sparql/update?${encodeQuery({ query: `CREATE GRAPH ${graph(2)}` })}`, {}],
      ['/marmotta/sparql/update', { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: `CREATE GRAPH ${graph(3)}` }],
      ['/marmotta/sparql/update', { method: 'POST', headers: { 'content-type': FORM }, body: encodeQuery({ update: `CREATE GRAPH ${graph(4)}` }) }],
      ['/marmotta/sparql/update', { method: 'POST', headers: { 'content-type': MISSPELLED_FORM }, body: encodeQuery({ query: `CREATE GRAPH ${graph(5)}` }) }],
      ['/marmotta/sparql', { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: `CREATE GRAPH ${graph(6)}` }],
      ['/marmotta/sparql', { method: 'POST', headers: { 'content-type': FORM }, body: encodeQuery({ update: `CREATE GRAPH ${graph(7)}` }) }],
    ];
    for (const [path, init] of routes) {
      const response = await fetch(server.url(path), init);
      assert.equal(response.status, 200, `${path}: ${await response.text()}`);
    }
    const json = (await (await select(`SELECT ?g { GRAPH ?g {} FILTER(STRSTARTS(STR(?g), "${EX}route")) }`)).json()) as any;
    assert.equal(json.results.bindings.length, routes.length);
  });

  it('answers 500 with the message for a failed update, and keeps nothing of it', async () => {
    const response = await update(`INSERT DATA { <${EX}tx> <${EX}p> 1 } ; CREATE GRAPH <${EX}g>`);
    assert.equal(response.status, 500);
    assert.ok((await response.text()).length > 0);
    assert.equal(((await (await select(`ASK { <${EX}tx> ?p ?o }`)).json()) as any).boolean, false);
  });

  it('answers 400 for using-graph-uri combined with WITH', async () => {
    const response = await fetch(server.url(`/marmotta/sparql/update?${encodeQuery({ 'using-graph-uri': `${EX}g` })}`), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: `WITH <${EX}g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }`,
    });
    assert.equal(response.status, 400);
  });

  it('answers 504 when a query runs past the time limit it asked for', async () => {
    const big = Array.from({ length: 40 }, (_, i) => `<${EX}n${i}> <${EX}next> ${i} .`).join('\n');
    assert.equal((await update(`INSERT DATA { GRAPH <${EX}big> { ${big} } }`)).status, 200);
    const response = await select(`SELECT (COUNT(*) AS ?c) { GRAPH <${EX}big> { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?t ?h } }`, { timeout: '0.001' });
    assert.equal(response.status, 504, await response.text());
  });

  it('serves the query page and description under the base path, and 404 outside it', async () => {
    const page = await fetch(server.url('/marmotta/sparql/select'), { headers: { accept: 'text/html' } });
    assert.match(await page.text(), /action="\/marmotta\/sparql\/select"/);
    const description = await (await fetch(server.url('/marmotta/sparql/select'))).text();
    assert.ok(description.includes(`<${server.url('/marmotta/sparql/select')}>`));
    assert.equal((await fetch(server.url('/sparql/select'))).status, 404);
    const redirect = await fetch(server.url('/marmotta/sparql?query=ASK%7B%7D'), { redirect: 'manual' });
    assert.equal(redirect.headers.get('location'), '/marmotta/sparql/select?query=ASK%7B%7D');
  });

  it('follows the redirect of /sparql to a result', async () => {
    const response = await fetch(server.url(`/marmotta/sparql?${encodeQuery({ query: 'ASK {}' })}`));
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as any).boolean, true);
  });

  it('answers a POSTed query on /sparql like /sparql/select', async () => {
    const response = await fetch(server.url('/marmotta/sparql'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY }, body: 'ASK {}' });
    assert.equal(((await response.json()) as any).boolean, true);
  });
});

describe('server options', () => {
  it('refuses GET updates with --no-get-update, but still serves the update page', async () => {
    const server = await startLocalServer({ noGetUpdate: true });
    try {
      const refused = await fetch(server.url(`/sparql/update?${encodeQuery({ update: 'CLEAR ALL' })}`));
      assert.equal(refused.status, 405);
      assert.equal(refused.headers.get('allow'), 'POST, OPTIONS');
      const page = await fetch(server.url('/sparql/update'), { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      const posted = await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: 'CLEAR ALL' });
      assert.equal(posted.status, 200);
    } finally {
      await server.close();
    }
  });

  it('answers 413 for a body above --max-body', async () => {
    const server = await startLocalServer({ maxBody: 1024 });
    try {
      const body = `ASK { FILTER("${'x'.repeat(2000)}" != "") }`;
      const response = await fetch(server.url('/sparql/select'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY }, body });
      assert.equal(response.status, 413);
    } finally {
      await server.close();
    }
  });

  it('answers 413 at every door to a body far above --max-body, still being sent when refused', async () => {
    // A server process of its own: in this process the client's writes and the server's answer
    // would take turns on one event loop, and the client would finish sending first.
    const dir = mkdtempSync(join(tmpdir(), 'quiver-413-'));
    const server = await startServerProcess(['--store', join(dir, 'store'), '--max-body', '65536']);
    // Megabytes past the limit: the 413 goes out while the client still writes (a connection
    // closed then would reset the client before it reads the answer).
    const padding = 'x'.repeat(8 * 1024 * 1024);
    const requests: [string, string, string, string][] = [
      ['POST', '/sparql/select', SPARQL_QUERY, `ASK { FILTER("${padding}" != "") }`],
      ['POST', '/sparql', FORM, encodeQuery({ query: `ASK { FILTER("${padding}" != "") }` })],
      ['POST', '/sparql/update', SPARQL_UPDATE, `INSERT DATA { <urn:a> <urn:b> "${padding}" }`],
      ['POST', '/sparql/update', FORM, encodeQuery({ update: `INSERT DATA { <urn:a> <urn:b> "${padding}" }` })],
      ['PUT', '/sparql/store?default', 'application/n-triples', `<urn:a> <urn:b> "${padding}" .`],
      ['POST', '/sparql/store?default', 'text/turtle', `<urn:a> <urn:b> "${padding}" .`],
    ];
    try {
      for (const [method, path, contentType, body] of requests) {
        const response = await fetch(server.origin + path, { method, headers: { 'content-type': contentType }, body });
        assert.equal(response.status, 413, `${method} ${path} (${contentType})`);
        await response.text();
      }
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('honours X-Forwarded-Proto/Host only with trustProxy', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'sparql.example.org' };
    const trusting = await startLocalServer({ trustProxy: true });
    const plain = await startLocalServer();
    try {
      const trusted = await (await fetch(trusting.url('/sparql/select'), { headers })).text();
      assert.ok(trusted.includes('<https://sparql.example.org/sparql/select>'));
      const ignored = await (await fetch(plain.url('/sparql/select'), { headers })).text();
      assert.ok(ignored.includes(`<${plain.url('/sparql/select')}>`));
    } finally {
      await trusting.close();
      await plain.close();
    }
  });

  it('limits CORS to the configured origins', async () => {
    const server = await startLocalServer({ corsOrigins: ['https://allowed.example'] });
    try {
      const allowed = await fetch(server.url('/health'), { headers: { origin: 'https://allowed.example' } });
      assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://allowed.example');
      const other = await fetch(server.url('/health'), { headers: { origin: 'https://other.example' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    } finally {
      await server.close();
    }
  });
});
