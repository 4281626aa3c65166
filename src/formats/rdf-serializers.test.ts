/** The RDF serializers' own choices: exact N-Triples escapes, Turtle abbreviations and grouping, JSON-LD and RDF/XML shapes. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { blankNode, factory, literal, namedNode, type Quad } from '../rdf/terms.js';
import { xsd } from '../rdf/vocabulary.js';
import { parseRdf } from './rdf-parser.js';
import { SerializationError } from './serialization-error.js';
import { createQuadsSerializer } from './serializers.js';
import { StringSink, type RdfFormat } from './serializer.js';
import { EX, canonicalQuads, collect, ex } from './test-fixtures.js';

function write(format: RdfFormat, prefixes: Record<string, string>, ...batches: Quad[][]): string {
  const sink = new StringSink();
  const serializer = createQuadsSerializer(format, sink);
  serializer.begin(prefixes);
  for (const batch of batches) serializer.quads(batch);
  serializer.end();
  return sink.text;
}

const q = factory.quad.bind(factory);

describe('N-Triples and N-Quads', () => {
  it('escapes quotes, backslashes and every control character', () => {
    const text = write('ntriples', {}, [q(ex('s'), ex('p'), literal('a"b\\c\nd\re\tf\u0000g\u001fh\u007f'))]);
    assert.equal(text, '<http://example.org/s> <http://example.org/p> "a\\"b\\\\c\\nd\\re\\tf\\u0000g\\u001Fh\\u007F" .\n');
  });

  it('writes a subject repeated over its triples, across batches, and after another', () => {
    const [s, t] = [ex('s'), blankNode('t')];
    const text = write('ntriples', {}, [q(s, ex('p'), ex('o')), q(s, ex('q'), ex('o'))], [q(s, ex('r'), ex('o')), q(t, ex('p'), s), q(s, ex('p'), t)]);
    assert.equal(
      text,
      [
        `<${EX}s> <${EX}p> <${EX}o> .`,
        `<${EX}s> <${EX}q> <${EX}o> .`,
        `<${EX}s> <${EX}r> <${EX}o> .`,
        `_:t <${EX}p> <${EX}s> .`,
        `<${EX}s> <${EX}p> _:t .`,
        '',
      ].join('\n'),
    );
  });

  it('writes language tags, datatypes, blank nodes, and graphs only in N-Quads', () => {
    const quads = [q(blankNode('b1'), ex('p'), literal('chat', 'fr'), ex('g')), q(ex('s'), ex('p'), literal('1', namedNode(xsd.integer)))];
    assert.equal(write('nquads', {}, quads), `_:b1 <${EX}p> "chat"@fr <${EX}g> .\n<${EX}s> <${EX}p> "1"^^<${xsd.integer}> .\n`);
    assert.equal(write('ntriples', {}, quads), `_:b1 <${EX}p> "chat"@fr .\n<${EX}s> <${EX}p> "1"^^<${xsd.integer}> .\n`);
  });

  it('rewrites blank node labels that N-Triples would not accept, consistently', () => {
    const odd = blankNode('has space');
    const text = write('ntriples', {}, [q(odd, ex('p'), odd), q(blankNode('x_1'), ex('p'), blankNode('ok-label'))]);
    const [first, second] = text.split('\n');
    const [s, , o] = first!.split(' ');
    assert.equal(s, o);
    assert.match(s!, /^_:x_[0-9a-f]+$/);
    assert.match(second!, /^_:x_[0-9a-f]+ <[^>]+> _:ok-label \.$/, 'a label that looks encoded is encoded too');
  });
});

describe('Turtle and TriG', () => {
  it('uses the prefixes, `a`, bare numbers and booleans, and groups by subject and predicate', () => {
    const text = write(
      'turtle',
      { ex: EX, xsd: 'http://www.w3.org/2001/XMLSchema#' },
      [q(ex('s'), namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), ex('C')), q(ex('s'), ex('p'), literal('1', namedNode(xsd.integer)))],
      [q(ex('s'), ex('p'), literal('true', namedNode(xsd.boolean))), q(ex('s'), ex('q'), literal('2024-01-01', namedNode(xsd.date)))],
      [q(ex('t'), ex('p'), literal('x'))],
    );
    assert.equal(
      text,
      '@prefix ex: <http://example.org/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n\n' +
        'ex:s a ex:C ;\n    ex:p 1, true ;\n    ex:q "2024-01-01"^^xsd:date .\nex:t ex:p "x" .\n',
    );
  });

  it('falls back to <...> when a local name is not a valid PN_LOCAL, and skips invalid prefix names', () => {
    const objects = ['a/b', 'ends.', 'a b', '%zz', 'x?y', '-start'].map((local) => namedNode(EX + local));
    const text = write(
      'turtle',
      { ex: EX, 'bad prefix': 'http://other.example/' },
      objects.map((o) => q(ex('s'), ex('p'), o)),
    );
    assert.ok(!text.includes('bad prefix'));
    for (const o of objects) assert.ok(!text.includes('ex:' + o.value.slice(EX.length) + ' '), o.value);
    assert.ok(text.includes('<http://example.org/a/b>'));
    assert.ok(text.includes('<http://example.org/a\\u0020b>'), 'a space is escaped, not written raw');
  });

  it('allows the prefixed names Turtle does: digits first, inner dots, colons, percent escapes', async () => {
    const locals = ['123', 'a.b', 'a:b', 'caf%C3%A9', 'é'];
    const quads = locals.map((local) => q(ex('s'), ex('p'), namedNode(EX + local)));
    const text = write('turtle', { ex: EX }, quads);
    for (const local of locals) assert.ok(text.includes('ex:' + local), local);
    assert.deepEqual(canonicalQuads(await collect(parseRdf(text, 'turtle'))), canonicalQuads(quads));
  });

  it('TriG opens one block per run of quads in the same graph', () => {
    const text = write('trig', { ex: EX }, [
      q(ex('a'), ex('p'), literal('1'), ex('g')),
      q(ex('a'), ex('p'), literal('2'), ex('g')),
      q(ex('b'), ex('p'), literal('3')),
      q(ex('c'), ex('p'), literal('4'), blankNode('g2')),
    ]);
    assert.equal(text, '@prefix ex: <http://example.org/> .\n\nex:g {\n    ex:a ex:p "1", "2" .\n}\nex:b ex:p "3" .\n_:g2 {\n    ex:c ex:p "4" .\n}\n');
  });
});

describe('JSON-LD', () => {
  it('writes expanded node objects, named graphs under @graph', () => {
    const text = write('jsonld', {}, [
      q(ex('s'), ex('p'), literal('chat', 'fr')),
      q(ex('s'), ex('p'), blankNode('b')),
      q(ex('s'), ex('q'), literal('1', namedNode(xsd.integer)), ex('g')),
    ]);
    assert.deepEqual(JSON.parse(text), [
      { '@id': EX + 's', [EX + 'p']: [{ '@value': 'chat', '@language': 'fr' }, { '@id': '_:b' }] },
      { '@id': EX + 'g', '@graph': [{ '@id': EX + 's', [EX + 'q']: [{ '@value': '1', '@type': xsd.integer }] }] },
    ]);
  });

  it('never repeats a key in one object: a returning predicate starts a new node object', () => {
    const text = write('jsonld', {}, [q(ex('s'), ex('p'), literal('1')), q(ex('s'), ex('q'), literal('2')), q(ex('s'), ex('p'), literal('3'))]);
    assert.deepEqual(JSON.parse(text), [
      { '@id': EX + 's', [EX + 'p']: [{ '@value': '1' }], [EX + 'q']: [{ '@value': '2' }] },
      { '@id': EX + 's', [EX + 'p']: [{ '@value': '3' }] },
    ]);
  });
});

describe('RDF/XML', () => {
  it('declares unknown predicate namespaces on the element, and reads back', async () => {
    const quads = [q(ex('s'), namedNode('http://other.example/ns#prop'), literal('x', 'en')), q(ex('s'), namedNode('urn:x:y'), blankNode('b'))];
    const text = write('rdfxml', { ex: EX }, quads);
    assert.ok(text.includes('<prop xmlns="http://other.example/ns#" xml:lang="en">x</prop>'));
    assert.ok(text.includes('<y xmlns="urn:x:" rdf:nodeID="b"/>'));
    assert.deepEqual(canonicalQuads(await collect(parseRdf(text, 'rdfxml'))), canonicalQuads(quads));
  });

  it('fails clearly on a predicate that has no XML QName', () => {
    for (const iri of ['http://example.org/123', 'http://example.org/p/', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#Description']) {
      assert.throws(
        () => write('rdfxml', {}, [q(ex('s'), namedNode(iri), literal('x'))]),
        (error: unknown) => {
          assert.ok(error instanceof SerializationError);
          assert.ok(error.message.includes(iri));
          return true;
        },
      );
    }
  });

  it('escapes attribute values and text', () => {
    const text = write('rdfxml', { ex: EX }, [q(ex('a"b'), ex('p'), literal('<&>\r', namedNode(EX + 'dt"x')))]);
    assert.ok(text.includes('rdf:about="http://example.org/a&quot;b"'));
    assert.ok(text.includes('<ex:p rdf:datatype="http://example.org/dt&quot;x">&lt;&amp;&gt;&#13;</ex:p>'));
  });
});
