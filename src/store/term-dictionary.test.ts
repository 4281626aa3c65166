import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blankNode, defaultGraph, literal, namedNode, typedLiteral, termKey, factory, type Term } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, FIRST_TERM_ID } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { HASHED_KEY_THRESHOLD } from './term-dictionary.js';

const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';

const everyKind: Term[] = [
  namedNode('http://example.org/a'),
  namedNode('http://example.org/ünïcødé/路径'),
  blankNode('b1'),
  literal(''),
  literal('plain'),
  literal('with "quotes" and\nnewlines\tand \u0000 NUL'),
  literal('chat', 'fr'),
  literal('colour', 'en-GB'),
  typedLiteral('1', XSD_INTEGER),
  typedLiteral('01', XSD_INTEGER),
  typedLiteral('2024-01-01', 'http://www.w3.org/2001/XMLSchema#date'),
  typedLiteral('true', 'http://www.w3.org/2001/XMLSchema#boolean'),
  literal('x'.repeat(HASHED_KEY_THRESHOLD - 2)),
  literal('x'.repeat(HASHED_KEY_THRESHOLD + 1)),
  literal('é'.repeat(200)),
  literal('a long literal '.repeat(1000)),
  literal('a long literal '.repeat(1000) + '!'),
  literal('a long literal '.repeat(1000), 'en'),
  namedNode('http://example.org/' + 'long/'.repeat(1000)),
];

test('every kind of term gets an ID and comes back equal', async () => {
  const store = openStore({ memory: true });
  const ids = store.write((w) => everyKind.map((t) => w.intern(t)));
  assert.equal(new Set(ids).size, everyKind.length, 'distinct terms get distinct IDs');
  for (const id of ids) assert.ok(id >= FIRST_TERM_ID);
  const reader = store.reader();
  everyKind.forEach((term, i) => {
    assert.ok(reader.termOf(ids[i]).equals(term), `termOf ${termKey(term).slice(0, 40)}`);
    assert.equal(reader.idOf(term), ids[i], `idOf ${termKey(term).slice(0, 40)}`);
  });
  reader.release();
  await store.close();
});

test('interning is idempotent, within and across transactions', async () => {
  const store = openStore({ memory: true });
  const first = store.write((w) => everyKind.map((t) => [w.intern(t), w.intern(t)]));
  for (const [a, b] of first) assert.equal(a, b);
  const second = store.write((w) => everyKind.map((t) => w.intern(t)));
  assert.deepEqual(second, first.map(([a]) => a));
  assert.equal(store.write((w) => w.statistics().termCount), everyKind.length);
  await store.close();
});

test('"01" and "1" as xsd:integer are different terms', async () => {
  const store = openStore({ memory: true });
  const [one, zeroOne] = store.write((w) => [w.intern(typedLiteral('1', XSD_INTEGER)), w.intern(typedLiteral('01', XSD_INTEGER))]);
  assert.notEqual(one, zeroOne);
  const reader = store.reader();
  assert.equal(reader.termOf(zeroOne).value, '01');
  assert.equal(reader.idOf(typedLiteral('1', XSD_INTEGER)), one);
  reader.release();
  await store.close();
});

test('the default graph is DEFAULT_GRAPH_ID, unknown terms and IDs are reported', async () => {
  const store = openStore({ memory: true });
  store.write((w) => assert.equal(w.intern(defaultGraph()), DEFAULT_GRAPH_ID));
  const reader = store.reader();
  assert.equal(reader.idOf(defaultGraph()), DEFAULT_GRAPH_ID);
  assert.ok(reader.termOf(DEFAULT_GRAPH_ID).equals(defaultGraph()));
  assert.equal(reader.idOf(namedNode('http://example.org/never')), undefined);
  assert.equal(reader.idOf(literal('a long literal '.repeat(999))), undefined, 'a hash miss');
  assert.throws(() => reader.termOf(123456), RangeError);
  assert.throws(() => reader.idOf(factory.variable('x')), TypeError);
  reader.release();
  await store.close();
});

test('the dictionary survives a reopen', async () => {
  const path = mkdtempSync(join(tmpdir(), 'quiver-dictionary-test-'));
  try {
    let store = openStore({ path });
    const ids = store.write((w) => everyKind.map((t) => w.intern(t)));
    await store.close();
    store = openStore({ path });
    const reader = store.reader();
    everyKind.forEach((term, i) => {
      assert.equal(reader.idOf(term), ids[i]);
      assert.ok(reader.termOf(ids[i]).equals(term));
    });
    reader.release();
    const next = store.write((w) => w.intern(namedNode('http://example.org/new')));
    assert.equal(next, Math.max(...ids) + 1, 'IDs continue where they stopped');
    await store.close();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});
