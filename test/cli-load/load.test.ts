import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseRdf, rdfFormatForFileName } from '../../src/formats/rdf-parser.js';
import { namedNode, type Quad } from '../../src/rdf/terms.js';
import { openStore } from '../../src/store/lmdb-store.js';
import { ANY, DEFAULT_GRAPH_ID, type QuadStore } from '../../src/store/quad-store.js';
import { loadFile, LoadSyntaxError } from '../../src/loader/file-loader.js';
import { datasetRows, fixture, removeDirectory, runCli, sameDataset, temporaryDirectory, withStore } from './load-helpers.js';

const FORMAT_FIXTURES = ['people.ttl', 'people.trig', 'people.nt', 'people.nq', 'people.rdf', 'people.jsonld'];

/** The reference: the file read by the general parsers and added quad by quad. */
async function referenceStore(file: string): Promise<QuadStore> {
  const store = openStore({ memory: true });
  const { format } = rdfFormatForFileName(file)!;
  const quads: Quad[] = [];
  for await (const batch of parseRdf(createReadStream(file), format, { baseIri: `file://${file}` })) quads.push(...batch);
  store.write((w) => {
    for (const q of quads) w.add(w.intern(q.subject), w.intern(q.predicate), w.intern(q.object), w.intern(q.graph));
  });
  return store;
}

for (const name of FORMAT_FIXTURES) {
  test(`loads ${name} into the same dataset the general parser reads`, async () => {
    const file = fixture(name);
    const expected = await referenceStore(file);
    const store = openStore({ memory: true });
    try {
      const { format } = rdfFormatForFileName(file)!;
      const result = await loadFile(store, { path: file, format, gzip: false }, { baseIri: `file://${file}` });
      const rows = datasetRows(store);
      assert.ok(rows.length > 0);
      assert.equal(result.statements, datasetRows(expected).length);
      assert.equal(result.added, rows.length);
      assert.ok(sameDataset(store, expected), `${name}: the loaded dataset differs`);
    } finally {
      await Promise.all([store.close(), expected.close()]);
    }
  });
}

test('gzip files load, recognized by extension or by content; many small write batches give the same result', async () => {
  const dir = temporaryDirectory();
  try {
    const text = readFileSync(fixture('people.ttl'));
    writeFileSync(join(dir, 'people.ttl.gz'), gzipSync(text));
    const expected = await referenceStore(fixture('people.ttl'));
    const base = `file://${fixture('people.ttl')}`;
    for (const [path, writeBatch] of [
      [join(dir, 'people.ttl.gz'), undefined],
      [join(dir, 'people.ttl.gz'), 3],
    ] as const) {
      const store = openStore({ memory: true });
      await loadFile(store, { path, format: 'turtle', gzip: true }, { baseIri: base, writeBatch });
      assert.ok(sameDataset(store, expected));
      await store.close();
    }
    // Not named .gz: the CLI looks at the first bytes.
    writeFileSync(join(dir, 'disguised.nt'), gzipSync(readFileSync(fixture('people.nt'))));
    const run = await runCli(['load', '--store', join(dir, 'store'), '--quiet', join(dir, 'disguised.nt')]);
    assert.equal(run.code, 0, run.stderr);
    await withStore(join(dir, 'store'), (store) => assert.equal(datasetRows(store).length, 5));
    await expected.close();
  } finally {
    removeDirectory(dir);
  }
});

test('standard input loads with --format, and --graph puts default-graph statements into a named graph', async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const run = await runCli(['load', '--store', store, '--format', 'ntriples', '--graph', 'http://example.org/g', '-'], {
      stdin: readFileSync(fixture('people.nt')),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /<stdin>: 5 statements \(5 new\)/);
    await withStore(store, (s) => {
      const reader = s.reader();
      const g = reader.idOf(namedNode('http://example.org/g'))!;
      assert.equal(reader.count(ANY, ANY, ANY, g), 5);
      assert.equal(reader.count(ANY, ANY, ANY, DEFAULT_GRAPH_ID), 0);
      reader.release();
    });
  } finally {
    removeDirectory(dir);
  }
});

test('bad data names file, line and column, and nothing of that file stays; the other files load', async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const run = await runCli(['load', '--store', store, fixture('people.nt'), fixture('bad.ttl'), fixture('bad.nt')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /bad\.ttl:4:\d+: /);
    assert.match(run.stderr, /bad\.nt:2:\d+: expected '\.'/);
    assert.match(run.stderr, /nothing of .*bad\.ttl was loaded/);
    await withStore(store, (s) => assert.equal(datasetRows(s).length, 5, 'only people.nt'));
  } finally {
    removeDirectory(dir);
  }
});

test('a syntax error rejects with a LoadSyntaxError and rolls the file back', async () => {
  const store = openStore({ memory: true });
  try {
    const error = await loadFile(store, { path: fixture('bad.nt'), format: 'ntriples', gzip: false }).catch((e: unknown) => e);
    assert.ok(error instanceof LoadSyntaxError);
    assert.equal(error.line, 2);
    assert.equal(error.column, 60);
    assert.equal(datasetRows(store).length, 0);
  } finally {
    await store.close();
  }
});

test('--lenient skips and counts bad statements', async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const run = await runCli(['load', '--store', store, '--lenient', fixture('bad.nt')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /2 bad statements skipped/);
    assert.match(run.stderr, /skipped: .*line 4, column 51/);
    await withStore(store, (s) => assert.equal(datasetRows(s).length, 2));
  } finally {
    removeDirectory(dir);
  }
});
