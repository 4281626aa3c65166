/**
 * The HTTP contract (SPEC.md) row by row, against a real listening server. The service behind it is
 * scripted, so that every status — including late failures, overload and timeouts — can be
 * provoked on demand; end-to-end behaviour with the real engine is in local-service.test.ts.
 */
import { after, before, describe, it as nodeIt } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { HttpError } from '../../src/server/http-error.js';
import { ScriptedService } from './scripted-service.js';
import { encodeQuery, FORM, MISSPELLED_FORM, SPARQL_QUERY, SPARQL_UPDATE, startServer, type RunningServer } from './harness.js';
import { remoteAware, startSuiteServer } from '../remote/suite-server.js';

// QUIVER_TEST_REMOTE=virtuoso runs this suite against remote mode (see test/remote/suite-server.ts).
const it = remoteAware(nodeIt);

const SELECT = 'SELECT * WHERE { ?s ?p ?o }';
const CONSTRUCT = 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let service: ScriptedService;
let server: RunningServer;

before(async () => {
  service = new ScriptedService();
  server = await startSuiteServer(service, { queryTimeoutMs: 30_000 });
});
after(async () => server.close());

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url(path), { headers, redirect: 'manual' });
}

function post(path: string, body: string | Uint8Array | undefined, contentType?: string, headers: Record<string, string> = {}): Promise<Response> {
  const allHeaders: Record<string, string> = { ...headers };
  if (contentType !== undefined) allHeaders['content-type'] = contentType;
  // fetch would add text/plain to a string body; bytes go out without a Content-Type.
  const payload = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return fetch(server.url(path), { method: 'POST', body: payload, headers: allHeaders, redirect: 'manual' });
}

describe('{base}/sparql', () => {
  it('redirects a GET query with 303 to /sparql/select, keeping the query string verbatim', async () => {
    const queryString = 'query=SELECT%20*%20%7B%7D&output=json&x=a+b%2Bc&named-graph-uri=http%3A%2F%2Fg';
    const response = await get(`/sparql?${queryString}`);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), `/sparql/select?${queryString}`);
  });

  it('redirects a GET with neither query nor update to /sparql/select', async () => {
    const response = await get('/sparql');
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/sparql/select');
  });

  it('refuses a GET update with 400, naming POST /sparql and /sparql/update', async () => {
    const response = await get(`/sparql?${encodeQuery({ update: 'CLEAR ALL' })}`);
    assert.equal(response.status, 400);
    const body = await response.text();
    assert.match(body, /POST \/sparql/);
    assert.match(body, /\/sparql\/update/);
  });

  it('refuses a GET with both query and update with 400', async () => {
    const response = await get(`/sparql?${encodeQuery({ query: SELECT, update: 'CLEAR ALL' })}`);
    assert.equal(response.status, 400);
  });

  it('runs a POST application/sparql-query body as a query', async () => {
    const response = await post('/sparql', 'ASK {}', SPARQL_QUERY);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { head: {}, boolean: true });
  });

  it('runs a POST application/sparql-update body as an update: empty 200', async () => {
    const response = await post('/sparql', 'CLEAR ALL', SPARQL_UPDATE);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
    assert.equal(service.updates.at(-1)!.update, 'CLEAR ALL');
  });

  it('dispatches a form by its field: query or update', async () => {
    const asQuery = await post('/sparql', encodeQuery({ query: 'ASK {}' }), FORM);
    assert.equal(asQuery.status, 200);
    assert.equal((await jsonOf(asQuery)).boolean, true);
    const asUpdate = await post('/sparql', encodeQuery({ update: 'CLEAR DEFAULT' }), FORM);
    assert.equal(asUpdate.status, 200);
    assert.equal(service.updates.at(-1)!.update, 'CLEAR DEFAULT');
  });

  it('answers 400 for a form with both fields or neither, saying what was expected', async () => {
    const both = await post('/sparql', encodeQuery({ query: 'ASK {}', update: 'CLEAR ALL' }), FORM);
    assert.equal(both.status, 400);
    assert.match(await both.text(), /not both/);
    const neither = await post('/sparql', encodeQuery({ output: 'json' }), FORM);
    assert.equal(neither.status, 400);
    assert.match(await neither.text(), /'query'.*'update'/);
  });

  it('answers 400 for a POST body of another or no media type', async () => {
    assert.equal((await post('/sparql', 'ASK {}', 'text/plain')).status, 400);
    assert.equal((await post('/sparql', 'ASK {}')).status, 400);
    assert.equal((await post('/sparql', 'query=ASK%20%7B%7D')).status, 400);
  });

  it('answers 405 with Allow for other methods', async () => {
    const response = await fetch(server.url('/sparql?query=ASK%20%7B%7D'), { method: 'PUT', body: 'x' });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
  });

  it('accepts a trailing slash, as the W3C protocol tests send it', async () => {
    const response = await post('/sparql/', 'ASK {}', SPARQL_QUERY);
    assert.equal(response.status, 200);
  });
});

