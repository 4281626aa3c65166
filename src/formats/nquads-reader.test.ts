import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultGraph, termKey, type Term } from '../rdf/index.js';
import { DEFAULT_GRAPH_KEY, NQuadsReader, RdfTermBuilder, TERM_KEYS } from './nquads-reader.js';
import { RdfSyntaxError } from './rdf-syntax-error.js';

/** A reader of term keys, as the bulk loader uses it. */
function keyReader(quads: boolean): NQuadsReader<string> {
  return new NQuadsReader(TERM_KEYS, { quads, blankPrefix: 'f_', defaultGraph: DEFAULT_GRAPH_KEY });
}

function parse(line: string, quads = true): string[] {
  const out: string[] = [];
  keyReader(quads).parseLine(line, (s, p, o, g) => out.push(s, p, o, g));
  return out;
}

test('statements become canonical term keys; blank nodes get the file prefix', () => {
  assert.deepEqual(parse('<http://a/s> <http://a/p> "x"@EN-gb <http://a/g> .'), ['<http://a/s', '<http://a/p', '@en-gb"x', '<http://a/g']);
  assert.deepEqual(parse('_:b1 <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .'), [
    '_f_b1',
    '<http://a/p',
    '^http://www.w3.org/2001/XMLSchema#integer"1',
    'D',
  ]);
  assert.deepEqual(parse('<http://a/s> <http://a/p> "s"^^<http://www.w3.org/2001/XMLSchema#string> . # comment'), ['<http://a/s', '<http://a/p', '"s', 'D']);
  assert.deepEqual(parse('   # only a comment'), []);
});

test('escapes are resolved in literals and IRIs', () => {
  assert.deepEqual(parse('<http://a/\\u00e9> <http://a/p> "tab\\there \\"q\\" \\\\ \\U0001F600" .').slice(0, 3), [
    '<http://a/é',
    '<http://a/p',
    '"tab\there "q" \\ 😀',
  ]);
});

test('errors carry line and column; N-Triples refuses a graph term', () => {
  const parser = keyReader(false);
  parser.parseLine('<http://a/s> <http://a/p> <http://a/o> .', () => undefined);
  assert.throws(
    () => parser.parseLine('<http://a/s> <http://a/p> <http://a/o> <http://a/g> .', () => undefined),
    (error: unknown) => error instanceof RdfSyntaxError && error.line === 2 && error.column === 40,
  );
  assert.throws(() => parse('<s> <http://a/p> "x" .'), /relative IRI/);
  assert.throws(() => parse('<http://a/s> <http://a/p> "x" ', false), /expected '\.'/);
});

/** Every term of a line both ways: the RDF/JS terms' keys (termKey) must be the keys. */
function bothWays(line: string, quads = true): { keys: string[]; terms: string[] } {
  const keys = parse(line, quads);
  const terms: string[] = [];
  new NQuadsReader<Term>(new RdfTermBuilder(), { quads, blankPrefix: 'f_', defaultGraph: defaultGraph() }).parseLine(line, (s, p, o, g) =>
    terms.push(...[s, p, o, g].map(termKey)),
  );
  return { keys, terms };
}

test('RDF/JS terms and term keys are the same reading of every kind of term', () => {
  const lines = [
    '<http://a/s> <http://a/p> <http://a/o> <http://a/g> .',
    '_:b1 <http://a/p> "plain" _:g .',
    '<http://a/s> <http://a/p> "x"@EN-gb .',
    '<http://a/s> <http://a/p> "x"@ar--rtl .',
    '<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
    '<http://a/s> <http://a/p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .',
    '<http://a/s> <http://a/p> "s"^^<http://www.w3.org/2001/XMLSchema#string> .',
    '<http://a/\\u00e9> <http://a/p> "tab\\t \\u00e9 \\U0001F600" .',
    '<http://a/s> <http://a/p> <<( _:x <http://a/q> <<( <http://a/s2> <http://a/r> "v"@en--ltr )>> )>> .',
  ];
  for (const line of lines) {
    const { keys, terms } = bothWays(line);
    assert.deepEqual(terms, keys, line);
  }
});

