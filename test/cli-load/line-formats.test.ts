/**
 * N-Triples / N-Quads into an empty persistent store: the load's byte-level reading (parse worker's
 * byte line parser, term table, keys sent as bytes with their hashes) against N3.js, on the cases
 * where bytes and strings part ways: lines across read chunks, escapes, non-ASCII text, CRLF,
 * comments, blank nodes, a last line without its line break.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Parser } from 'n3';
import { factory, termKey, type Term } from '../../src/rdf/terms.js';
import { openStore } from '../../src/store/lmdb-store.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { loadFile } from '../../src/loader/file-loader.js';
import { datasetRows, removeDirectory, temporaryDirectory } from './load-helpers.js';

/** A few MiB of N-Quads: the long literal spans several of the reader's 1 MiB chunks. */
function trickyNQuads(): string {
  const lines: string[] = ['# a comment line', ''];
  const kinds = [
    (i: number) => `<http://ex.org/s${i}> <http://ex.org/p> <http://ex.org/o${i % 7}> .`,
    (i: number) => `<http://ex.org/s${i}> <http://ex.org/label> "label ${i}"@EN-gb <http://ex.org/g${i % 3}> .`,
    (i: number) => `_:b${i % 5} <http://ex.org/p> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .\r`,
    (i: number) => `<http://ex.org/s${i}> <http://ex.org/p> "tab\\t \\"quoted\\" \\u00e9\\U0001F600 ${i}" _:g${i % 2} .`,
    (i: number) => `<http://ex.org/ünï/${i}> <http://ex.org/p> "ünïcødé 路径 😀 ${i}" . # trailing comment`,
    (i: number) => `<http://ex.org/s${i}> <http://ex.org/p> "plain ${i}"^^<http://www.w3.org/2001/XMLSchema#string> .`,
    (i: number) => `<http://ex.org/\\u0041${i}> <http://ex.org/p> _:b${i % 5} .`,
  ];
  for (let i = 0; i < 20_000; i++) lines.push(kinds[i % kinds.length](i));
  lines.push(`<http://ex.org/long> <http://ex.org/p> "${'a long literal é '.repeat(200_000)}" .`);
  for (let i = 0; i < 100; i++) lines.push(kinds[i % kinds.length](i + 100_000));
  lines.push(kinds[0](0)); // a duplicate
  return lines.join('\n'); // no line break after the last line
}

function referenceStore(text: string): QuadStore {
  const store = openStore({ memory: true });
  const quads = new Parser({ format: 'N-Quads', factory, blankNodePrefix: '' }).parse(text);
  store.write((w) => {
    for (const q of quads) w.add(w.intern(q.subject), w.intern(q.predicate), w.intern(q.object), w.intern(q.graph));
  });
  return store;
}

/**
 * The store's quads as sorted lines of term keys, blank nodes by their label in the file: the loader
 * prefixes labels with the file's label space (rdf/blank-node-scopes.ts: `f`, a per-process tag and
 * a number, then `_`).
 */
function canonicalQuads(store: QuadStore, loaded: boolean): string[] {
  const key = (term: Term | undefined): string => {
    if (term === undefined) return 'D';
    if (term.termType === 'BlankNode' && loaded) return '_' + term.value.replace(/^f[0-9a-z]+_/, '');
    return termKey(term);
  };
  return datasetRows(store)
    .map((row) => row.map(key).join(' '))
    .sort();
}

test('an N-Quads file (plain and gzip) loads into an empty store as N3.js reads it', async () => {
  const dir = temporaryDirectory();
  const text = trickyNQuads();
  const expected = referenceStore(text);
  try {
    writeFileSync(join(dir, 'data.nq'), text);
    writeFileSync(join(dir, 'data.nq.gz'), gzipSync(text));
    for (const [file, gzip] of [
      ['data.nq', false],
      ['data.nq.gz', true],
    ] as const) {
      const storeDir = join(dir, gzip ? 'store-gzip' : 'store-plain');
      const store = openStore({ path: storeDir });
      try {
        const result = await loadFile(store, { path: join(dir, file), format: 'nquads', gzip });
        assert.equal(result.statements, 20_000 + 1 + 100 + 1);
        assert.deepEqual(canonicalQuads(store, true), canonicalQuads(expected, false), `${file}: the loaded dataset differs`);
      } finally {
        await store.close();
      }
    }
  } finally {
    await expected.close();
    removeDirectory(dir);
  }
});
