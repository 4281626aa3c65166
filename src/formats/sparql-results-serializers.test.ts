/** SPARQL results in JSON, XML, CSV and TSV: W3C expectations, tricky values, unbound, ASK. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { blankNode, literal, namedNode } from '../rdf/terms.js';
import { XSD, xsd } from '../rdf/vocabulary.js';
import type { SolutionRow } from '../rdf/terms.js';
import { createSolutionsSerializer } from './serializers.js';
import { StringSink, type ResultsFormat } from './serializer.js';
import { CONTROL_STRING, EX, TRICKY_STRINGS, ex } from './test-fixtures.js';

function select(format: ResultsFormat, variables: string[], ...batches: SolutionRow[][]): string {
  const sink = new StringSink();
  const serializer = createSolutionsSerializer(format, sink);
  serializer.begin(variables);
  for (const batch of batches) serializer.rows(batch);
  serializer.end();
  return sink.text;
}

function ask(format: ResultsFormat, value: boolean): string {
  const sink = new StringSink();
  createSolutionsSerializer(format, sink).boolean(value);
  return sink.text;
}

const W3C = fileURLToPath(new URL('../../../../shared/rdf-tests/sparql11/', import.meta.url));
const w3cFile = (path: string) => readFileSync(W3C + path, 'utf8');

/** The solutions of csvtsv01.rq over csv-tsv-res/data.ttl. */
const CSVTSV01: SolutionRow[] = [
  [ex('s1'), ex('p1'), ex('s2')],
  [ex('s2'), ex('p2'), literal('foo')],
  [ex('s3'), ex('p3'), literal('bar')],
  [ex('s4'), ex('p4'), literal('4', namedNode(xsd.integer))],
  [ex('s5'), ex('p5'), literal('5.5', namedNode(xsd.decimal))],
  [ex('s6'), ex('p6'), blankNode('b0')],
];

/** The solutions of the csvtsv03 test over csv-tsv-res/data2.ttl. */
const CSVTSV03: SolutionRow[] = [
  [ex('s1'), ex('p1'), literal('1')],
  [ex('s2'), ex('p2'), literal('2.2', namedNode(xsd.decimal))],
  [ex('s3'), ex('p3'), literal('-3', namedNode(XSD + 'negativeInteger'))],
  [ex('s4'), ex('p4'), literal('4,4')],
  [ex('s5'), ex('p5'), literal('5,5', namedNode(EX + 'myCustomDatatype'))],
  [ex('s6'), ex('p6'), literal('1.0E6', namedNode(xsd.double))],
  [ex('s7'), ex('p7'), literal('a7', namedNode(XSD + 'hexBinary'))],
];

describe('W3C csv-tsv-res expectations', { skip: !existsSync(W3C) && 'W3C test suite not found' }, () => {
  const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

  it('CSV (csvtsv01, csvtsv03): plain values, quoting, CRLF lines', () => {
    assert.equal(select('csv', ['s', 'p', 'o'], CSVTSV01), crlf(w3cFile('csv-tsv-res/csvtsv01.csv')).replace('_:a', '_:b0'));
    assert.equal(select('csv', ['s', 'p', 'o'], CSVTSV03), crlf(w3cFile('csv-tsv-res/csvtsv03.csv')));
  });

  it('TSV (csvtsv01, csvtsv03): N-Triples terms, bare numbers', () => {
    assert.equal(select('tsv', ['s', 'p', 'o'], CSVTSV01), w3cFile('csv-tsv-res/csvtsv01.tsv'));
    // The expected file writes the double as 1.0e6; we keep the data's lexical form, 1.0E6, so the
    // term reads back unchanged.
    assert.equal(select('tsv', ['s', 'p', 'o'], CSVTSV03), w3cFile('csv-tsv-res/csvtsv03.tsv').replace('1.0e6', '1.0E6'));
  });

  it('CSV and TSV (csvtsv02): unbound variables are empty fields', () => {
    const rows = CSVTSV01.map((row, i) => [...row, i === 0 ? ex('p2') : undefined, i === 0 ? literal('foo') : undefined]);
    const vars = ['s', 'p', 'o', 'p2', 'o2'];
    assert.equal(select('csv', vars, rows), crlf(w3cFile('csv-tsv-res/csvtsv02.csv')).replace('_:a', '_:b0'));
    assert.equal(select('tsv', vars, rows), w3cFile('csv-tsv-res/csvtsv02.tsv'));
  });

  it('JSON (jsonres01, jsonres04): same document as the expected .srj', () => {
    const rows: SolutionRow[] = [
      [ex('s1'), ex('p1'), ex('s2')],
      [ex('s2'), ex('p2'), literal('foo')],
      [ex('s3'), ex('p2'), literal('bar')],
      [ex('s4'), ex('p4'), literal('4', namedNode(xsd.integer))],
      [ex('s5'), ex('p5'), literal('5', namedNode(xsd.decimal))],
      [ex('s6'), ex('p6'), blankNode('b0')],
    ];
    assert.deepEqual(JSON.parse(select('json', ['s', 'p', 'o'], rows.slice(0, 2), rows.slice(2))), JSON.parse(w3cFile('json-res/jsonres01.srj')));
    assert.deepEqual(JSON.parse(ask('json', false)), JSON.parse(w3cFile('json-res/jsonres04.srj')));
  });
});