describe('{base}/sparql/select', () => {
  it('runs GET ?query and answers SPARQL JSON by default, streamed, with charset and Content-Disposition', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: SELECT })}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/sparql-results+json; charset=utf-8');
    assert.equal(response.headers.get('content-disposition'), 'inline; filename="result.json"');
    assert.equal(response.headers.get('vary'), 'Accept');
    const json = await jsonOf(response);
    assert.deepEqual(json.head.vars, ['s', 'label']);
    assert.equal(json.results.bindings.length, 2);
  });

  it('runs a POST form with the correct and with the misspelled form media type', async () => {
    for (const type of [FORM, MISSPELLED_FORM]) {
      const response = await post('/sparql/select', encodeQuery({ query: 'ASK {}' }), type);
      assert.equal(response.status, 200, type);
      assert.equal((await jsonOf(response)).boolean, true);
    }
  });

  it('takes output from the URL of a POST form', async () => {
    const response = await post(`/sparql/select?output=xml`, encodeQuery({ query: 'ASK {}' }), FORM);
    assert.equal(response.headers.get('content-type'), 'application/sparql-results+xml; charset=utf-8');
    assert.match(await response.text(), /<boolean>true<\/boolean>/);
  });

  it('runs a POST body as the query whatever its media type (sparql-query, other, none)', async () => {
    for (const type of [SPARQL_QUERY, 'text/plain', undefined]) {
      const response = await post('/sparql/select', 'ASK {}', type);
      assert.equal(response.status, 200, String(type));
      assert.equal((await jsonOf(response)).boolean, true);
    }
  });

  it('reads a form-typed body without a query field as the query itself', async () => {
    const response = await post('/sparql/select', 'ASK {}', FORM);
    assert.equal(response.status, 200);
    assert.equal(service.queries.at(-1)!.query, 'ASK {}');
  });

  it('answers 400 for an empty POST', async () => {
    const response = await post('/sparql/select', '', SPARQL_QUERY);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /no query/);
  });

  it('answers 400 for a repeated query, or output values that name different formats', async () => {
    const twoQueries = await get(`/sparql/select?${encodeQuery({ query: ['ASK {}', SELECT] })}`);
    assert.equal(twoQueries.status, 400);
    assert.match(await twoQueries.text(), /'query' may appear only once/);
    const twoOutputs = await get(`/sparql/select?${encodeQuery({ query: SELECT, output: ['json', 'xml'] })}`);
    assert.equal(twoOutputs.status, 400);
    const urlAndForm = await post('/sparql/select?output=json', encodeQuery({ query: SELECT, output: 'xml' }), FORM);
    assert.equal(urlAndForm.status, 400);
  });

  it('passes the protocol dataset, a base IRI and the time limit to the service', async () => {
    const response = await get(
      `/sparql/select?${encodeQuery({
        query: SELECT,
        'default-graph-uri': ['http://example.org/d1', 'http://example.org/d2'],
        'named-graph-uri': 'http://example.org/n',
        timeout: '5',
      })}`,
    );
    assert.equal(response.status, 200);
    await response.text();
    const request = service.queries.at(-1)!;
    assert.deepEqual(request.defaultGraphUris, ['http://example.org/d1', 'http://example.org/d2']);
    assert.deepEqual(request.namedGraphUris, ['http://example.org/n']);
    assert.equal(request.timeoutMs, 5000);
    assert.equal(request.baseIri, server.url('/sparql/select'));
  });

  it('never lets timeout exceed the server maximum, and refuses a malformed one', async () => {
    await (await get(`/sparql/select?${encodeQuery({ query: SELECT, timeout: '999999' })}`)).text();
    assert.equal(service.queries.at(-1)!.timeoutMs, 30_000);
    const bad = await get(`/sparql/select?${encodeQuery({ query: SELECT, timeout: 'soon' })}`);
    assert.equal(bad.status, 400);
  });

  it('answers 400 with line and column for a syntax error', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: 'SELECT *\nWHERE FAIL-SYNTAX' })}`);
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.match(await response.text(), /line 2, column 7/);
  });

  it('answers 500 with the message when evaluation fails before the first row', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: 'SELECT FAIL-EARLY' })}`);
    assert.equal(response.status, 500);
    assert.match(await response.text(), /division by zero/);
  });

  it('cuts the connection when evaluation fails after streaming began: JSON is left incomplete', async () => {
    const { status, body, completed } = await rawGet(`/sparql/select?${encodeQuery({ query: 'SELECT FAIL-LATE' })}`);
    assert.equal(status, 200);
    assert.equal(completed, false, 'the response must not end normally');
    assert.match(body, /row 0/);
    assert.throws(() => JSON.parse(body));
  });

  it('answers 503 with Retry-After when the service is overloaded', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: 'SELECT OVERLOADED' })}`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '7');
  });

  it('answers 504 when the query ran past its time limit', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: 'SELECT TIMEOUT' })}`);
    assert.equal(response.status, 504);
  });

  it('aborts the evaluation when the client disconnects', async () => {
    const controller = new AbortController();
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: 'SELECT SLOW' })}`), { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await Promise.race([service.aborted, new Promise((_, reject) => setTimeout(() => reject(new Error('evaluation was not aborted')), 5000))]);
  });

  it('serves HEAD like GET, without a body', async () => {
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: 'ASK {}' })}`), { method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/sparql-results+json; charset=utf-8');
    assert.equal(await response.text(), '');
  });
});