test('VERSION directives: the versions N-Triples 1.2 names are read past, others refused', () => {
  for (const line of ['VERSION "1.2"', 'VERSION "1.1"', 'VERSION "1.2-basic" # a comment', '  VERSION\t"1.2"  ']) assert.deepEqual(parse(line), [], line);
  assert.throws(() => parse('VERSION "2.0"'), /unsupported version "2\.0" \(line 1, column 9\)/);
  for (const line of ["VERSION '1.2'", 'VERSION 1.2', 'version "1.2"', 'VERSION "1.2" .', 'VERSIONS "1.2"']) {
    assert.throws(() => parse(line), RdfSyntaxError, line);
  }
});

test('a carriage return ends a statement as a line feed does; two statements on one line otherwise are refused', () => {
  assert.deepEqual(parse('<http://a/s> <http://a/p> "1" .\r<http://a/s> <http://a/p> "2" .\r'), [
    '<http://a/s',
    '<http://a/p',
    '"1',
    'D',
    '<http://a/s',
    '<http://a/p',
    '"2',
    'D',
  ]);
  assert.throws(() => parse('<http://a/s> <http://a/p> "1" . <http://a/s> <http://a/p> "2" .'), /unexpected text after the statement \(line 1, column 33\)/);
  // A statement does not go on past its line.
  assert.throws(() => parse('<http://a/s> <http://a/p>'), /expected an IRI, a blank node or a literal as object/);
});

test('blank node labels follow the grammar: letters, digits, _ and : anywhere, - . and combining marks inside', () => {
  for (const label of ['b1', '1b', '_x', 'a:b', 'a-b', 'a.b', 'a.b.c', 'é', 'a\u00b7b', 'a\u0301', '日本', '𝔸']) {
    assert.deepEqual(parse(`_:${label} <http://a/p> "x" .`).slice(0, 1), [`_f_${label}`], label);
  }
  for (const label of ['', '-a', '.a', 'a!b', 'a×b', '\u0301a', 'a,b']) {
    assert.throws(() => parse(`_:${label} <http://a/p> "x" .`), RdfSyntaxError, label);
  }
});

test('language tags: subtags of at most 8 characters, a base direction of ltr or rtl', () => {
  assert.deepEqual(parse('<http://a/s> <http://a/p> "x"@abcdefgh-12345678 .').slice(2, 3), ['@abcdefgh-12345678"x']);
  for (const tag of ['abcdefghi', 'en-123456789', 'en--LTR', 'en--up', 'en--', 'en-']) {
    assert.throws(() => parse(`<http://a/s> <http://a/p> "x"@${tag} .`), /invalid language tag/, tag);
  }
});

test('skipInvalidIri: a statement with an invalid IRI is left out and reported with its line; other errors still throw', () => {
  const skipped: string[] = [];
  const reader = new NQuadsReader(TERM_KEYS, {
    quads: true,
    blankPrefix: 'f_',
    defaultGraph: DEFAULT_GRAPH_KEY,
    skipInvalidIri: (error) => skipped.push(error.message),
  });
  const out: string[] = [];
  const sink = (s: string): number => out.push(s);
  reader.parseLine('<http://a/s> <http://a/p> "1" .', sink);
  reader.parseLine('<http://a/s> <http://a/p> "2"^^<http://a/t#1#2> .', sink);
  reader.parseLine('<http://a/s> <http://a/p> <<( <http://a/s> <http://a/p%zz> "x" )>> .', sink);
  reader.parseLine('<http://a/s2> <http://a/p> "3" .', sink);
  assert.deepEqual(out, ['<http://a/s', '<http://a/s2']);
  assert.equal(skipped.length, 2);
  assert.match(skipped[0]!, /^invalid IRI <http:\/\/a\/t#1#2>: .*\(line 2\)$/);
  assert.match(skipped[1]!, /\(line 3\)$/);
  assert.throws(() => reader.parseLine('<http://a/s> <http://a/p> "4"', sink), /expected an IRI or a blank node as graph label \(line 5, column 30\)/);
});
