import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { literal, namedNode, typedLiteral, termKey, tripleTerm, type Term } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID } from './quad-store.js';
import { openStore } from './lmdb-store.js';
import type { QuadStore as LmdbStore } from './quad-store.js';
import type { LmdbStoreWriter } from './lmdb-writer.js';
import { checkStoreConsistency } from './consistency-check.js';
import { hashTermKeyBytes } from './term-hash.js';
import { PREFIX_ENTRY, PREFIXED_TERM, PrefixTable, prefixEnd } from './term-prefixes.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const XSD_DATE = 'http://www.w3.org/2001/XMLSchema#date';

test('the shareable prefix: an IRI up to its last slash or hash, a typed literal up to its quote', () => {
  const end = (key: string) => new TextDecoder().decode(utf8(key).subarray(0, prefixEnd(utf8(key))));
  assert.equal(end('<http://example.org/things/thing1'), '<http://example.org/things/');
  assert.equal(end('<http://example.org/vocab#label'), '<http://example.org/vocab#');
  assert.equal(end('<http://example.org/a#b/c'), '<http://example.org/a#b/');
  assert.equal(end('<http://example.org/dir/'), '<http://example.org/dir/', 'all of it, the rest empty');
  assert.equal(end(`^${XSD_DATE}"2008-01-01`), `^${XSD_DATE}"`);
  assert.equal(end('<http://ex.org/s'), '', 'too short to be worth an entry');
  assert.equal(end('<urn:isbn:0451450523'), '', 'no slash');
  for (const other of [
    '"a/b/c/d/e/f/g/h/i/j/k',
    '@en"http://example.org/x/y',
    '_b0/x/y/z/u/v/w/q/r',
    termKey(tripleTerm(namedNode('http://example.org/s/1'), namedNode('http://example.org/p/1'), literal('o'))),
    'D',
  ]) {
    assert.equal(end(other), '', `${other}: not an IRI or typed literal`);
  }
  assert.equal(end('<http://example.org/ä/é/x'), '<http://example.org/ä/é/', 'multi-byte characters before the slash');
});

test('a prefix table finds what it was given, across growth, and refuses past its limits only', () => {
  const table = new PrefixTable();
  const keys = Array.from({ length: 20_000 }, (_, i) => utf8(`<http://example.org/ns${i}/`));
  keys.forEach((key, i) => {
    assert.equal(table.find(key, key.length), -1);
    assert.ok(table.add(key, key.length, i + 1));
  });
  keys.forEach((key, i) => assert.equal(table.valueOf(table.find(key, key.length)), i + 1));
  const longer = utf8('<http://example.org/ns7/more');
  assert.equal(table.valueOf(table.find(longer, keys[7].length)), 8, 'a key found by its first `end` bytes');
  assert.equal(table.find(longer, longer.length), -1);
});

/** The raw id -> term values of a store, by ID. */
function storedValues(store: LmdbStore): Map<number, Uint8Array> {
  const dbs = (store as unknown as { context: { dbs: { idToTerm: { getRange(o: object): Iterable<{ key: number; value: Uint8Array }> } } } }).context.dbs;
  return new Map([...dbs.idToTerm.getRange({})].map(({ key, value }) => [key, Buffer.from(value)]));
}

const products = Array.from({ length: 30 }, (_, i) => namedNode(`http://example.org/products/product${i}`));
const dates = Array.from({ length: 30 }, (_, i) => typedLiteral(`2008-01-${String(i + 1).padStart(2, '0')}`, XSD_DATE));
const loners = [namedNode('http://example.org/alone/one'), namedNode('http://example.org/ünïcode/ß'), namedNode('http://example.org/ünïcode/ẞ')];

/** Each term's ID in a store, and back, through a fresh reader. */
function assertRoundTrip(store: LmdbStore, terms: Term[], ids: number[]): void {
  const reader = store.reader();
  terms.forEach((term, i) => {
    assert.ok(reader.termOf(ids[i]).equals(term), `termOf ${term.value}`);
    assert.equal(reader.idOf(term), ids[i], `idOf ${term.value}`);
  });
  reader.release();
}

for (const way of ['intern', 'bytes'] as const) {
  test(`terms that share a prefix store it once, and come back whole (${way})`, async () => {
    const path = mkdtempSync(join(tmpdir(), 'quiver-prefixes-'));
    try {
      const terms = [...products, ...dates, ...loners];
      const internAll = (store: LmdbStore, all: Term[]) =>
        store.write((w) =>
          all.map((term) => {
            if (way === 'intern') return w.intern(term);
            const bytes = utf8(termKey(term));
            const hash = new Uint32Array(2);
            hashTermKeyBytes(bytes, 0, bytes.length, hash);
            return (w as LmdbStoreWriter).internKeyBytes(bytes, hash[0], hash[1]);
          }),
        );
      let store = openStore({ path });
      const ids = internAll(store, terms);
      store.write((w) => {
        const related = w.intern(namedNode('http://example.org/vocab#related'));
        ids.forEach((id, i) => w.add(ids[i % 30], related, id, DEFAULT_GRAPH_ID));
      });
      assertRoundTrip(store, terms, ids);
      const values = storedValues(store);
      const entries = [...values.values()].filter((value) => value[0] === PREFIX_ENTRY).map((value) => Buffer.from(value.subarray(1)).toString('utf8'));
      assert.deepEqual(entries.sort(), ['<http://example.org/products/', '<http://example.org/ünïcode/', `^${XSD_DATE}"`].sort());
      assert.equal(values.get(ids[0])![0], 0x3c, 'the first term of a prefix is stored whole');
      for (const id of [...ids.slice(1, 30), ...ids.slice(31, 60)]) assert.equal(values.get(id)![0], PREFIXED_TERM);
      assert.equal(values.get(ids[60])![0], 0x3c, 'a prefix met once is no entry');
      await store.close();

      // Reopened: the entries are found again, not made twice; new terms use them at once.
      store = openStore({ path });
      assertRoundTrip(store, terms, ids);
      const more = [namedNode('http://example.org/products/product-new'), typedLiteral('2009-12-31', XSD_DATE), namedNode('http://example.org/alone/two')];
      const moreIds = internAll(store, [...more, ...terms]);
      assert.deepEqual(moreIds.slice(3), ids, 'known terms keep their IDs');
      const after = storedValues(store);
      assert.equal(after.get(moreIds[0])![0], PREFIXED_TERM);
      assert.equal(after.get(moreIds[1])![0], PREFIXED_TERM);
      assert.equal(after.get(moreIds[2])![0], 0x3c, 'met once in each of two transactions: still whole');
      assert.equal([...after.values()].filter((value) => value[0] === PREFIX_ENTRY).length, 3);
      assertRoundTrip(store, [...more, ...terms], moreIds);
      await store.close();
      assert.deepEqual((await checkStoreConsistency(path)).problems, []);
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  });
}

test('a prefix made by a transaction that fails is gone, and its ID goes to another term', async () => {
  const store = openStore({ memory: true });
  const failure = new Error('changed my mind');
  assert.throws(
    () =>
      store.write((w) => {
        for (const product of products) w.intern(product);
        throw failure;
      }),
    failure,
  );
  const others = Array.from({ length: 5 }, (_, i) => namedNode(`http://example.org/others/other${i}`));
  const ids = store.write((w) => [...others, ...products].map((term) => w.intern(term)));
  assertRoundTrip(store, [...others, ...products], ids);
  await store.close();
});
