import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Parser } from 'n3';
import type * as RDF from '@rdfjs/types';
import { factory, termKey } from '../rdf/terms.js';
import { ByteLineParser, NEEDS_STRING_PARSER, NO_STATEMENT, STATEMENT } from './byte-line-parser.js';
import { DEFAULT_GRAPH_KEY, NQuadsReader, TERM_KEYS } from '../formats/nquads-reader.js';
import { RdfSyntaxError } from '../formats/rdf-syntax-error.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PREFIX = 'f_';

/** The keys of the byte parser, or its answer when it has no statement. */
function byteKeys(line: string | Buffer, quads = true): string[] | number {
  const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
  const parser = new ByteLineParser(quads, PREFIX);
  const result = parser.parse(bytes, 0, bytes.length);
  if (result !== STATEMENT) return result;
  // As the parse worker does for new keys: unchecked IRIs are checked before use.
  const keys = [parser.subject, parser.predicate, parser.object, ...(parser.hasGraph ? [parser.graph] : [])];
  if (keys.some((key) => key.unchecked && !parser.isValidIri(key))) return NEEDS_STRING_PARSER;
  const text = (key: { bytes: Uint8Array; from: number; to: number }): string => Buffer.from(key.bytes.subarray(key.from, key.to)).toString('utf8');
  return [text(parser.subject), text(parser.predicate), text(parser.object), parser.hasGraph ? text(parser.graph) : 'D'];
}

/** The reader of every other path, as the parse worker uses it for the lines the byte parser leaves. */
function keyReader(quads: boolean): NQuadsReader<string> {
  return new NQuadsReader(TERM_KEYS, { quads, blankPrefix: PREFIX, defaultGraph: DEFAULT_GRAPH_KEY });
}

function stringKeys(line: string, quads = true): string[] {
  const out: string[] = [];
  keyReader(quads).parseLine(line, (s, p, o, g) => out.push(s, p, o, g));
  return out;
}

/** N3.js's reading of the line, as keys (blank nodes relabelled as the loaders do). */
function n3Keys(line: string): string[] {
  const [quad] = new Parser({ format: 'N-Quads', factory, blankNodePrefix: '' }).parse(line);
  const key = (term: RDF.Term): string => (term.termType === 'BlankNode' ? '_' + PREFIX + term.value : term.termType === 'DefaultGraph' ? 'D' : termKey(term));
  return [key(quad.subject), key(quad.predicate), key(quad.object), key(quad.graph)];
}

const COMMON_LINES = [
  '<http://a/s> <http://a/p> <http://a/o> .',
  '<http://a/s> <http://a/p> <http://a/o> <http://a/g> .',
  '<http://a/s>\t<http://a/p>\t"plain" .\r',
  '<http://a/s> <http://a/p> "" .',
  '<http://a/s> <http://a/p> "x"@EN-gb .',
  '<http://a/s> <http://a/p> "x"@de-CH-1996 <http://a/g> .',
  '<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
  '<http://a/s> <http://a/p> "s"^^<http://www.w3.org/2001/XMLSchema#string> .',
  '_:b1 <http://a/p> _:b.2 .',
  '_:b1 <http://a/p> _:b2 _:g1 .',
  '<http://a/s> <http://a/p> <urn:isbn:0451450523> . # comment',
  '<http://a/ünï/路径> <http://a/p> "ünïcødé 😀"@fr .',
  '_:é1 <http://a/p> "a ^ b < c > d { e } | f" .',
  '<http://a/s><http://a/p>"tight".',
  '<http://a/s> <http://a/p> "with \'single\' quotes and # hash" .',
];

test('common lines: the byte parser, the string parser and N3.js agree on every key', () => {
  for (const line of COMMON_LINES) {
    const keys = byteKeys(line);
    assert.deepEqual(keys, stringKeys(line), line);
    assert.deepEqual(keys, n3Keys(line), line);
  }
});

test('rdf:langString or rdf:dirLangString as a datatype (no tag) is refused, as N3.js and RDF 1.2 do', () => {
  for (const name of ['langString', 'dirLangString']) {
    const line = `<http://a/s> <http://a/p> "s"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#${name}> .`;
    assert.equal(byteKeys(line), NEEDS_STRING_PARSER);
    assert.throws(() => stringKeys(line), /needs a language tag/);
  }
});

