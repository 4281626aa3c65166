/**
 * A query answered as HTML is the query page with its results in it: the same form (the query in
 * its textarea, ready to edit and post again, without script too), the results table (or ASK's
 * boolean) in `<section id="query-results">`, the page's data block and script, and the page's own
 * Content-Security-Policy. For every kind of query and through both front doors: GET with
 * `output=html` or a browser's Accept (Fastify), and a form POST asking for HTML in its body (the
 * direct path).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeQuery, FORM, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

const EX = 'http://example.org/';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const DATA = `PREFIX ex: <${EX}>
INSERT DATA {
  ex:alice ex:name "Alice" ; ex:knows ex:bob .
  ex:bob ex:name "Bob </textarea><script>alert(1)</script>"@en .
}`;

/** Each kind of query, and what its results section must show. */
const QUERIES = [
  {
    kind: 'SELECT',
    query: `SELECT ?name WHERE { ?s <${EX}name> ?name } ORDER BY ?name`,
    shows: /<table class="results">[^]*<th>\?name<\/th>[^]*Alice[^]*<\/table>/,
  },
  { kind: 'ASK', query: `ASK { <${EX}alice> <${EX}knows> ?o }`, shows: /<p class="boolean">true<\/p>/ },
  {
    kind: 'CONSTRUCT',
    query: `CONSTRUCT { ?s <${EX}friend> ?o } WHERE { ?s <${EX}knows> ?o }`,
    shows: /<table class="results">[^]*<th>Subject<\/th>[^]*http:\/\/example\.org\/friend[^]*<\/table>/,
  },
  { kind: 'DESCRIBE', query: `DESCRIBE <${EX}alice>`, shows: /<table class="results">[^]*http:\/\/example\.org\/knows[^]*<\/table>/ },
];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

describe('a query answered as HTML is the query page with the results in it', () => {
  let server: RunningServer;

  before(async () => {
    server = await startLocalServer({ basePath: '/base' });
    const response = await fetch(server.url('/base/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: DATA });
    assert.equal(response.status, 200, await response.text());
  });
  after(async () => server.close());

  /** The three ways a browser (or a person with curl) asks for a query's HTML answer. */
  const FRONT_DOORS = {
    'GET with output=html': (query: string) => fetch(server.url(`/base/sparql/select?${encodeQuery({ query, output: 'html' })}`)),
    "GET with a browser's Accept": (query: string) =>
      fetch(server.url(`/base/sparql/select?${encodeQuery({ query })}`), { headers: { accept: BROWSER_ACCEPT } }),
    'a plain form POST (output=html in the body)': (query: string) =>
      fetch(server.url('/base/sparql/select'), { method: 'POST', headers: { 'content-type': FORM }, body: encodeQuery({ query, output: 'html' }) }),
  };

  for (const [door, ask] of Object.entries(FRONT_DOORS)) {
    for (const { kind, query, shows } of QUERIES) {
      it(`${kind}, ${door}: the form holds the query, the results follow it`, async () => {
        const response = await ask(query);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
        const html = await response.text();
        assertQueryPageAround(html, query);
        assert.match(sectionOf(html), shows);
        assertPagePolicy(response.headers.get('content-security-policy'), html);
      });
    }
  }

  it('escapes the query in the editor and the data in the table', async () => {
    const query = `SELECT ?name ("</textarea><script>alert('q')</script>" AS ?x) WHERE { <${EX}bob> <${EX}name> ?name }`;
    const html = await (await FRONT_DOORS['GET with output=html'](query)).text();
    assert.ok(textareaOf(html).includes(escapeHtml(query)));
    assert.ok(sectionOf(html).includes('Bob &lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.equal(html.match(/<script/g)?.length, 2, 'only the data block and the page script');
    assert.equal(html.match(/<\/textarea>/g)?.length, 1);
  });

  it('keeps a query that starts with a newline as it was (the parser drops one after <textarea>)', async () => {
    const query = `\n\nASK {}`;
    const html = await (await FRONT_DOORS['GET with output=html'](query)).text();
    assert.match(html, /aria-label="SPARQL query">\n\n\nASK \{\}<\/textarea>/);
  });

  it('streams a large result: the page starts before the last row is written', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `<${EX}item${i}> <${EX}label> "${'item '.repeat(20)}${i}" .`);
    const loaded = await fetch(server.url('/base/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: `INSERT DATA { ${rows.join('\n')} }`,
    });
    assert.equal(loaded.status, 200);
    const response = await FRONT_DOORS['GET with output=html'](`SELECT ?s ?label WHERE { ?s <${EX}label> ?label }`);
    assert.equal(response.headers.get('content-length'), null, 'no length: the body streams');
    assert.equal(response.headers.get('transfer-encoding'), 'chunked');
    const html = await response.text();
    assertQueryPageAround(html, `SELECT ?s ?label WHERE { ?s <${EX}label> ?label }`);
    assert.equal(sectionOf(html).match(/<tr>/g)?.length, 1501, 'the header row and every result row');
    assert.match(html, /<p class="summary">1500 rows in [\d.]+ m?s<\/p>\n<\/section>/);
  });
});

/** The query page's form, its textarea holding exactly the query, its data block and script. */
function assertQueryPageAround(html: string, query: string): void {
  assert.match(html, /^<!DOCTYPE html>/);
  assert.match(html, /<form id="sparql-form" method="post" action="\/base\/sparql\/select" accept-charset="utf-8">/);
  assert.equal(textareaOf(html), '\n' + escapeHtml(query));
  assert.match(html, /<select name="output"><option value="html">/);
  assert.match(html, /<button type="submit">Run<\/button>/);
  assert.match(html, /<script type="application\/json" id="quiver-page-data">\{"page":"query"/);
  assert.match(html, /<script type="module" src="\/base\/ui\/query\.js\?v=\w+"><\/script>/);
  assert.ok(html.indexOf('</form>') < html.indexOf('<section id="query-results"'), 'the results follow the form');
  assert.ok(html.indexOf('</section>') < html.indexOf('<script'), 'the page script comes after the results');
  assert.match(html, /<\/html>\n$/);
}

/** The policy of the query page: scripts from this origin only, the page's own nonce for styles. */
function assertPagePolicy(policy: string | null, html: string): void {
  assert.ok(policy !== null);
  assert.match(policy, /default-src 'none'; script-src 'self'; style-src 'self' 'nonce-/);
  assert.ok(!policy.includes('unsafe-inline') && !policy.includes('unsafe-eval'));
  const nonce = /'nonce-([^']+)'/.exec(policy)![1]!;
  assert.ok(html.includes(`<style nonce="${nonce}">`), 'the page style carries the nonce the policy names');
}

function textareaOf(html: string): string {
  return /<textarea name="query"[^>]*>([^]*?)<\/textarea>/.exec(html)![1]!;
}

function sectionOf(html: string): string {
  return /<section id="query-results"[^>]*>([^]*)<\/section>/.exec(html)![1]!;
}
