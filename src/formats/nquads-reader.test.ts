import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_GRAPH_KEY, NQuadsReader, TERM_KEYS } from './nquads-reader.js';
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