test('N-Triples: a statement without a graph is in the default graph; a graph term is the string parser’s error', () => {
  assert.deepEqual(byteKeys('<http://a/s> <http://a/p> <http://a/o> .', false), ['<http://a/s', '<http://a/p', '<http://a/o', 'D']);
  assert.equal(byteKeys('<http://a/s> <http://a/p> <http://a/o> <http://a/g> .', false), NEEDS_STRING_PARSER);
});

test('blank and comment lines hold no statement', () => {
  for (const line of ['', '   ', '\t\r', '# a comment', '   # indented comment']) assert.equal(byteKeys(line), NO_STATEMENT, JSON.stringify(line));
});

test('escapes go to the string parser, which resolves them as N3.js does', () => {
  const lines = [
    '<http://a/s> <http://a/p> "tab\\there \\"q\\" \\\\ \\n" .',
    '<http://a/s> <http://a/p> "\\u00e9\\U0001F600" .',
    '<http://a/\\u00e9> <http://a/p> <http://a/o> .',
    '<http://a/s> <http://a/p> "x"^^<http://a/\\u0074ype> .',
  ];
  for (const line of lines) {
    assert.equal(byteKeys(line), NEEDS_STRING_PARSER, line);
    assert.deepEqual(stringKeys(line), n3Keys(line), line);
  }
});

test('anything unusual or wrong goes to the string parser (which words the error)', () => {
  const lines = [
    '<s> <http://a/p> "x" .', // relative IRI
    '<http://a/s> <http://a/p> "x"', // no dot
    '<http://a/s> <http://a/p> "x" . extra',
    '<http://a/s> <http://a/p> "unterminated .',
    '<http://a/s> <http://a/p> <http://a/o',
    '<http://a/s> <http://a/p> <http://a/o o> .',
    '<http://a/s <http://a/p> <http://a/o> .',
    '<http://a/s> <http://a/p> <http://a/"o> .',
    '<http://a/s> <http://a/p> <http://a/o> <g> .',
    '<http://a/s> <http://a/p> "x"@ .',
    '<http://a/s> <http://a/p> "x"@en- .',
    '<http://a/s> <http://a/p> "x"@en1 .',
    '<http://a/s> <http://a/p> "x"^<http://a/t> .',
    '"x" <http://a/p> <http://a/o> .',
    '<http://a/s> _:p <http://a/o> .',
    '_: <http://a/p> <http://a/o> .',
    '\uFEFF<http://a/s> <http://a/p> <http://a/o> .',
  ];
  for (const line of lines) {
    assert.equal(byteKeys(line), NEEDS_STRING_PARSER, line);
    assert.throws(() => stringKeys(line), Error, line);
  }
});

test('invalid UTF-8 goes to the string parser, whose decoding replaces it', () => {
  const line = Buffer.concat([Buffer.from('<http://a/s> <http://a/p> "bad '), Buffer.from([0xc3, 0x28]), Buffer.from('" .')]);
  assert.equal(byteKeys(line), NEEDS_STRING_PARSER);
  assert.deepEqual(stringKeys(line.toString('utf8')).slice(2, 3), ['"bad \uFFFD(']);
});

test('a blank node label may hold dots but not end with one', () => {
  assert.deepEqual(byteKeys('_:a.b.c <http://a/p> _:x.'), ['_f_a.b.c', '<http://a/p', '_f_x', 'D']);
  assert.deepEqual(byteKeys('_:a.b.c <http://a/p> _:x.'), stringKeys('_:a.b.c <http://a/p> _:x.'));
});

test('a long literal key is a slice of the line; a built key outlives the next line', () => {
  const long = 'word '.repeat(2000);
  const parser = new ByteLineParser(false, PREFIX);
  const first = Buffer.from(`<http://a/s> <http://a/p> "${long}"@en .`);
  assert.equal(parser.parse(first, 0, first.length), STATEMENT);
  assert.equal(Buffer.from(parser.object.bytes.subarray(parser.object.from, parser.object.to)).toString(), `@en"${long}`);
  const second = Buffer.from(`<http://a/s> <http://a/p> "${long}" .`);
  assert.equal(parser.parse(second, 0, second.length), STATEMENT);
  assert.equal(parser.object.bytes, second);
});

