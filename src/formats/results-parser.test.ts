import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvValueOf, parseSparqlResults, parseTsvTerm, ResultsFormatError, streamSparqlResults, type ParsedResults } from './results-parser.js';
import { resultsFormatOf } from './format-table.js';
import { blankNode, directionalLiteral, literal, namedNode, termToString, tripleTerm, typedLiteral } from '../rdf/terms.js';
import { createSolutionsSerializer } from './serializers.js';
import { StringSink } from './serializer.js';
import type { SolutionRow } from '../rdf/terms.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** Rows as N-Triples strings, so assertion failures read well. */
function show(result: ParsedResults): unknown {
  if (result.kind === 'boolean') return result;
  return {
    variables: result.variables,
    rows: result.rows.map((row: SolutionRow) => row.map((t) => (t ? termToString(t) : null))),
  };
}

test('format names: media types with parameters and file extensions', async () => {
  assert.equal(resultsFormatOf('application/sparql-results+json; charset=utf-8'), 'json');
  assert.equal(resultsFormatOf('.srx'), 'xml');
  assert.equal(resultsFormatOf('TSV'), 'tsv');
  assert.equal(resultsFormatOf('text/turtle'), undefined);
  await assert.rejects(parseSparqlResults('', 'text/turtle'), ResultsFormatError);
});

/** Every kind of term, unbound variables, entities, character references, CDATA and comments. */
const RICH_XML = `<?xml version="1.0"?>
<!-- a comment with <tags> -->
<sparql xmlns="http://www.w3.org/2005/sparql-results#">
  <head><variable name="x"/><variable name="y"/><link href="x"/></head>
  <results>
    <result>
      <binding name="x"><uri>http://example.org/a&amp;b</uri></binding>
      <binding name="y"><literal xml:lang="en"> hi &lt;there&gt; </literal></binding>
    </result>
    <result>
      <binding name="y"><literal datatype="${XSD}integer">7</literal></binding>
    </result>
    <result>
      <binding name="x"><bnode>r1</bnode></binding>
      <binding name="y"><literal><![CDATA[a<b]]>&#x263A;</literal></binding>
    </result>
    <result><binding name="y"><literal></literal></binding></result>
  </results>
</sparql>`;

test('XML: every kind of term, unbound variables, entities and comments', async () => {
  assert.deepEqual(show(await parseSparqlResults(RICH_XML, 'srx')), {
    variables: ['x', 'y'],
    rows: [
      ['<http://example.org/a&b>', '" hi <there> "@en'],
      [null, `"7"^^<${XSD}integer>`],
      ['_:r1', '"a<b☺"'],
      [null, '""'],
    ],
  });
});

test('XML: boolean results, namespace prefixes on elements', async () => {
  const xml = `<s:sparql xmlns:s="http://www.w3.org/2005/sparql-results#"><s:head/><s:boolean>true</s:boolean></s:sparql>`;
  assert.deepEqual(await parseSparqlResults(xml, 'application/sparql-results+xml'), { kind: 'boolean', value: true });
});

test('XML: a binding of a variable the head does not declare is an error', async () => {
  const xml = `<sparql><head><variable name="x"/></head><results><result>
    <binding name="z"><uri>http://e/</uri></binding></result></results></sparql>`;
  await assert.rejects(parseSparqlResults(xml, 'srx'), /undeclared \?z/);
});

test('XML: text of literals is kept as written, line ends as XML reads them; IRIs and labels are trimmed', async () => {
  const xml = `<sparql><head><variable name="x"/><variable name="y"/></head><results><result>
    <binding name="x"><uri>
      http://e/s </uri></binding>
    <binding name="y"><literal>  two\r\n\tlines&#13;\n </literal></binding></result></results></sparql>`;
  assert.deepEqual(show(await parseSparqlResults(xml, 'srx')), {
    variables: ['x', 'y'],
    rows: [['<http://e/s>', '"  two\\n\\tlines\\r\\n "']],
  });
});

