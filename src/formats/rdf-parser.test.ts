/** parseRdf: every format, batches, target graph, gzip, errors with positions, no network. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ProtocolError, SparqlSyntaxError } from '../errors.js';
import { termKey } from '../rdf/terms.js';
import { parseRdf } from './rdf-parser.js';
import { PARSEABLE_RDF_FORMATS } from './format-table.js';
import { collect, ex } from './test-fixtures.js';

const TURTLE = '@prefix ex: <http://example.org/> .\nex:a ex:b ex:c, ex:d .\nex:a ex:e "x"@en .\n';

async function rejection(promise: Promise<unknown>): Promise<SparqlSyntaxError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SparqlSyntaxError, String(error));
    return error;
  }
  assert.fail('expected a syntax error');
}

describe('parseRdf', () => {
  it('reads a string by format name or media type', async () => {
    const byName = await collect(parseRdf(TURTLE, 'turtle'));
    const byType = await collect(parseRdf(TURTLE, 'text/turtle; charset=utf-8'));
    assert.equal(byName.length, 3);
    assert.deepEqual(
      byType.map((q) => termKey(q.object)),
      byName.map((q) => termKey(q.object)),
    );
  });

  it('reads a stream in batches of the requested size', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `<http://example.org/s${i}> <http://example.org/p> "${i}" .\n`);
    const input = Readable.from(lines.map((l) => Buffer.from(l)));
    const sizes: number[] = [];
    for await (const batch of parseRdf(input, 'ntriples', { batchSize: 10 })) sizes.push(batch.length);
    assert.deepEqual(sizes, [10, 10, 5]);
  });

  it('stops reading when the consumer stops', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `<http://example.org/s${i}> <http://example.org/p> "${i}" .\n`);
    for await (const batch of parseRdf(Readable.from(lines), 'ntriples', { batchSize: 10 })) {
      assert.equal(batch.length, 10);
      break;
    }
  });

  it('puts triples (and default-graph quads) into the target graph', async () => {
    const triples = await collect(parseRdf(TURTLE, 'turtle', { graph: ex('g') }));
    assert.ok(triples.every((q) => q.graph.equals(ex('g'))));
    const nquads = '<http://example.org/a> <http://example.org/b> "1" .\n<http://example.org/a> <http://example.org/b> "2" <http://example.org/other> .\n';
    const quads = await collect(parseRdf(nquads, 'nquads', { graph: ex('g') }));
    assert.deepEqual(
      quads.map((q) => q.graph.value),
      ['http://example.org/g', 'http://example.org/other'],
    );
  });

  it('resolves relative IRIs against the base IRI', async () => {
    const [quad] = await collect(parseRdf('<a> <b> <#c> .', 'turtle', { baseIri: 'http://example.org/doc' }));
    assert.equal(quad!.object.value, 'http://example.org/doc#c');
    const [xmlQuad] = await collect(
      parseRdf(
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/"><rdf:Description rdf:about="x"><ex:p rdf:resource="#y"/></rdf:Description></rdf:RDF>',
        'rdfxml',
        { baseIri: 'http://example.org/doc' },
      ),
    );
    assert.equal(xmlQuad!.subject.value, 'http://example.org/x');
  });

  it('decompresses gzip streams', async () => {
    const quads = await collect(parseRdf(Readable.from([gzipSync(TURTLE)]), 'turtle', { gzip: true }));
    assert.equal(quads.length, 3);
  });

  it('refuses a corrupt gzip stream in every format as a syntax error', async () => {
    const corrupt = gzipSync(TURTLE);
    corrupt.fill(0x55, 12, 40);
    for (const format of PARSEABLE_RDF_FORMATS) {
      for (const body of [corrupt, Buffer.from('not gzip at all')]) {
        const error = await rejection(collect(parseRdf(Readable.from([body]), format, { gzip: true })));
        assert.match(error.message, /cannot decompress/, format);
      }
    }
  });

  it('keeps blank nodes of different JSON-LD / RDF/XML documents apart', async () => {
    const doc = '[{"@id":"_:b0","http://example.org/p":[{"@value":"x"}]}]';
    const [first] = await collect(parseRdf(doc, 'jsonld'));
    const [second] = await collect(parseRdf(doc, 'jsonld'));
    assert.notEqual(first!.subject.value, second!.subject.value);
  });

  it('reports Turtle and N-Triples syntax errors with their line', async () => {
    const error = await rejection(collect(parseRdf('<http://example.org/a> <http://example.org/b> "x" .\n<http://example.org/a> oops .\n', 'ntriples')));
    assert.equal(error.line, 2);
    assert.doesNotMatch(error.message, /column undefined/);
    const turtle = await rejection(collect(parseRdf('@prefix ex: <http://example.org/> .\n\nex:a ex:b .\n', 'turtle')));
    assert.equal(turtle.line, 3);
  });

  it('reports RDF/XML errors with line and column', async () => {
    const error = await rejection(collect(parseRdf('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n  <oops>\n</rdf:RDF>', 'rdfxml')));
    assert.equal(error.line, 2);
    assert.equal(typeof error.column, 'number');
  });

  it('reports JSON errors with line and column', async () => {
    const error = await rejection(collect(parseRdf('[\n  {"@id": "http://example.org/a",\n   "http://example.org/p": [}]\n]', 'jsonld')));
    assert.equal(error.line, 3);
    assert.equal(error.column, 29);
  });

  it('refuses to fetch remote JSON-LD contexts', async () => {
    const error = await rejection(collect(parseRdf('{"@context": "https://schema.org/", "@id": "http://example.org/a", "name": "x"}', 'jsonld')));
    assert.match(error.message, /remote JSON-LD contexts are not fetched \(https:\/\/schema.org\/\)/);
  });

  it('reads inline JSON-LD contexts', async () => {
    const quads = await collect(parseRdf('{"@context": {"name": "http://schema.org/name"}, "@id": "http://example.org/a", "name": "x"}', 'jsonld'));
    assert.equal(quads.length, 1);
    assert.equal(quads[0]!.predicate.value, 'http://schema.org/name');
  });

  it('rejects an unknown format', () => {
    assert.throws(() => parseRdf('', 'text/html'), ProtocolError);
  });
});

describe('parseRdf and invalid IRIs (RFC 3987)', () => {
  const INVALID = ['http://x.example/a#b#c', 'http://x.example/a%zz', 'http://[::1/a', 'http://x.example:8o/', 'http://x.example/[a]'];
  /** A bad IRI on line 3 of each format (a datatype in N-Quads, a graph name in TriG). */
  const DOCUMENTS: Record<string, (iri: string) => string> = {
    turtle: (iri) => `@prefix ex: <http://x.example/> .\nex:s ex:p 1 .\nex:s ex:p <${iri}> .\nex:s ex:p 4 .\n`,
    ntriples: (iri) =>
      `<http://x.example/s> <http://x.example/p> "1" .\n<http://x.example/s> <http://x.example/p> "2" .\n<${iri}> <http://x.example/p> "3" .\n`,
    nquads: (iri) =>
      `<http://x.example/s> <http://x.example/p> "1" .\n<http://x.example/s> <http://x.example/p> "2" .\n<http://x.example/s> <http://x.example/p> "3"^^<${iri}> .\n`,
    trig: (iri) => `<http://x.example/g> {\n<http://x.example/s> <http://x.example/p> 1 }\n<${iri}> { <http://x.example/s> <http://x.example/p> 3 }\n`,
    rdfxml: (iri) =>
      `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://x.example/">\n<rdf:Description rdf:about="http://x.example/s"><ex:p>1</ex:p></rdf:Description>\n<rdf:Description rdf:about="${iri}"><ex:p>3</ex:p></rdf:Description>\n</rdf:RDF>`,
  };

  it('refuses a document with an invalid IRI, naming the line, in every format', async () => {
    for (const [format, document] of Object.entries(DOCUMENTS)) {
      for (const iri of INVALID) {
        const error = await rejection(collect(parseRdf(document(iri), format)));
        assert.match(error.message, /^invalid IRI </, `${format} ${iri}`);
        assert.equal(error.line, 3, `${format} ${iri}: ${error.message}`);
      }
    }
  });

  it('names the line of the statement in a stream read slowly (quads waiting in buffers)', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `<http://x.example/s${i}> <http://x.example/p> "${i}" .\n`);
    lines[2500] = '<http://x.example/a#b#c> <http://x.example/p> "bad" .\n';
    for (const format of ['ntriples', 'turtle']) {
      const input = Readable.from(lines.map((line) => Buffer.from(line)));
      const error = await rejection(
        (async () => {
          for await (const batch of parseRdf(input, format, { batchSize: 100 })) {
            assert.ok(batch.length > 0);
            await new Promise((resolve) => setImmediate(resolve));
          }
        })(),
      );
      assert.equal(error.line, 2501, format);
    }
  });

  it('skips the quad instead and reports it, when asked (quiver load --lenient)', async () => {
    for (const [format, document] of Object.entries(DOCUMENTS)) {
      const skipped: string[] = [];
      const quads = await collect(parseRdf(document(INVALID[0]!), format, { skipInvalid: (error) => skipped.push(error.message) }));
      assert.equal(skipped.length, 1, format);
      assert.match(skipped[0]!, /second '#'.*\(line 3\)$/, format);
      assert.ok(quads.length >= 1 && quads.every((q) => !q.subject.value.includes('#b#')), format);
    }
  });

  it('reads odd but valid IRIs, and relative ones resolved against the base', async () => {
    for (const iri of [
      'http://[::1]:8080/a',
      'http://x.example:/p',
      'http://x.example/caf\u00e9#',
      'urn:isbn:0451450523',
      'mailto:a@x.example',
      'http://x.example/%C3%A9',
    ]) {
      for (const [format, document] of Object.entries(DOCUMENTS)) assert.ok((await collect(parseRdf(document(iri), format))).length >= 2, `${format} ${iri}`);
    }
    const resolved = await collect(parseRdf('<a#> <../p> <c?d#e> .', 'turtle', { baseIri: 'http://[::1]/x/y' }));
    assert.deepEqual(
      [resolved[0]!.subject.value, resolved[0]!.predicate.value, resolved[0]!.object.value],
      ['http://[::1]/x/a#', 'http://[::1]/p', 'http://[::1]/x/c?d#e'],
    );
  });
});