test('a line inside a larger buffer is read between its bounds only', () => {
  const bytes = Buffer.from('<http://a/x> <http://a/y> <http://a/z> .\n<http://a/s> <http://a/p> "v" .\n');
  const parser = new ByteLineParser(false, PREFIX);
  const start = bytes.indexOf(10) + 1;
  assert.equal(parser.parse(bytes, start, bytes.length - 1), STATEMENT);
  assert.equal(Buffer.from(parser.subject.bytes.subarray(parser.subject.from, parser.subject.to)).toString(), '<http://a/s');
  // Cut before the dot: not a statement.
  assert.equal(parser.parse(bytes, start, bytes.length - 3), NEEDS_STRING_PARSER);
  // An IRI cut by the line's end is not closed by a `>` on the next line.
  assert.equal(parser.parse(bytes, 0, 30), NEEDS_STRING_PARSER);
});

test('literals are read four bytes at a time: a quote, backslash or non-ASCII character at any offset is met', () => {
  for (let before = 0; before < 9; before++) {
    for (const special of ['ü', '😀', '\\"', '\\\\', '\\n']) {
      for (const after of [0, 1, 2, 3, 7]) {
        const line = `<http://a/s> <http://a/p> "${'a'.repeat(before)}${special}${'b'.repeat(after)}" .`;
        const keys = byteKeys(line);
        if (special.startsWith('\\')) assert.equal(keys, NEEDS_STRING_PARSER, line);
        else assert.deepEqual(keys, stringKeys(line), line);
      }
    }
    // A literal cut by the line's end is not closed by a quote past it.
    const bytes = Buffer.from(`<http://a/s> <http://a/p> "${'a'.repeat(before)}\n"x" .`);
    const parser = new ByteLineParser(false, PREFIX);
    assert.equal(parser.parse(bytes, 0, bytes.indexOf(10)), NEEDS_STRING_PARSER);
  }
});

/** The RDF 1.2 N-Triples and N-Quads syntax suites, where the shared test suites are present. */
const RDF12 = fileURLToPath(new URL('../../../../shared/rdf-tests/rdf/rdf12/', import.meta.url));
const RDF12_FOLDERS = ['rdf-n-triples/syntax', 'rdf-n-triples/c14n', 'rdf-n-quads/syntax', 'rdf-n-quads/c14n'];

test(
  'RDF 1.2 N-Triples and N-Quads: the bulk loader reads every valid document as N3.js does, and refuses every invalid one',
  { skip: !existsSync(RDF12) && 'test suites not found' },
  () => {
    let checked = 0;
    for (const folder of RDF12_FOLDERS) {
      const quads = folder.includes('n-quads');
      for (const name of readdirSync(join(RDF12, folder)).filter((file) => /\.n[tq]$/.test(file))) {
        const text = readFileSync(join(RDF12, folder, name), 'utf8');
        const negative = name.includes('bad');
        const lines = text.split('\n').filter((line) => line.trim() !== '');
        const ours = (): string[][] => {
          const parser = keyReader(quads);
          const keys: string[][] = [];
          for (const line of lines) {
            // Where the byte parser takes a line, it must give the string parser's keys.
            const fast = byteKeys(line, quads);
            parser.parseLine(line, (s, p, o, g) => keys.push([s, p, o, g]));
            if (typeof fast !== 'number') assert.deepEqual(fast, keys.at(-1), `${folder}/${name}: ${line}`);
          }
          return keys;
        };
        if (negative) {
          assert.throws(ours, RdfSyntaxError, `${folder}/${name} must be refused`);
        } else {
          const n3 = new Parser({ format: quads ? 'N-Quads' : 'N-Triples', factory, blankNodePrefix: PREFIX }).parse(text);
          assert.deepEqual(
            ours(),
            n3.map((q) => [q.subject, q.predicate, q.object, q.graph].map(termKey)),
            `${folder}/${name}`,
          );
        }
        checked++;
      }
    }
    assert.ok(checked > 100, `${checked} documents`);
  },
);
