/** The HTML pages: escaping of everything that comes from data or the query, links, summary. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { blankNode, factory, literal, namedNode } from '../rdf/terms.js';
import { xsd } from '../rdf/vocabulary.js';
import { createQuadsSerializer, createSolutionsSerializer } from './serializers.js';
import { StringSink, type HtmlOptions } from './serializer.js';
import { ex } from './test-fixtures.js';

const EVIL = '<script>alert("x")</script>';

function selectPage(options: HtmlOptions = {}): string {
  const sink = new StringSink();
  const serializer = createSolutionsSerializer('html', sink, options);
  serializer.begin(['s', EVIL, 'lit']);
  serializer.rows([
    [namedNode('http://example.org/' + EVIL), literal(EVIL, 'en'), literal(EVIL, namedNode('http://example.org/"onmouseover="x'))],
    [namedNode('javascript:alert(1)'), undefined, blankNode(EVIL)],
  ]);
  serializer.rows([[ex('ok'), literal('1', namedNode(xsd.integer)), literal("it's & <b>")]]);
  serializer.end();
  return sink.text;
}

/** Every `<script` in the page is the one external script element the options asked for. */
function scriptElements(html: string): string[] {
  return html.match(/<script[^>]*>/gi) ?? [];
}

describe('HTML results page', () => {
  it('escapes literals, IRIs, variable names and the query; runs no data as markup', () => {
    const html = selectPage({ query: `SELECT * { ?s ?p "${EVIL}" }`, title: EVIL });
    assert.deepEqual(scriptElements(html), []);
    assert.ok(!html.includes('alert("x")'), 'quotes in data are escaped too');
    assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(html.includes('<th>?&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</th>'));
    assert.ok(html.includes('<title>&lt;script&gt;'));
    assert.ok(html.includes('<code>SELECT * { ?s ?p &quot;&lt;script&gt;'));
    assert.ok(html.includes('&quot;onmouseover=&quot;x'), 'attribute values cannot be broken out of');
    assert.ok(html.includes('it&#39;s &amp; &lt;b&gt;'));
  });

  it('links http(s) IRIs only', () => {
    const html = selectPage();
    assert.ok(html.includes('<a class="iri" href="http://example.org/&lt;script&gt;'));
    assert.ok(!/href="javascript:/i.test(html));
    assert.ok(html.includes('<span class="iri">javascript:alert(1)</span>'));
  });

  it('shows language tags, datatypes, blank nodes and empty cells for unbound', () => {
    const html = selectPage();
    assert.match(html, /<span class="lang">@en<\/span>/);
    assert.match(html, /\^\^<a href="http:\/\/www.w3.org\/2001\/XMLSchema#integer">xsd:integer<\/a>/);
    assert.match(html, /<span class="bnode">_:/);
    assert.match(html, /<tr><td><span class="iri">javascript:alert\(1\)<\/span><\/td><td><\/td>/);
  });

  it('is a complete HTML5 page with the row count and the time taken at the end', () => {
    const html = selectPage({ elapsedMs: () => 42 });
    assert.ok(html.startsWith('<!DOCTYPE html>\n<html lang="en">'));
    assert.ok(html.endsWith('</body>\n</html>\n'));
    assert.match(html, /<p class="summary">3 rows in 42 ms<\/p>/);
  });

  it('writes styles only with a nonce or as a stylesheet link, and scripts only by src', () => {
    assert.ok(!selectPage().includes('<style'));
    const withNonce = selectPage({ nonce: 'n"1', scriptHref: '/app.js?a=1&b=2' });
    assert.ok(withNonce.includes('<style nonce="n&quot;1">'));
    assert.deepEqual(scriptElements(withNonce), ['<script src="/app.js?a=1&amp;b=2" nonce="n&quot;1" defer>']);
    assert.match(withNonce, /<script [^>]*><\/script>/, 'the script element is empty');
    const linked = selectPage({ stylesheetHref: '/style.css', nonce: 'n' });
    assert.ok(linked.includes('<link rel="stylesheet" href="/style.css">'));
    assert.ok(!linked.includes('<style'));
  });

  it('answers ASK with a page holding the boolean', () => {
    const sink = new StringSink();
    createSolutionsSerializer('html', sink, { query: 'ASK {}' }).boolean(true);
    assert.match(sink.text, /<p class="boolean">true<\/p>/);
    assert.match(sink.text, /<code>ASK \{\}<\/code>/);
    assert.ok(sink.text.endsWith('</html>\n'));
  });
});

describe('HTML triples page', () => {
  it('abbreviates IRIs with the query prefixes, one table per run of quads in a graph', () => {
    const sink = new StringSink();
    const serializer = createQuadsSerializer('html', sink, { elapsedMs: () => 1500 });
    serializer.begin({ ex: 'http://example.org/', '<bad>': 'http://bad.example/' });
    serializer.quads([factory.quad(ex('a'), ex('b'), literal(EVIL))]);
    serializer.quads([factory.quad(ex('a'), ex('b'), ex('c'), ex('g'))]);
    serializer.end();
    const html = sink.text;
    assert.deepEqual(scriptElements(html), []);
    assert.match(html, /<a class="iri" href="http:\/\/example.org\/a" title="http:\/\/example.org\/a">ex:a<\/a>/);
    assert.match(html, /<h2>Graph <a class="iri" href="http:\/\/example.org\/g"[^>]*>ex:g<\/a><\/h2>/);
    assert.equal(html.match(/<table /g)?.length, 2);
    assert.match(html, /<p class="summary">2 triples in 1.50 s<\/p>/);
  });

  it('writes an empty table for an empty result', () => {
    const sink = new StringSink();
    const serializer = createQuadsSerializer('html', sink);
    serializer.begin({});
    serializer.end();
    assert.match(sink.text, /<table class="results">\n<thead>.*<\/thead>\n<tbody>\n<\/tbody>\n<\/table>/);
    assert.match(sink.text, /0 triples/);
  });
});