test('XML: malformed documents are ResultsFormatErrors, with the line and column where XML breaks', async () => {
  const cases: [string, RegExp][] = [
    ['<sparql><head/>\n<boolean>&nope;</boolean></sparql>', /^XML, line 2, column 15: undefined entity$/],
    ['<sparql><head/><results><result></results></sparql>', /^XML, line 1, column \d+: unexpected close tag/],
    ['<sparql><head/><results>\n<result/>', /^XML, line 2, column \d+: unclosed tag: results/],
    ['', /^XML, line 1, column 0: document must contain a root element$/],
    ['<sparql><head/><boolean>true</boolean></sparql><sparql/>', /^XML, line 1, column \d+: /],
    ['<html><body/></html>', /^SPARQL XML results: root element is <html>$/],
    ['<sparql><head/></sparql>', /^SPARQL XML results: neither <results> nor <boolean>$/],
    ['<sparql><head/><boolean>yes</boolean></sparql>', /"yes" is not a boolean/],
    [
      '<sparql><head><variable name="x"/></head><results><result><binding name="x"><iri>x</iri></binding></result></results></sparql>',
      /unknown term element <iri>/,
    ],
    ['<sparql><head><variable/></head><results/></sparql>', /<variable> without name=/],
  ];
  for (const [xml, message] of cases) {
    await assert.rejects(parseSparqlResults(xml, 'srx'), (error: Error) => error instanceof ResultsFormatError && message.test(error.message), xml);
  }
});

test('XML streamed: a document cut short is an error, not fewer rows', async () => {
  const cut = RICH_XML.slice(0, RICH_XML.indexOf('</results>'));
  await assert.rejects(streamed(cut, 'srx', 64), (error: Error) => error instanceof ResultsFormatError && /unclosed tag: results/.test(error.message));
});

test('JSON: terms, xml:lang, datatypes and the old typed-literal spelling', async () => {
  const json = JSON.stringify({
    head: { vars: ['a', 'b'] },
    results: {
      bindings: [
        { a: { type: 'uri', value: 'http://e/1' }, b: { type: 'literal', value: 'chat', 'xml:lang': 'fr' } },
        { b: { type: 'typed-literal', value: '1.5', datatype: `${XSD}decimal` } },
        { a: { type: 'bnode', value: 'n0' }, b: { type: 'literal', value: 's', datatype: `${XSD}string` } },
      ],
    },
  });
  assert.deepEqual(show(await parseSparqlResults(json, 'srj')), {
    variables: ['a', 'b'],
    rows: [
      ['<http://e/1>', '"chat"@fr'],
      [null, `"1.5"^^<${XSD}decimal>`],
      ['_:n0', '"s"'],
    ],
  });
  assert.deepEqual(await parseSparqlResults('{"head":{},"boolean":false}', 'json'), { kind: 'boolean', value: false });
});

test('CSV: quoted fields with commas, quotes and newlines; empty fields are unbound', async () => {
  const csv = 's,o\r\nhttp://e/s,"4,4"\r\n_:b0,"say ""hi""\nthere"\r\nhttp://e/t,\r\n';
  const result = await parseSparqlResults(csv, 'text/csv');
  assert.deepEqual(show(result), {
    variables: ['s', 'o'],
    rows: [
      ['"http://e/s"', '"4,4"'],
      ['_:b0', '"say \\"hi\\"\\nthere"'],
      ['"http://e/t"', null],
    ],
  });
});

test('CSV: csvValueOf reduces typed terms to what CSV keeps', () => {
  assert.deepEqual(csvValueOf(namedNode('http://e/s')), literal('http://e/s'));
  assert.deepEqual(csvValueOf(typedLiteral('1', `${XSD}integer`)), literal('1'));
  assert.deepEqual(csvValueOf(literal('x', 'en')), literal('x'));
  assert.deepEqual(csvValueOf(blankNode('b')), blankNode('b'));
  assert.equal(csvValueOf(undefined), undefined);
});

test('TSV: Turtle terms, number shorthands and unbound columns', async () => {
  const tsv = [
    '?s\t?o',
    `<http://e/s>\t"1"`,
    `<http://e/s>\t2.2`,
    `_:b0\t"-3"^^<${XSD}negativeInteger>`,
    `<http://e/s>\t1.0e6`,
    `<http://e/s>\t"tab\\there"@en-GB`,
    `<http://e/s>\t`,
    '',
  ].join('\n');
  assert.deepEqual(show(await parseSparqlResults(tsv, '.tsv')), {
    variables: ['s', 'o'],
    rows: [
      ['<http://e/s>', '"1"'],
      ['<http://e/s>', `"2.2"^^<${XSD}decimal>`],
      ['_:b0', `"-3"^^<${XSD}negativeInteger>`],
      ['<http://e/s>', `"1.0e6"^^<${XSD}double>`],
      // The term factory lower-cases language tags (RDF 1.1 compares them case-insensitively).
      ['<http://e/s>', '"tab\\there"@en-gb'],
      ['<http://e/s>', null],
    ],
  });
});

