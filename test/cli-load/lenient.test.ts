/**
 * `quiver load --lenient` on real bad files, per format: which statements stay, how many skips are
 * counted and reported with their line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { datasetRows, fixture, removeDirectory, runCli, temporaryDirectory, withStore } from './load-helpers.js';

async function lenientLoad(name: string): Promise<{ stderr: string; rows: string[] }> {
  const dir = temporaryDirectory();
  try {
    const store = join(dir, 'store');
    const run = await runCli(['load', '--store', store, '--lenient', fixture(name)]);
    assert.equal(run.code, 0, run.stderr);
    let rows: string[] = [];
    await withStore(store, (s) => {
      rows = datasetRows(s).map((row) => row.map((term) => term?.value ?? '').join(' '));
    });
    return { stderr: run.stderr, rows };
  } finally {
    removeDirectory(dir);
  }
}

test('Turtle: each bad statement is skipped and reported with its line; the statements after it load', async () => {
  const { stderr, rows } = await lenientLoad('lenient-bad.ttl');
  assert.match(stderr, /2 bad statements skipped/);
  assert.match(stderr, /skipped: .*line 4\)/);
  assert.match(stderr, /skipped: Undefined prefix "bad:" \(line 11\)/);
  // a (3 quads with its blank node), f (after a PREFIX and a long string), g, h, j
  assert.equal(rows.length, 8, rows.join('\n'));
  assert.ok(rows.some((row) => row.endsWith(' last ')));
  assert.ok(rows.some((row) => row.includes('long\nstring with a . inside')));
});

test('TriG: a bad statement skips its graph block; other blocks and graphs load', async () => {
  const { stderr, rows } = await lenientLoad('lenient-bad.trig');
  assert.match(stderr, /2 bad statements skipped/);
  assert.equal(rows.length, 4, rows.join('\n'));
  assert.ok(rows.some((row) => row.includes('http://example.org/g3')));
  assert.ok(!rows.some((row) => row.includes('http://example.org/g2')));
});

for (const name of ['lenient-bad.rdf', 'lenient-bad.jsonld']) {
  test(`${name.split('.')[1]}: the parser cannot resume, so the rest of the file counts as one skip`, async () => {
    const { stderr } = await lenientLoad(name);
    assert.match(stderr, /1 bad statements skipped/);
    assert.match(stderr, /the rest of the document is skipped/);
  });
}
