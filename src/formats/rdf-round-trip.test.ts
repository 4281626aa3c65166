/** Every RDF format reads back (through parseRdf) exactly what it wrote, blank nodes up to renaming. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { blankNode, defaultGraph, directionalLiteral, factory, literal, namedNode, tripleTerm, type Quad } from '../rdf/terms.js';
import { rdf, xsd } from '../rdf/vocabulary.js';
import { SerializationError } from './serialization-error.js';
import { parseRdf } from './rdf-parser.js';
import { createQuadsSerializer } from './serializers.js';
import { StringSink, type ParseableRdfFormat } from './serializer.js';
import { EX, asTriples, canonicalQuads, collect, ex, trickyQuads } from './test-fixtures.js';

const PREFIXES = { ex: EX, rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', xsd: 'http://www.w3.org/2001/XMLSchema#' };

/** Writes in batches of 3, so that grouping across batch boundaries is exercised too. */
function serialize(format: ParseableRdfFormat, quads: Quad[]): string {
  const sink = new StringSink();
  const serializer = createQuadsSerializer(format, sink);
  serializer.begin(PREFIXES);
  for (let i = 0; i < quads.length; i += 3) serializer.quads(quads.slice(i, i + 3));
  serializer.end();
  return sink.text;
}

const CASES: { format: ParseableRdfFormat; graphs: boolean; controls: boolean }[] = [
  { format: 'ntriples', graphs: false, controls: true },
  { format: 'nquads', graphs: true, controls: true },
  { format: 'turtle', graphs: false, controls: true },
  { format: 'trig', graphs: true, controls: true },
  { format: 'jsonld', graphs: true, controls: true },
  // XML cannot carry C0 control characters at all.
  { format: 'rdfxml', graphs: false, controls: false },
];

describe('round trip through parseRdf', () => {
  for (const { format, graphs, controls } of CASES) {
    it(`${format} reads back the same quads`, async () => {
      const quads = trickyQuads({ graphs, controls });
      const text = serialize(format, quads);
      const parsed = await collect(parseRdf(text, format));
      assert.deepEqual(canonicalQuads(parsed), canonicalQuads(graphs ? quads : asTriples(quads)), text);
    });
  }

  it('triple formats drop graphs (the data is merged, not lost)', async () => {
    const quads = trickyQuads({ graphs: true, controls: false });
    for (const format of ['ntriples', 'turtle', 'rdfxml'] as const) {
      const parsed = await collect(parseRdf(serialize(format, quads), format));
      assert.deepEqual(canonicalQuads(parsed), canonicalQuads(asTriples(quads)), format);
    }
  });

  it('an empty result is a valid empty document in every format', async () => {
    for (const { format } of CASES) {
      assert.deepEqual(await collect(parseRdf(serialize(format, []), format)), [], format);
    }
  });
});

/** RDF 1.2 data: directional literals, and triple terms (nested, with literals of every kind) as objects. */
function rdf12Quads(graphs: boolean): Quad[] {
  const g = graphs ? ex('graph/12') : defaultGraph();
  const inner = tripleTerm(ex('s'), ex('p'), directionalLiteral('مرحبا', 'ar', 'rtl'));
  return [
    factory.quad(ex('s'), ex('p'), directionalLiteral('مرحبا', 'ar', 'rtl'), g),
    factory.quad(ex('s'), ex('p'), directionalLiteral('hello', 'en-GB', 'ltr')),
    factory.quad(ex('r'), namedNode(rdf.reifies), inner, g),
    factory.quad(ex('r'), ex('says'), tripleTerm(ex('r'), ex('about'), inner)),
    factory.quad(ex('r'), ex('count'), tripleTerm(blankNode('b'), namedNode(rdf.type), literal('42', namedNode(xsd.integer)))),
    factory.quad(blankNode('b'), ex('name'), literal('x"y\nz')),
  ];
}

describe('RDF 1.2 round trip', () => {
  for (const { format, graphs } of CASES.filter((c) => c.format !== 'jsonld')) {
    it(`${format} reads back triple terms and directions`, async () => {
      const quads = rdf12Quads(graphs);
      const text = serialize(format, quads);
      const parsed = await collect(parseRdf(text, format));
      assert.deepEqual(canonicalQuads(parsed), canonicalQuads(graphs ? quads : asTriples(quads)), text);
      const blankNodes = new Set(
        parsed
          .flatMap((q) => [q.subject, q.object.termType === 'Quad' ? q.object.subject : q.object])
          .filter((t) => t.termType === 'BlankNode')
          .map((t) => t.value),
      );
      assert.equal(blankNodes.size, 1, `the blank node in the triple term is the one outside it:\n${text}`);
    });
  }

  it('JSON-LD carries directions and refuses a triple term, naming the formats that carry one', async () => {
    const directional = [factory.quad(ex('s'), ex('p'), directionalLiteral('مرحبا', 'ar', 'rtl'))];
    assert.deepEqual(canonicalQuads(await collect(parseRdf(serialize('jsonld', directional), 'jsonld'))), canonicalQuads(directional));
    assert.throws(
      () => serialize('jsonld', rdf12Quads(false)),
      (error: unknown) => error instanceof SerializationError && /JSON-LD cannot carry RDF 1\.2 triple terms; choose N-Triples/.test(error.message),
    );
  });
});
