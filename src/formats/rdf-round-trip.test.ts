/** Every RDF format reads back (through parseRdf) exactly what it wrote, blank nodes up to renaming. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Quad } from '../rdf/terms.js';
import { parseRdf } from './rdf-parser.js';
import { createQuadsSerializer } from './serializers.js';
import { StringSink, type ParseableRdfFormat } from './serializer.js';
import { EX, asTriples, canonicalQuads, collect, trickyQuads } from './test-fixtures.js';

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