test('TSV: single terms', () => {
  assert.deepEqual(parseTsvTerm('42'), typedLiteral('42', `${XSD}integer`));
  assert.deepEqual(parseTsvTerm('true'), typedLiteral('true', `${XSD}boolean`));
  assert.deepEqual(parseTsvTerm('"\\u00E9"'), literal('é'));
  assert.throws(() => parseTsvTerm('bare'), ResultsFormatError);
});

test('TSV: a row with the wrong number of fields is an error', async () => {
  await assert.rejects(parseSparqlResults('?a\t?b\n<http://e/>\n', 'tsv'), /2 columns/);
});

/** The document as a stream of small byte chunks (cutting through multi-byte characters). */
async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

async function streamed(text: string, format: string, size: number): Promise<ParsedResults> {
  const result = await streamSparqlResults(chunks(text, size), format);
  if (result.kind === 'boolean') return result;
  const rows: SolutionRow[] = [];
  for await (const batch of result.rows) rows.push(...batch);
  return { kind: 'bindings', variables: result.variables, rows };
}

const STREAM_SAMPLES: [string, string][] = [
  ['srx', RICH_XML],
  [
    'srx',
    `<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/>
     <variable name="y"/></head><results><result><binding name="x"><uri>http://e/é</uri></binding></result>
     <result><binding name="y"><literal xml:lang="fr">chaîne &amp; co</literal></binding>
     <binding name="x"><bnode>b1</bnode></binding></result></results></sparql>`,
  ],
  [
    'srj',
    JSON.stringify({
      results: { bindings: [{ x: { type: 'uri', value: 'http://e/é' } }, { y: { type: 'literal', value: 'a "}" b' } }] },
      head: { vars: ['x', 'y'] },
    }),
  ],
  ['csv', 'x,y\r\nhttp://e/é,"multi\nline, ""quoted"""\r\n_:b1,\r\n'],
  ['tsv', '?x\t?y\n<http://e/é>\t"ü"@de\n_:b1\t42\n'],
  ['srx', '<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><boolean>false</boolean></sparql>'],
  ['srj', '{"head":{},"boolean":true}'],
  ['srj', '{"head":{"link":[]},"results":{"bindings":[{}]}}'],
  ['srj', '{"head":{"vars":["z"]},"results":{"bindings":[]}}'],
];

test('streaming: any chunking gives what the whole-document parser gives', async () => {
  for (const [format, text] of STREAM_SAMPLES) {
    const whole = show(await parseSparqlResults(text, format));
    for (const size of [1, 3, 7, 1000]) {
      assert.deepEqual(show(await streamed(text, format, size)), whole, `${format} in chunks of ${size}`);
    }
  }
});

test('streaming: a consumer that stops early stops reading the stream', async () => {
  let chunksRead = 0;
  async function* endless(): AsyncGenerator<string> {
    yield '?x\n';
    for (let i = 0; ; i++) {
      chunksRead++;
      yield `<http://e/${i}>\n`;
    }
  }
  const result = await streamSparqlResults(endless(), 'text/tab-separated-values');
  assert.equal(result.kind, 'bindings');
  if (result.kind !== 'bindings') return;
  for await (const batch of result.rows) {
    assert.ok(batch.length > 0);
    break;
  }
  assert.ok(chunksRead < 5);
});

test('SPARQL 1.2: triple terms and base directions round-trip through JSON, XML and TSV', async () => {
  const s = namedNode('http://example/s');
  const p = namedNode('http://example/p');
  const rtl = directionalLiteral('قطة', 'ar', 'rtl');
  const nested = tripleTerm(s, p, tripleTerm(blankNode('b0'), p, rtl));
  const rows: SolutionRow[] = [
    [nested, rtl],
    [tripleTerm(s, p, typedLiteral('1', `${XSD}integer`)), undefined],
  ];
  for (const format of ['json', 'xml', 'tsv'] as const) {
    const sink = new StringSink();
    const serializer = createSolutionsSerializer(format, sink);
    serializer.begin(['t', 'l']);
    serializer.rows(rows);
    serializer.end();
    const parsed = await parseSparqlResults(sink.text, format);
    assert.equal(parsed.kind, 'bindings');
    if (parsed.kind !== 'bindings') continue;
    const shown = parsed.rows.map((row) => row.map((term) => (term ? termToString(term) : '')));
    assert.deepEqual(
      shown,
      rows.map((row) => row.map((term) => (term ? termToString(term) : ''))),
      format,
    );
    assert.deepEqual(show(await streamed(sink.text, format, 7)), show(parsed), `${format}, streamed`);
  }
});
