/**
 * Remote mode end to end: HTTP clients talk to Quiver, Quiver forwards to a real Virtuoso (started
 * on loopback with a throw-away database). Data goes in through Quiver, comes back in every output
 * format, and the remote's errors, time-outs and disappearance reach the client as statuses.
 *
 * Virtuoso's default graph is the union of all its graphs (including its own system graph), so the
 * queries here name the graphs they read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, encodeQuery, SPARQL_QUERY, SPARQL_UPDATE, type RunningServer } from '../http/harness.js';
import { RemoteService } from '../../src/service/remote-service.js';
import { startVirtuoso, virtuosoMissing, type RunningVirtuoso } from './virtuoso.js';

const EX = 'http://example.org/';
const G1 = `${EX}g1`;
const G2 = `${EX}g2`;
const DATA = `PREFIX ex: <${EX}>
INSERT DATA {
  GRAPH ex:g1 { ex:alice ex:name "Alice" ; ex:age 30 . ex:bob ex:name "Bob"@en ; ex:age 25 . }
  GRAPH ex:g2 { ex:carol ex:name "Carol <script>" . }
}`;
const NAMES = `SELECT ?name WHERE { GRAPH <${G1}> { ?s <${EX}name> ?name } } ORDER BY ?name`;

const missing = virtuosoMissing();
if (missing) console.log(`# ${missing}`);

describe('remote mode in front of Virtuoso', { skip: missing }, () => {
  let virtuoso: RunningVirtuoso;
  let server: RunningServer;

  before(async () => {
    virtuoso = await startVirtuoso({ queryTimeoutS: 20 });
    server = await startServer(new RemoteService({ queryEndpoint: virtuoso.endpoint }), { queryTimeoutMs: 20_000 });
    const response = await update(DATA);
    assert.equal(response.status, 200, await response.text());
  });
  after(async () => {
    await server?.close();
    await virtuoso?.stop();
  });

  function update(text: string, path = '/sparql/update'): Promise<Response> {
    return fetch(server.url(path), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: text });
  }

  function select(query: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(server.url(`/sparql/select?${encodeQuery({ query, ...extra })}`), { headers });
  }

  it("answers SELECT in JSON, XML, CSV, TSV and HTML, with Virtuoso's typed terms intact", async () => {
    const json = (await (await select(NAMES)).json()) as any;
    assert.deepEqual(json.head.vars, ['name']);
    assert.deepEqual(
      json.results.bindings.map((b: any) => b.name),
      [
        { type: 'literal', value: 'Alice' },
        { type: 'literal', value: 'Bob', 'xml:lang': 'en' },
      ],
    );
    assert.match(await (await select(NAMES, { output: 'xml' })).text(), /<literal xml:lang="en">Bob<\/literal>/);
    assert.equal(await (await select(NAMES, { output: 'csv' })).text(), 'name\r\nAlice\r\nBob\r\n');
    assert.equal(await (await select(NAMES, { output: 'tsv' })).text(), '?name\n"Alice"\n"Bob"@en\n');
    const ages = await (await select(`SELECT ?age { GRAPH <${G1}> { ?s <${EX}age> ?age } } ORDER BY ?age`, { output: 'tsv' })).text();
    assert.equal(ages, '?age\n25\n30\n');
    const html = await select(`SELECT ?n { GRAPH <${G2}> { ?s <${EX}name> ?n } }`, { output: 'html' });
    assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
    const page = await html.text();
    assert.ok(page.includes('Carol &lt;script&gt;'));
    assert.ok(!page.includes('<script>'));
  });

  it('answers ASK in JSON and XML (Virtuoso answers a table; the client sees a boolean)', async () => {
    assert.deepEqual(await (await select(`ASK { GRAPH <${G1}> { <${EX}alice> ?p ?o } }`)).json(), { head: {}, boolean: true });
    assert.match(await (await select(`ASK { <${EX}nobody> ?p ?o }`, { output: 'xml' })).text(), /<boolean>false<\/boolean>/);
  });

  it('answers CONSTRUCT and DESCRIBE in every RDF format', async () => {
    const construct = `PREFIX ex: <${EX}> CONSTRUCT { ?s ex:label ?n } WHERE { GRAPH ex:g1 { ?s ex:name ?n } }`;
    const turtle = await select(construct);
    assert.equal(turtle.headers.get('content-type'), 'text/turtle; charset=utf-8');
    const text = await turtle.text();
    assert.match(text, /@prefix ex: <http:\/\/example\.org\/>/);
    assert.match(text, /ex:label "Alice"/);
    const expected: [string, RegExp][] = [
      // Virtuoso's own N-Triples, passed on: tabs between the terms.
      ['ntriples', /<http:\/\/example\.org\/alice>\s+<http:\/\/example\.org\/label>\s+"Alice" \./],
      ['nquads', /"Bob"@en \./],
      ['jsonld', /"@value": ?"Alice"/],
      ['rdfxml', /<rdf:RDF/],
    ];
    for (const [output, pattern] of expected) assert.match(await (await select(construct, { output })).text(), pattern, output);
    // Virtuoso describes only from the graphs a query names (its union default graph is not enough).
    const described = await (await select(`DESCRIBE <${EX}alice> FROM <${G1}>`, { output: 'ntriples' })).text();
    assert.match(described, /<http:\/\/example\.org\/alice>\s+<http:\/\/example\.org\/age>\s+"30"/);
  });

  it("passes Virtuoso's N-Triples on as they are to a client asking for N-Triples", async () => {
    const construct = `CONSTRUCT { ?s <${EX}label> ?n } WHERE { GRAPH <${G1}> { ?s <${EX}name> ?n } } ORDER BY ?n`;
    const accept = { accept: 'application/n-triples' };
    const direct = await fetch(virtuoso.endpoint, {
      method: 'POST',
      headers: { ...accept, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: construct }).toString(),
    });
    const through = await select(construct, {}, accept);
    assert.equal(through.headers.get('content-type'), 'application/n-triples; charset=utf-8');
    assert.equal(await through.text(), await direct.text());
  });

  it('forwards the protocol dataset', async () => {
    const count = async (extra: Record<string, string>): Promise<string> => {
      const json = (await (await select(`SELECT (COUNT(*) AS ?c) { ?s <${EX}name> ?o }`, extra)).json()) as any;
      return json.results.bindings[0].c.value;
    };
    assert.equal(await count({}), '3');
    assert.equal(await count({ 'default-graph-uri': G2 }), '1');
    const named = (await (await select(`SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }`, { 'named-graph-uri': G1 })).json()) as any;
    assert.deepEqual(
      named.results.bindings.map((b: any) => b.g.value),
      [G1],
    );
  });

  it("answers our syntax errors with 400, line and column; Virtuoso's refusals with 400 and its message", async () => {
    const ours = await select('SELECT * WHERE {\n  ?s ?p \n}');
    assert.equal(ours.status, 400);
    assert.match(await ours.text(), /line \d+, column \d+/);
    const theirs = await select('SELECT * { ?s ?p ?o FILTER(bif:nosuchfunction(?o)) }');
    assert.equal(theirs.status, 400);
    assert.match(await theirs.text(), /remote endpoint refused the request: .*Unknown function bif:nosuchfunction/);
  });

  it('runs updates by the routes of the contract, and DELETE as well as INSERT', async () => {
    const graph = `<${EX}routes>`;
    const routes: [string, RequestInit][] = [
      [`/sparql/update?${encodeQuery({ update: `INSERT DATA { GRAPH ${graph} { <${EX}r1> <${EX}p> 1 } }` })}`, {}],
      ['/sparql/update', { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: `INSERT DATA { GRAPH ${graph} { <${EX}r2> <${EX}p> 2 } }` }],
      [
        '/sparql',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: encodeQuery({ update: `INSERT DATA { GRAPH ${graph} { <${EX}r3> <${EX}p> 3 } }` }),
        },
      ],
    ];
    for (const [path, init] of routes) {
      const response = await fetch(server.url(path), init);
      assert.equal(response.status, 200, `${path}: ${await response.text()}`);
    }
    const count = async (): Promise<number> => ((await (await select(`SELECT ?s { GRAPH ${graph} { ?s ?p ?o } }`)).json()) as any).results.bindings.length;
    assert.equal(await count(), 3);
    assert.equal((await update(`DELETE WHERE { GRAPH ${graph} { <${EX}r2> ?p ?o } }`)).status, 200);
    assert.equal(await count(), 2);
  });

  it("answers 502 with Virtuoso's message for an update it failed", async () => {
    const response = await update(`CREATE GRAPH <${G1}>`);
    assert.equal(response.status, 502);
    assert.match(await response.text(), /answered 500 .*contains triples already/s);
  });

  it('answers 400 for using-graph-uri together with USING, before asking Virtuoso', async () => {
    const response = await fetch(server.url(`/sparql/update?${encodeQuery({ 'using-graph-uri': G1 })}`), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: `INSERT { GRAPH <${EX}x> { ?s ?p ?o } } USING <${G2}> WHERE { ?s ?p ?o }`,
    });
    assert.equal(response.status, 400);
  });

  it('serves the Graph Store Protocol through SPARQL on Virtuoso', async () => {
    const store = (graph: string) => server.url(`/sparql/store?${encodeQuery({ graph })}`);
    const graph = `${EX}gsp`;
    assert.equal((await fetch(store(graph))).status, 404);
    const put = await fetch(store(graph), { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: `<${EX}s> <${EX}p> "one", [ <${EX}q> 2 ] .` });
    assert.equal(put.status, 201);
    const post = await fetch(store(graph), { method: 'POST', headers: { 'content-type': 'application/n-triples' }, body: `<${EX}s> <${EX}p> "two" .\n` });
    assert.equal(post.status, 204);
    const got = await fetch(store(graph), { headers: { accept: 'application/n-triples' } });
    assert.equal(got.status, 200);
    assert.equal((await got.text()).trim().split('\n').length, 4);
    const replaced = await fetch(store(graph), { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: `<${EX}s> <${EX}p> "three" .` });
    assert.equal(replaced.status, 204);
    assert.match(await (await fetch(store(graph), { headers: { accept: 'text/turtle' } })).text(), /"three"/);
    assert.equal((await fetch(store(graph), { method: 'DELETE' })).status, 204);
    assert.equal((await fetch(store(graph))).status, 404);
  });

  it('answers 504 when Virtuoso is slower than the time limit the client asked for', async () => {
    const heavy = 'SELECT (COUNT(*) AS ?c) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l FILTER(STR(?c) != STR(?l)) }';
    const started = Date.now();
    const response = await select(heavy, { timeout: '0.5' });
    assert.equal(response.status, 504, await response.text());
    assert.ok(Date.now() - started < 5000);
  });

  it('answers POSTed queries on /sparql, and the service description without statistics', async () => {
    const response = await fetch(server.url('/sparql'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_QUERY },
      body: `ASK { GRAPH <${G2}> { ?s ?p ?o } }`,
    });
    assert.equal(((await response.json()) as any).boolean, true);
    const description = await (await fetch(server.url('/sparql/select'))).text();
    assert.match(description, /sd:SPARQL11Query/);
  });

  it('reports Virtuoso answering on /health and /metrics', async () => {
    const health = await fetch(server.url('/health'), { headers: { accept: 'application/json' } });
    assert.equal(health.status, 200);
    const body = (await health.json()) as any;
    assert.equal(body.status, 'ok');
    assert.equal(body.remote.answering, true);
    assert.equal(body.remote.endpoint, virtuoso.endpoint);
    const metrics = await (await fetch(server.url('/metrics'))).text();
    assert.match(metrics, /^quiver_remote_up 1$/m);
    assert.match(metrics, /^quiver_remote_requests_total [1-9]\d*$/m);
  });

  it('answers 502 while Virtuoso is gone, keeps serving, and recovers when it comes back', async () => {
    await virtuoso.halt();
    const started = Date.now();
    const down = await select(NAMES);
    assert.equal(down.status, 502);
    assert.match(await down.text(), /cannot be reached|connection to the remote endpoint/);
    assert.ok(Date.now() - started < 5000, 'a down remote must not make the client wait');
    const failedUpdate = await update(`INSERT DATA { <${EX}x> <${EX}p> 1 }`);
    assert.equal(failedUpdate.status, 502);
    await failedUpdate.text();
    // Load balancers see it: /health is 503 (after the cached outcome of the last check expires).
    const unhealthy = await eventually(async () => (await fetch(server.url('/health'))).status === 503);
    assert.ok(unhealthy, '/health must answer 503 while Virtuoso is down');
    await virtuoso.start();
    const back = await select(NAMES);
    assert.equal(back.status, 200);
    assert.equal(((await back.json()) as any).results.bindings.length, 2);
    assert.ok(await eventually(async () => (await fetch(server.url('/health'))).status === 200), '/health must be 200 again');
  });
});

/** Whether the condition comes true within a few seconds (health checks are cached for a moment). */
async function eventually(condition: () => Promise<boolean>, limitMs = 5000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}
