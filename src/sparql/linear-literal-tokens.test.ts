import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from './parse.js';
import type { Algebra } from './parse.js';

/** The value of ?v in `SELECT * { BIND(<literal> AS ?v) }`. */
function boundLiteral(literal: string): string {
  const extend = (parseQuery(`SELECT * { BIND(${literal} AS ?v) }`).algebra as Algebra.Project).input as Algebra.Extend;
  return (extend.expression as Algebra.TermExpression).term.value;
}

describe('long string literals', () => {
  test('a million-character long literal parses (it used to overflow the regex stack)', () => {
    assert.equal(boundLiteral(`"""${'x'.repeat(1_000_000)}"""`).length, 1_000_000);
    assert.equal(boundLiteral(`'''${"'x".repeat(500_000)}'''`).length, 1_000_000);
  });

  test('one or two quotes inside, escapes and codepoint escapes keep their meaning', () => {
    assert.equal(boundLiteral(`"""a""b"c"""`), 'a""b"c');
    assert.equal(boundLiteral(`'''it''s'''`), "it''s");
    assert.equal(boundLiteral(String.raw`"""tab\there \u00E9 \U0001F600 \""""`), 'tab\there é 😀 "');
  });
});
