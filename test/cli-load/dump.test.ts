import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { once } from 'node:events';
import { join } from 'node:path';
import { rdfFormatForFileName } from '../../src/formats/rdf-parser.js';
import { openStore } from '../../src/store/lmdb-store.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { loadFile } from '../../src/loader/file-loader.js';
import { dumpStore, type DumpFormat } from '../../src/cli/dump-command.js';
import { datasetRows, fixture, removeDirectory, runCli, sameDataset, temporaryDirectory } from './load-helpers.js';

async function loadFixtures(store: QuadStore, names: string[]): Promise<void> {
  for (const name of names) {
    const path = fixture(name);
    await loadFile(store, { path, format: rdfFormatForFileName(path)!.format, gzip: false }, { baseIri: `file://${path}` });
  }
}

const ROUND_TRIPS: [DumpFormat, string[]][] = [
  // Quad formats carry named graphs; blank nodes appear in the default graph and in named ones.
  ['nquads', ['people.trig', 'people.nq', 'people.jsonld', 'people.ttl']],
  ['trig', ['people.trig', 'people.nq', 'people.jsonld', 'people.ttl']],
  ['jsonld', ['people.trig', 'people.nq', 'people.jsonld', 'people.ttl']],
  // Triple formats hold the default graph only.
  ['turtle', ['people.ttl', 'people.nt', 'people.rdf']],
  ['ntriples', ['people.ttl', 'people.nt', 'people.rdf']],
  ['rdfxml', ['people.ttl', 'people.nt', 'people.rdf']],
];

for (const [format, fixtures] of ROUND_TRIPS) {
  test(`load(dump(store)) as ${format} gives back the same dataset, blank nodes included`, async () => {
    const dir = temporaryDirectory();
    const original = openStore({ memory: true });
    const copy = openStore({ memory: true });
    try {
      await loadFixtures(original, fixtures);
      const file = join(dir, `dump.${format}`);
      const out = createWriteStream(file);
      await dumpStore(original, { format }, out);
      out.end();
      await once(out, 'close');
      await loadFile(copy, { path: file, format, gzip: false });
      assert.ok(datasetRows(original).some((row) => row.some((term) => term?.termType === 'BlankNode')));
      assert.equal(datasetRows(copy).length, datasetRows(original).length);
      assert.ok(sameDataset(original, copy), `the ${format} round trip changed the dataset`);
    } finally {
      await Promise.all([original.close(), copy.close()]);
      removeDirectory(dir);
    }
  });
}

test('quiver dump streams one graph to standard output, or the store to --output', async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    assert.equal((await runCli(['load', '--store', store, '--quiet', fixture('people.nq')])).code, 0);
    const one = await runCli(['dump', '--store', store, '--graph', 'http://example.org/g1', '--format', 'ntriples']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout.trim().split('\n').length, 2);
    assert.doesNotMatch(one.stdout, /example\.org\/g1/);
    const all = await runCli(['dump', '--store', store, '--output', join(dir, 'all.nq')]);
    assert.equal(all.code, 0, all.stderr);
    const missing = await runCli(['dump', '--store', store, '--graph', 'http://example.org/none']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no graph <http:\/\/example\.org\/none>/);
  } finally {
    removeDirectory(dir);
  }
});

test('the CLI round trip: dump gzipped to a file and to standard output, load back from the .gz file and from standard input', async () => {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    assert.equal((await runCli(['load', '--store', store, '--quiet', fixture('people.trig'), fixture('people.ttl')])).code, 0);
    const dumped = await runCli(['dump', '--store', store, '--format', 'trig']);
    assert.equal(dumped.code, 0, dumped.stderr);
    writeFileSync(join(dir, 'dump.trig.gz'), gzipSync(dumped.stdout));
    const fromFile = join(dir, 'from-file');
    const fromStdin = join(dir, 'from-stdin');
    assert.equal((await runCli(['load', '--store', fromFile, '--quiet', join(dir, 'dump.trig.gz')])).code, 0);
    const piped = await runCli(['load', '--store', fromStdin, '--quiet', '--format', 'trig', '--gzip', '-'], { stdin: gzipSync(dumped.stdout) });
    assert.equal(piped.code, 0, piped.stderr);
    const [original, a, b] = [store, fromFile, fromStdin].map((path) => openStore({ path, readOnly: true }));
    try {
      assert.ok(datasetRows(original!).some((row) => row.some((term) => term?.termType === 'BlankNode')));
      assert.ok(sameDataset(original!, a!), 'the .gz file round trip changed the dataset');
      assert.ok(sameDataset(original!, b!), 'the standard input round trip changed the dataset');
    } finally {
      await Promise.all([original!.close(), a!.close(), b!.close()]);
    }
  } finally {
    removeDirectory(dir);
  }
});