describe('SPARQL JSON results', () => {
  it('round-trips every tricky string through JSON.parse', () => {
    const strings = [...TRICKY_STRINGS, CONTROL_STRING, 'lone surrogate \ud800 here', '\u2028\u2029'];
    const rows = strings.map((s, i) => [literal(s), namedNode(EX + 'é/' + i)]);
    const text = select('json', ['lit', 'iri'], rows);
    assert.ok(Buffer.from(text).toString() === text, 'well-formed UTF-16 (lone surrogates escaped)');
    const parsed = JSON.parse(text);
    assert.deepEqual(
      parsed.results.bindings.map((b: any) => b.lit.value),
      strings,
    );
    assert.deepEqual(
      parsed.results.bindings.map((b: any) => b.iri),
      strings.map((_, i) => ({ type: 'uri', value: EX + 'é/' + i })),
    );
  });

  it('writes language tags, datatypes and blank nodes; omits unbound variables', () => {
    const text = select('json', ['a', 'b', 'c'], [[literal('chat', 'fr'), undefined, blankNode('x')], [literal('1', namedNode(xsd.integer))]]);
    assert.deepEqual(JSON.parse(text), {
      head: { vars: ['a', 'b', 'c'] },
      results: {
        bindings: [
          { a: { type: 'literal', value: 'chat', 'xml:lang': 'fr' }, c: { type: 'bnode', value: 'x' } },
          { a: { type: 'literal', value: '1', datatype: xsd.integer } },
        ],
      },
    });
  });

  it('writes a term repeated down a column, across batches, then another, then unbound, then the first again', () => {
    const comment = literal('a long "comment"\n', 'en');
    const other = literal('other');
    const text = select('json', ['c'], [[comment], [comment]], [[comment], [other], [undefined], [comment]]);
    const values = JSON.parse(text).results.bindings.map((b: any) => b.c);
    const expected = { type: 'literal', value: 'a long "comment"\n', 'xml:lang': 'en' };
    assert.deepEqual(values, [expected, expected, expected, { type: 'literal', value: 'other' }, undefined, expected]);
  });

  it('answers ASK with a boolean document', () => {
    assert.deepEqual(JSON.parse(ask('json', true)), { head: {}, boolean: true });
  });

  it('writes an empty result', () => {
    assert.deepEqual(JSON.parse(select('json', [])), { head: { vars: [] }, results: { bindings: [] } });
  });
});

describe('SPARQL XML results', () => {
  it('escapes markup and keeps CR; language tags and datatypes as attributes', () => {
    const text = select(
      'xml',
      ['x', 'y'],
      [
        [literal('<a href="x">&</a>\r\n'), literal('chat', 'fr')],
        [literal('4', namedNode(xsd.integer)), undefined],
      ],
    );
    assert.equal(
      text,
      '<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>\n' +
        '  <variable name="x"/>\n  <variable name="y"/>\n</head>\n<results>\n' +
        '<result><binding name="x"><literal>&lt;a href="x"&gt;&amp;&lt;/a&gt;&#13;\n</literal></binding>' +
        '<binding name="y"><literal xml:lang="fr">chat</literal></binding></result>\n' +
        `<result><binding name="x"><literal datatype="${xsd.integer}">4</literal></binding></result>\n` +
        '</results>\n</sparql>\n',
    );
  });

  it('writes IRIs and blank nodes; replaces characters XML 1.0 cannot carry', () => {
    const text = select('xml', ['v'], [[ex('a?b&c')], [blankNode('b0')], [literal('bell\u0007')]]);
    assert.match(text, /<uri>http:\/\/example.org\/a\?b&amp;c<\/uri>/);
    assert.match(text, /<bnode>b0<\/bnode>/);
    assert.match(text, /<literal>bell\ufffd<\/literal>/);
  });

  it('answers ASK', () => {
    assert.equal(
      ask('xml', true),
      '<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head/>\n<boolean>true</boolean>\n</sparql>\n',
    );
  });
});

describe('SPARQL CSV and TSV results', () => {
  it('CSV quotes fields with quotes, commas and line breaks', () => {
    const text = select(
      'csv',
      ['a', 'b'],
      [
        [literal('say "hi"'), literal('a,b')],
        [literal('x\r\ny'), literal('tab\tok')],
      ],
    );
    assert.equal(text, 'a,b\r\n"say ""hi""","a,b"\r\n"x\r\ny",tab\tok\r\n');
  });

  it('TSV escapes tabs and line breaks inside literals, keeps language tags and datatypes', () => {
    const text = select('tsv', ['a', 'b', 'c'], [[literal('x\ty\r\nz'), literal('chat', 'fr'), literal('2024-01-01', namedNode(xsd.date))]]);
    assert.equal(text, `?a\t?b\t?c\n"x\\ty\\r\\nz"\t"chat"@fr\t"2024-01-01"^^<${xsd.date}>\n`);
  });

  it('TSV writes numbers bare only when Turtle reads them back unchanged', () => {
    const text = select(
      'tsv',
      ['n'],
      [[literal('1.5e3', namedNode(xsd.double))], [literal('12', namedNode(xsd.integer))], [literal('1.', namedNode(xsd.decimal))]],
    );
    assert.equal(text, `?n\n1.5e3\n12\n"1."^^<${xsd.decimal}>\n`);
  });

  it('answer ASK with a single _askResult column', () => {
    assert.equal(ask('csv', true), '_askResult\r\ntrue\r\n');
    assert.equal(ask('tsv', false), '?_askResult\nfalse\n');
  });
});
