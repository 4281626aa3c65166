import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { rdfFormatForFileName } from '../../src/formats/rdf-parser.js';
import { openStore } from '../../src/store/lmdb-store.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { loadFile } from '../../src/cli/load/file-loader.js';
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
  // Triple formats hold the default graph only.
  ['turtle', ['people.ttl', 'people.nt', 'people.rdf']],
  ['ntriples', ['people.ttl', 'people.nt', 'people.rdf']],
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