describe('formats and negotiation', () => {
  const cases: [string, string, string, string][] = [
    [SELECT, 'json', 'application/sparql-results+json', 'json'],
    [SELECT, 'xml', 'application/sparql-results+xml', 'xml'],
    [SELECT, 'csv', 'text/csv', 'csv'],
    [SELECT, 'tsv', 'text/tab-separated-values', 'tsv'],
    [CONSTRUCT, 'json', 'application/ld+json', 'jsonld'],
    [CONSTRUCT, 'xml', 'application/rdf+xml', 'rdf'],
    [CONSTRUCT, 'turtle', 'text/turtle', 'ttl'],
    [CONSTRUCT, 'ntriples', 'application/n-triples', 'nt'],
    [CONSTRUCT, 'nquads', 'application/n-quads', 'nq'],
    [CONSTRUCT, 'jsonld', 'application/ld+json', 'jsonld'],
    [CONSTRUCT, 'rdfxml', 'application/rdf+xml', 'rdf'],
  ];
  for (const [query, output, mediaType, extension] of cases) {
    it(`output=${output} for ${query.split(' ')[0]} answers ${mediaType}`, async () => {
      const response = await get(`/sparql/select?${encodeQuery({ query, output })}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), `${mediaType}; charset=utf-8`);
      assert.equal(response.headers.get('content-disposition'), `inline; filename="result.${extension}"`);
      assert.ok((await response.text()).length > 0);
    });
  }

  it('accepts a media type as output', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: SELECT, output: 'text/csv' })}`);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    await response.text();
  });

  it('reads format and results as output, and repeated values naming one format as one', async () => {
    const cases: [string, Record<string, string | string[]>, string][] = [
      [SELECT, { format: 'xml' }, 'application/sparql-results+xml'],
      [SELECT, { results: 'csv' }, 'text/csv'],
      // What Python's SPARQLWrapper sends for TSV, RDF/XML and JSON-LD: its Accept list is the second value.
      [
        SELECT,
        { format: ['tsv', 'text/tab-separated-values'], output: ['tsv', 'text/tab-separated-values'], results: ['tsv', 'text/tab-separated-values'] },
        'text/tab-separated-values',
      ],
      [CONSTRUCT, { format: ['rdf+xml', 'application/rdf+xml'], output: ['rdf+xml', 'application/rdf+xml'] }, 'application/rdf+xml'],
      [CONSTRUCT, { output: ['json-ld', 'application/ld+json,application/x-json+ld'] }, 'application/ld+json'],
      [CONSTRUCT, { format: 'n3', output: 'n3', results: 'n3' }, 'text/turtle'],
      [CONSTRUCT, { output: 'rdf', results: '' }, 'application/rdf+xml'],
    ];
    for (const [query, params, mediaType] of cases) {
      const response = await get(`/sparql/select?${encodeQuery({ query, ...params })}`, { accept: '*/*' });
      assert.equal(response.status, 200, `${JSON.stringify(params)}: ${await response.clone().text()}`);
      assert.equal(response.headers.get('content-type'), `${mediaType}; charset=utf-8`, JSON.stringify(params));
      await response.text();
    }
    const form = await post('/sparql', encodeQuery({ query: SELECT, format: 'csv', output: 'csv', results: 'csv' }), FORM);
    assert.equal(form.headers.get('content-type'), 'text/csv; charset=utf-8');
    await form.text();
  });

  it('answers 400 before running the query when format parameters ask for different formats', async () => {
    const queriesBefore = service.queries.length;
    const disagreeing: Record<string, string | string[]>[] = [
      { output: 'json', format: 'xml' },
      { output: 'csv', results: 'turtle' },
      { format: ['tsv', 'text/csv'] },
    ];
    for (const params of disagreeing) {
      const response = await get(`/sparql/select?${encodeQuery({ query: SELECT, ...params })}`);
      assert.equal(response.status, 400, JSON.stringify(params));
      assert.match(await response.text(), /ask for different result formats/);
    }
    assert.equal(service.queries.length, queriesBefore);
    const otherKind = await get(`/sparql/select?${encodeQuery({ query: SELECT, output: 'xml', results: 'rdf' })}`);
    assert.equal(otherKind.status, 406);
    await otherKind.text();
  });

  it('answers html as an escaped table, with a Content-Security-Policy and no Content-Disposition', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: SELECT, output: 'html' })}`);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.ok(response.headers.get('content-security-policy')?.includes("default-src 'none'"));
    assert.equal(response.headers.get('content-disposition'), null);
    const html = await response.text();
    assert.ok(html.includes('&lt;b&gt;A &amp; &quot;a&quot;&lt;/b&gt;'));
    assert.ok(!html.includes('<b>A'));
  });

  it('answers 406 for csv/tsv on CONSTRUCT and RDF formats on SELECT', async () => {
    for (const [query, output] of [
      [CONSTRUCT, 'csv'],
      [CONSTRUCT, 'tsv'],
      [SELECT, 'turtle'],
      [SELECT, 'rdfxml'],
      [SELECT, 'text/turtle'],
    ]) {
      const response = await get(`/sparql/select?${encodeQuery({ query: query!, output: output! })}`);
      assert.equal(response.status, 406, `${query} ${output}`);
    }
  });

  it('answers 400 listing the allowed values for an unknown output', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: SELECT, output: 'yaml' })}`);
    assert.equal(response.status, 400);
    const body = await response.text();
    for (const name of ['json', 'xml', 'html', 'csv', 'tsv', 'turtle', 'ntriples', 'nquads', 'jsonld', 'rdfxml']) {
      assert.ok(body.includes(name), name);
    }
  });

  it('follows Accept with q-values and specificity', async () => {
    const xml = await get(`/sparql/select?${encodeQuery({ query: SELECT })}`, {
      accept: 'application/sparql-results+json;q=0.5, application/sparql-results+xml',
    });
    assert.equal(xml.headers.get('content-type'), 'application/sparql-results+xml; charset=utf-8');
    await xml.text();
    const tsv = await get(`/sparql/select?${encodeQuery({ query: SELECT })}`, { accept: 'text/*;q=0.9, text/csv;q=0.1, text/html;q=0' });
    assert.equal(tsv.headers.get('content-type'), 'text/tab-separated-values; charset=utf-8');
    await tsv.text();
    const ntriples = await get(`/sparql/select?${encodeQuery({ query: CONSTRUCT })}`, { accept: 'application/n-triples, text/turtle;q=0.8' });
    assert.equal(ntriples.headers.get('content-type'), 'application/n-triples; charset=utf-8');
    await ntriples.text();
  });

  it('lets output win over Accept', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: SELECT, output: 'csv' })}`, { accept: 'application/sparql-results+xml' });
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    await response.text();
  });

  it('defaults to JSON for SELECT/ASK and Turtle for CONSTRUCT/DESCRIBE under */*', async () => {
    const select = await get(`/sparql/select?${encodeQuery({ query: SELECT })}`, { accept: '*/*' });
    assert.equal(select.headers.get('content-type'), 'application/sparql-results+json; charset=utf-8');
    await select.text();
    const describeResponse = await get(`/sparql/select?${encodeQuery({ query: 'DESCRIBE <http://example.org/s>' })}`, { accept: '*/*' });
    assert.equal(describeResponse.headers.get('content-type'), 'text/turtle; charset=utf-8');
    await describeResponse.text();
  });

  it('answers 406 when Accept allows nothing the result can be written in', async () => {
    const response = await get(`/sparql/select?${encodeQuery({ query: SELECT })}`, { accept: 'image/png' });
    assert.equal(response.status, 406);
    const rdfForSelect = await get(`/sparql/select?${encodeQuery({ query: SELECT })}`, { accept: 'text/turtle' });
    assert.equal(rdfForSelect.status, 406);
  });
});

describe('GET {base}/sparql/select without a query', () => {
  it('gives a browser the HTML query page, with a CSP and no inline script', async () => {
    const response = await get('/sparql/select', { accept: BROWSER_ACCEPT });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.ok(response.headers.get('content-security-policy'));
    const html = await response.text();
    assert.match(html, /<textarea name="query"/);
    assert.match(html, /<form id="sparql-form" method="post" action="\/sparql\/select"/);
    // Scripts only from the bundled assets; server data only as a JSON block, which never runs.
    for (const [script] of html.matchAll(/<script[^>]*>/g)) {
      assert.match(script, /^<script (type="module" src="\/ui\/[\w-]+\.js\?v=\w+"|type="application\/json" id="quiver-page-data")>$/);
    }
    assert.match(response.headers.get('content-security-policy')!, /script-src 'self';/);
  });

  it('gives the service description in Turtle by default and to */*', async () => {
    for (const accept of [undefined, '*/*', 'application/sparql-results+json']) {
      const response = await get('/sparql/select', accept ? { accept } : {});
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/turtle; charset=utf-8');
      const turtle = await response.text();
      assert.ok(turtle.includes(`<${server.url('/sparql/select')}>`), 'sd:endpoint');
      assert.match(turtle, /sd:SPARQL11Query/);
      assert.match(turtle, /SPARQL_Results_JSON/);
      assert.match(turtle, /void:triples 3/);
    }
  });

  it('gives the service description in the RDF format Accept asks for', async () => {
    const cases: [string, RegExp][] = [
      ['application/rdf+xml', /<rdf:RDF/],
      ['application/ld+json', /"@id"|sparql-service-description/],
      ['application/n-triples', /<http:\/\/www\.w3\.org\/ns\/sparql-service-description#endpoint>/],
    ];
    for (const [accept, pattern] of cases) {
      const response = await get('/sparql/select', { accept });
      assert.equal(response.status, 200, accept);
      assert.equal(response.headers.get('content-type'), `${accept}; charset=utf-8`);
      assert.match(await response.text(), pattern);
    }
  });
});

describe('{base}/sparql/update', () => {
  it('runs GET ?update, and ?query as the legacy name; update wins when both are sent', async () => {
    assert.equal((await get(`/sparql/update?${encodeQuery({ update: 'CLEAR ALL' })}`)).status, 200);
    assert.equal(service.updates.at(-1)!.update, 'CLEAR ALL');
    assert.equal((await get(`/sparql/update?${encodeQuery({ query: 'CLEAR DEFAULT' })}`)).status, 200);
    assert.equal(service.updates.at(-1)!.update, 'CLEAR DEFAULT');
    assert.equal((await get(`/sparql/update?${encodeQuery({ query: 'CLEAR NAMED', update: 'CLEAR GRAPH <http://g>' })}`)).status, 200);
    assert.equal(service.updates.at(-1)!.update, 'CLEAR GRAPH <http://g>');
  });

  it('runs a POST application/sparql-update body, with using-graph-uri from the URL', async () => {
    const response = await post(`/sparql/update?${encodeQuery({ 'using-graph-uri': 'http://example.org/u' })}`, 'DELETE WHERE { ?s ?p ?o }', SPARQL_UPDATE);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
    assert.deepEqual(service.updates.at(-1)!.usingGraphUris, ['http://example.org/u']);
  });

  it('runs a POST form (both form media types) with update or legacy query, and the using parameters', async () => {
    for (const type of [FORM, MISSPELLED_FORM]) {
      const response = await post(
        '/sparql/update',
        encodeQuery({
          update: 'CLEAR ALL',
          'using-graph-uri': 'http://example.org/a',
          'using-named-graph-uri': ['http://example.org/b', 'http://example.org/c'],
        }),
        type,
      );
      assert.equal(response.status, 200, type);
      const request = service.updates.at(-1)!;
      assert.deepEqual(request.usingGraphUris, ['http://example.org/a']);
      assert.deepEqual(request.usingNamedGraphUris, ['http://example.org/b', 'http://example.org/c']);
    }
    assert.equal((await post('/sparql/update', encodeQuery({ query: 'CLEAR SILENT ALL' }), FORM)).status, 200);
    assert.equal(service.updates.at(-1)!.update, 'CLEAR SILENT ALL');
  });

  it('answers 400 when the request is missing or does not parse, 500 when it failed', async () => {
    assert.equal((await post('/sparql/update', '', SPARQL_UPDATE)).status, 400);
    assert.equal((await post('/sparql/update', encodeQuery({ output: 'json' }), FORM)).status, 400);
    assert.equal((await get('/sparql/update')).status, 400);
    const syntax = await post('/sparql/update', 'FAIL-SYNTAX', SPARQL_UPDATE);
    assert.equal(syntax.status, 400);
    const failed = await post('/sparql/update', 'CREATE GRAPH <http://example.org/g> FAIL-EVAL', SPARQL_UPDATE);
    assert.equal(failed.status, 500);
    assert.match(await failed.text(), /already exists/);
  });

  it('answers 400 for using-graph-uri together with USING in the request', async () => {
    const response = await post(
      `/sparql/update?${encodeQuery({ 'using-graph-uri': 'http://example.org/u' })}`,
      'DELETE { ?s ?p ?o } USING <http://example.org/x> WHERE { ?s ?p ?o }',
      SPARQL_UPDATE,
    );
    assert.equal(response.status, 400);
  });

  it('answers 415 for a POST of another media type', async () => {
    const response = await post('/sparql/update', 'CLEAR ALL', 'text/plain');
    assert.equal(response.status, 415);
    assert.equal((await post('/sparql/update', 'CLEAR ALL', SPARQL_QUERY)).status, 415);
  });

  it('answers 400 for a repeated update parameter', async () => {
    const response = await post('/sparql/update', encodeQuery({ update: ['CLEAR NAMED', 'CLEAR DEFAULT'] }), FORM);
    assert.equal(response.status, 400);
  });

  it('writes the error body in the format output asks for', async () => {
    const json = await post('/sparql/update?output=json', 'FAIL-SYNTAX', SPARQL_UPDATE);
    assert.equal(json.status, 400);
    assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal((await jsonOf(json)).status, 400);
    const xml = await post('/sparql/update', encodeQuery({ update: 'FAIL-SYNTAX', output: 'xml' }), FORM);
    assert.equal(xml.headers.get('content-type'), 'application/xml; charset=utf-8');
    assert.match(await xml.text(), /<error status="400">/);
    const html = await get(`/sparql/update?${encodeQuery({ update: 'FAIL-EVAL <script>alert(1)</script>', output: 'html' })}`);
    assert.equal(html.status, 500);
    assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.ok(html.headers.get('content-security-policy'));
    assert.ok(!(await html.text()).includes('<script>'));
  });

  it('gives a browser the HTML update page when there is no request', async () => {
    for (const [path, headers] of [
      ['/sparql/update', { accept: BROWSER_ACCEPT }],
      ['/sparql/update?output=html', {}],
    ] as [string, Record<string, string>][]) {
      const response = await get(path, headers);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(await response.text(), /<textarea name="update"/);
    }
  });
});

describe('request bodies', () => {
  it('answers 400 for a body that is not UTF-8, and 415 for a declared charset other than UTF-8', async () => {
    const latin1 = Uint8Array.from([...Buffer.from('ASK { ?s ?p "caf'), 0xe9, ...Buffer.from('" }')]);
    assert.equal((await post('/sparql/select', latin1, SPARQL_QUERY)).status, 400);
    assert.equal((await post('/sparql/update', latin1, SPARQL_UPDATE)).status, 400);
    const utf16 = Buffer.from('\ufeffASK {}', 'utf16le');
    assert.equal((await post('/sparql', utf16, 'application/sparql-query; charset=UTF-16')).status, 415);
    assert.equal((await post('/sparql', utf16, 'application/sparql-update; charset=UTF-16')).status, 415);
  });

  it('answers 400 for percent-encoded bytes that are not UTF-8 in a form', async () => {
    assert.equal((await post('/sparql/update', 'update=CLEAR%20ALL%FF', FORM)).status, 400);
  });

  it('decodes UTF-8 in forms and bodies', async () => {
    await (await post('/sparql/select', encodeQuery({ query: 'SELECT ("café ✓" AS ?x) {}' }), FORM)).text();
    assert.equal(service.queries.at(-1)!.query, 'SELECT ("café ✓" AS ?x) {}');
    await (await post('/sparql/select', 'SELECT ("日本" AS ?x) {}', 'application/sparql-query; charset=utf-8')).text();
    assert.equal(service.queries.at(-1)!.query, 'SELECT ("日本" AS ?x) {}');
  });
});

describe('cross-cutting', () => {
  it('answers /health with 200 ok without touching the service', async () => {
    const before = service.queries.length;
    const response = await get('/health');
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'ok\n');
    assert.equal(service.queries.length, before);
  });

  it('answers 404 for unknown paths', async () => {
    assert.equal((await get('/nothing/here')).status, 404);
    assert.equal((await get('/sparql/selectx')).status, 404);
  });

  it('allows any origin by default and answers preflight requests', async () => {
    const simple = await get(`/sparql/select?${encodeQuery({ query: 'ASK {}' })}`, { origin: 'https://app.example' });
    assert.equal(simple.headers.get('access-control-allow-origin'), '*');
    await simple.text();
    const preflight = await fetch(server.url('/sparql/select'), {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods')!, /POST/);
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
  });
});

async function jsonOf(response: Response): Promise<any> {
  return response.json();
}

describe('the authorization hooks', () => {
  it('refuse a write with the 401 the hook throws, before the service sees it', async () => {
    const guarded = new ScriptedService();
    const guardedServer = await startServer(guarded, {
      authorizeUpdate: ({ headers }) => {
        if (headers.authorization !== 'Bearer secret') {
          throw new HttpError(401, 'updates need a token', { 'www-authenticate': 'Bearer realm="quiver"' });
        }
      },
    });
    try {
      const refused = await fetch(guardedServer.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: 'CLEAR ALL' });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="quiver"');
      assert.equal(guarded.updates.length, 0);
      const allowed = await fetch(guardedServer.url('/sparql/update'), {
        method: 'POST',
        headers: { 'content-type': SPARQL_UPDATE, authorization: 'Bearer secret' },
        body: 'CLEAR ALL',
      });
      assert.equal(allowed.status, 200);
      assert.equal(guarded.updates.length, 1);
    } finally {
      await guardedServer.close();
    }
  });
});

/** A GET through node:http, telling whether the response ended normally or was cut off. */
function rawGet(path: string): Promise<{ status: number; body: string; completed: boolean }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(server.url(path), (response) => {
      let body = '';
      let completed = false;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => (completed = true));
      response.on('close', () => resolve({ status: response.statusCode!, body, completed: completed && response.complete }));
      response.on('error', () => undefined);
    });
    request.on('error', reject);
    request.end();
  });
}
