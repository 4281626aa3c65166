import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, parseCostBytes, PARSE_BYTES_PER_TOKEN } from './parse-cost.js';

test('tokens are counted roughly, erring high: words, and brackets and separators on their own', () => {
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('SELECT * WHERE { ?s ?p ?o }'), 8);
  assert.equal(countTokens('VALUES ?x {1 2 3}'), 7);
  assert.equal(countTokens('(?a,?b);'), 6);
  assert.equal(countTokens('"two words"'), 2, 'a literal with a space counts as two');
  assert.equal(countTokens('<http://example.org/a.b>'), 1);
});

test('a text of short tokens costs more per character than one of long tokens', () => {
  const digits = Array.from({ length: 10_000 }, (_, i) => String(i % 10)).join(' ');
  const iris = Array.from({ length: 1000 }, (_, i) => `<http://example.org/resource/${i}>`).join(' ');
  assert.ok(parseCostBytes(digits) / digits.length > 400);
  assert.ok(parseCostBytes(iris) / iris.length < 60);
  assert.ok(parseCostBytes(digits) >= 10_000 * PARSE_BYTES_PER_TOKEN);
});
