import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurtleStatementSplitter } from './lenient-turtle.js';

const TEXT = [
  '@prefix ex: <http://example.org/> .',
  'ex:a ex:p "a. b", 1.5 ; # a comment. with dots',
  '   ex:q [ ex:r "x" ] .',
  'PREFIX ex2: <http://example.org/2/>',
  'ex2:f ex:p """long',
  'text . with a dot""" .',
  'ex:g { ex:h ex:p ex:i . ex:j ex:p ex:k }',
  'ex:last ex:p ex:end .',
].join('\n');

function split(text: string, step: number): { text: string; line: number }[] {
  const splitter = new TurtleStatementSplitter();
  const out = [];
  for (let i = 0; i < text.length; i += step) out.push(...splitter.push(text.slice(i, i + step)));
  out.push(...splitter.end());
  return out;
}

test('top-level statements, whatever the chunk boundaries, each with its first line', () => {
  const expected = split(TEXT, TEXT.length);
  assert.deepEqual(
    expected.map((s) => s.line),
    [1, 2, 4, 5, 7, 8],
  );
  assert.match(expected[1]!.text, /^ex:a .*\n.*ex:q \[ ex:r "x" \] \.$/);
  assert.equal(expected[2]!.text, 'PREFIX ex2: <http://example.org/2/>');
  for (const step of [1, 2, 3, 7, 64]) assert.deepEqual(split(TEXT, step), expected, `chunks of ${step}`);
});

test('a short string cannot span lines: an unterminated one ends at the line break', () => {
  const statements = split('ex:a ex:p "open .\nex:b ex:p ex:c .\nex:d ex:p ex:e .\n', 5);
  assert.deepEqual(
    statements.map((s) => s.line),
    [1, 3],
  );
});
