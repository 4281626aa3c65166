import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blankNode, defaultGraph, literal, namedNode, typedLiteral, termKey, factory, type Term } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, FIRST_TERM_ID } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import { HASHED_KEY_THRESHOLD } from './term-dictionary.js';
import { hashTermKeyBytes } from './term-hash.js';
import type { LmdbStoreWriter } from './lmdb-writer.js';
import { prefixEntryCount } from './fixtures/sample-quads.js';

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
  assert.deepEqual(
    second,
    first.map(([a]) => a),
  );
  assert.equal(
    store.write((w) => w.statistics().termCount),
    everyKind.length + prefixEntryCount(store),
  );
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

/** The bulk loader's way in: keys as UTF-8 bytes with their dictionary hash (as the parse worker sends them). */
function keyBytesOf(term: Term): [Uint8Array, number, number] {
  const bytes = new TextEncoder().encode(termKey(term));
  const hash = new Uint32Array(2);
  hashTermKeyBytes(bytes, 0, bytes.length, hash);
  return [bytes, hash[0], hash[1]];
}

test('keys given as bytes are found whether their hash entry is held back or written, and are the terms of intern', async () => {
  const store = openStore({ memory: true });
  try {
    const [first, second] = [everyKind.slice(0, 10), everyKind.slice(5)];
    const firstIds = store.write((w) => {
      const writer = w as LmdbStoreWriter;
      const ids = first.map((t) => writer.internKeyBytes(...keyBytesOf(t)));
      // Held back (not written yet): found again without a look-up that writes them out first.
      assert.deepEqual(
        first.map((t) => writer.internKeyBytes(...keyBytesOf(t))),
        ids,
      );
      return ids;
    });
    assert.equal(new Set(firstIds).size, first.length);
    store.write((w) => {
      const writer = w as LmdbStoreWriter;
      const ids = second.map((t) => writer.internKeyBytes(...keyBytesOf(t)));
      assert.deepEqual(ids.slice(0, 5), firstIds.slice(5));
      // The same IDs as the term-object path, for old and new terms alike.
      assert.deepEqual(
        second.map((t) => w.intern(t)),
        ids,
      );
    });
    assert.equal(
      store.write((w) => w.statistics().termCount),
      everyKind.length + prefixEntryCount(store),
    );
    assert.deepEqual(
      everyKind.map((t) => store.reader().termOf(store.reader().idOf(t)!)),
      everyKind,
    );
  } finally {
    await store.close();
  }
});

test('different keys under one hash get different IDs, held back or written', async () => {
  const store = openStore({ memory: true });
  try {
    const encode = (key: string) => new TextEncoder().encode(key);
    const [a, b, c] = store.write((w) => {
      const writer = w as LmdbStoreWriter;
      return ['<http://example.org/a', '<http://example.org/b', '"c'].map((key) => writer.internKeyBytes(encode(key), 7, 7));
    });
    assert.equal(new Set([a, b, c]).size, 3);
    store.write((w) => {
      const writer = w as LmdbStoreWriter;
      assert.deepEqual(
        ['"c', '<http://example.org/b', '<http://example.org/a'].map((key) => writer.internKeyBytes(encode(key), 7, 7)),
        [c, b, a],
      );
      assert.notEqual(writer.internKeyBytes(encode('"d'), 7, 7), a);
    });
  } finally {
    await store.close();
  }
});

test('held-back term hashes are written in hash order, collisions and words past 2^31 included', async () => {
  const store = openStore({ memory: true });
  // Hashes as the load's parse worker would send them (made up here): a full collision, a tie on the
  // high word, words with the top bit set, in no particular order. Plain literals, which share no
  // prefix: a shared prefix's entry would come with a hash of its own.
  const hashes: [number, number][] = [
    [0x80000001, 7],
    [5, 1],
    [0xfffffffe, 3],
    [5, 1],
    [5, 0],
    [0x7fffffff, 0xffffffff],
    [5, 2],
    [0, 0],
  ];
  const ids = store.write((w) => {
    const writer = w as LmdbStoreWriter;
    return hashes.map(([high, low], i) => writer.internNewKeyBytes(Buffer.from(`"t${i}`), high, low));
  });
  const stored: [string, number][] = [];
  const termToId = (store as unknown as { context: { dbs: { termToId: { getRange(o: object): Iterable<{ key: Buffer; value: Uint8Array }> } } } }).context.dbs
    .termToId;
  for (const { key, value } of termToId.getRange({})) stored.push([key.toString('hex'), Buffer.from(value).readUInt32BE(0)]);
  const hex = ([high, low]: [number, number]) => high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
  const expected = hashes.map((hash, i) => [hex(hash), ids[i]] as [string, number]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  assert.deepEqual(stored, expected);
  await store.close();
});
