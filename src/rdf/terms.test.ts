import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  blankNode,
  compareTripleTerms,
  directionalLiteral,
  literal,
  namedNode,
  orderRank,
  termFromKey,
  termKey,
  termToString,
  termsEqual,
  tripleTerm,
  typedLiteral,
  type Term,
} from './terms.js';
import { xsd } from './vocabulary.js';

const s = namedNode('urn:s');
const p = namedNode('urn:p');

test('RDF 1.1 keys are what stores written before RDF 1.2 hold', () => {
  assert.equal(termKey(namedNode('urn:a')), '<urn:a');
  assert.equal(termKey(blankNode('b0')), '_b0');
  assert.equal(termKey(literal('x')), '"x');
  assert.equal(termKey(literal('x', 'en')), '@en"x');
  assert.equal(termKey(typedLiteral('1', xsd.integer)), `^${xsd.integer}"1`);
});

test('a directional literal has its own key, distinct from the plain language-tagged one', () => {
  const rtl = directionalLiteral('abc', 'ar', 'rtl');
  assert.equal(rtl.datatype.value, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString');
  assert.equal(termKey(rtl), '/ar--rtl"abc');
  assert.notEqual(termKey(rtl), termKey(directionalLiteral('abc', 'ar', 'ltr')));
  assert.notEqual(termKey(rtl), termKey(literal('abc', 'ar')));
  const back = termFromKey(termKey(rtl));
  assert.ok(back.termType === 'Literal' && back.direction === 'rtl' && back.language === 'ar' && back.value === 'abc');
  assert.equal(termToString(rtl), '"abc"@ar--rtl');
});

test('a triple term key is unambiguous whatever its parts hold, and reads back', () => {
  const awkward = tripleTerm(namedNode('urn:s:5:<x'), p, literal('"5:[<'));
  const nested = tripleTerm(blankNode('b'), p, tripleTerm(s, p, directionalLiteral('x', 'he', 'rtl')));
  for (const term of [tripleTerm(s, p, literal('o')), awkward, nested]) {
    const back = termFromKey(termKey(term));
    assert.ok(termsEqual(back, term), termToString(term));
    assert.equal(termKey(back), termKey(term));
  }
  assert.equal(termKey(tripleTerm(s, p, literal('o'))), '[6:<urn:s6:<urn:p"o');
  assert.notEqual(termKey(tripleTerm(s, p, tripleTerm(s, p, s))), termKey(tripleTerm(s, p, s)));
  assert.equal(termToString(nested), '<<( _:b <urn:p> <<( <urn:s> <urn:p> "x"@he--rtl )>> )>>');
});

test('term equality looks at direction and into triple terms', () => {
  assert.ok(termsEqual(tripleTerm(s, p, literal('o')), tripleTerm(namedNode('urn:s'), namedNode('urn:p'), literal('o'))));
  assert.ok(!termsEqual(tripleTerm(s, p, literal('o')), tripleTerm(s, p, literal('o', 'en'))));
  assert.ok(!termsEqual(directionalLiteral('a', 'en', 'ltr'), literal('a', 'en')));
  assert.ok(!termsEqual(tripleTerm(s, p, s), s));
});

test('ORDER BY ranks triple terms after literals and orders them by their parts', () => {
  const kinds: (Term | undefined)[] = [tripleTerm(s, p, s), literal('a'), namedNode('urn:a'), blankNode('b'), undefined];
  assert.deepEqual(kinds.map(orderRank), [4, 3, 2, 1, 0]);
  const byValue = (x: Term, y: Term): number => (termKey(x) < termKey(y) ? -1 : termKey(x) > termKey(y) ? 1 : 0);
  assert.ok(compareTripleTerms(tripleTerm(s, namedNode('urn:a'), s), tripleTerm(s, p, s), byValue) < 0);
  assert.equal(compareTripleTerms(tripleTerm(s, p, s), tripleTerm(s, p, s), byValue), 0);
});
