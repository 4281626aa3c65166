import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { blankNode, directionalLiteral, literal, namedNode, termKey, termToString, termsEqual, tripleTerm, typedLiteral, type Term } from '../rdf/terms.js';
import { xsd } from '../rdf/vocabulary.js';
import { checkStoreConsistency } from './consistency-check.js';
import { openStore } from './lmdb-store.js';
import { ANY, DEFAULT_GRAPH_ID, type QuadStore } from './quad-store.js';
import { FORMAT_VERSION, META, decodeCount } from './statistics.js';

const ex = (name: string) => namedNode(`http://example.org/${name}`);
/**
 * A store written by the code before RDF 1.2 (format 2, commit c50fc63): `quiver load` of
 *   ex:s ex:p "plain", "tagged"@en, "1"^^xsd:integer, _:b1, ex:o .  GRAPH ex:g { ex:s ex:q "in a graph"@en-GB }
 * Its data.mdb, gzipped.
 */
const OLD_STORE = fileURLToPath(new URL('../../../src/store/fixtures/store-format-2.mdb.gz', import.meta.url));

function objectsOf(store: QuadStore, subject: Term, g = DEFAULT_GRAPH_ID): string[] {
  const reader = store.reader();
  try {
    const s = reader.idOf(subject);
    if (s === undefined) return [];
    const objects: string[] = [];
    // Scans reuse one array: read each quad as it comes.
    for (const [, , o] of reader.scan(s, ANY, ANY, g)) objects.push(termToString(reader.termOf(o)));
    return objects.sort();
  } finally {
    reader.release();
  }
}

test('a store written before RDF 1.2 opens, reads the same, and takes triple terms', async () => {
  const path = mkdtempSync(join(tmpdir(), 'quiver-rdf12-'));
  try {
    writeFileSync(join(path, 'data.mdb'), gunzipSync(readFileSync(OLD_STORE)));
    let store = openStore({ path });
    const before = objectsOf(store, ex('s'));
    assert.equal(before.length, 5);
    assert.ok(before.includes('"tagged"@en') && before.includes('"1"^^<http://www.w3.org/2001/XMLSchema#integer>'), before.join(' '));
    assert.deepEqual(
      objectsOf(
        store,
        ex('s'),
        store.write((w) => w.intern(ex('g'))),
      ),
      ['"in a graph"@en-gb'],
    );

    const reified = tripleTerm(ex('s'), ex('p'), literal('tagged', 'en'));
    store.write((w) => {
      w.add(w.intern(ex('r')), w.intern(namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies')), w.intern(reified), DEFAULT_GRAPH_ID);
      w.add(w.intern(ex('r')), w.intern(ex('says')), w.intern(directionalLiteral('مرحبا', 'ar', 'rtl')), DEFAULT_GRAPH_ID);
    });
    await store.close();

    store = openStore({ path });
    const meta = (store as unknown as { context: { dbs: { meta: { getBinaryFast(key: string): Buffer | undefined } } } }).context.dbs.meta;
    assert.equal(decodeCount(meta.getBinaryFast(META.formatVersion)!), FORMAT_VERSION, 'marked with the format it may now hold');
    assert.deepEqual(objectsOf(store, ex('r')), ['"مرحبا"@ar--rtl', '<<( <http://example.org/s> <http://example.org/p> "tagged"@en )>>']);
    assert.deepEqual(objectsOf(store, ex('s')), before, 'the old quads are untouched');
    await store.close();
    assert.deepEqual((await checkStoreConsistency(path)).problems, []);
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('triple terms and directional literals get IDs, are found by them, and read back equal', async () => {
  const store = openStore({ memory: true });
  try {
    const inner = tripleTerm(blankNode('b'), ex('p'), typedLiteral('1', xsd.integer));
    const terms: Term[] = [
      inner,
      tripleTerm(ex('s'), ex('p'), inner),
      directionalLiteral('abc', 'en', 'ltr'),
      directionalLiteral('abc', 'en', 'rtl'),
      literal('abc', 'en'),
    ];
    const ids = store.write((w) => {
      const s = w.intern(ex('s')),
        p = w.intern(ex('p'));
      const ids = terms.map((term) => w.intern(term));
      for (const id of ids) w.add(s, p, id, DEFAULT_GRAPH_ID);
      return ids;
    });
    assert.equal(new Set(ids).size, terms.length, 'each is a term of its own');
    const reader = store.reader();
    try {
      terms.forEach((term, i) => {
        assert.equal(reader.idOf(term), ids[i], termToString(term));
        assert.ok(termsEqual(reader.termOf(ids[i]), term), termKey(term));
        assert.equal(reader.count(ANY, ANY, ids[i], DEFAULT_GRAPH_ID), 1, 'indexed by object');
      });
      assert.equal(reader.idOf(tripleTerm(ex('s'), ex('p'), ex('never'))), undefined);
      assert.equal(reader.statistics().distinctObjects, terms.length);
    } finally {
      reader.release();
    }
  } finally {
    await store.close();
  }
});
