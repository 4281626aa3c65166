import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANY, DEFAULT_GRAPH_ID, type QuadStore } from '../store/quad-store.js';
import { openStore } from '../store/lmdb-store.js';
import { termKey } from '../rdf/terms.js';
import { loadFile, type LoadFileOptions } from './file-loader.js';

/** N-Triples with terms that recur far apart: a parser that forgets its terms meets them again. */
function recurringTerms(statements: number): string {
  const lines: string[] = [];
  for (let i = 0; i < statements; i++) {
    const subject = `<http://example.org/s${i % 97}>`;
    const predicate = `<http://example.org/p${i % 5}>`;
    const object = i % 3 === 0 ? `"literal ${i % 211}"@en` : `<http://example.org/s${(i * 7) % 131}>`;
    lines.push(`${subject} ${predicate} ${object} .`);
  }
  return lines.join('\n') + '\n';
}

/** The default graph's statements as sorted term keys. */
function statements(store: QuadStore): string[] {
  const reader = store.reader();
  try {
    const rows: string[] = [];
    for (const [s, p, o] of reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)) rows.push([s, p, o].map((id) => termKey(reader.termOf(id))).join(' '));
    return rows.sort();
  } finally {
    reader.release();
  }
}

test('a load whose parser starts over (forgets its terms) stores each term once, into an empty store and one with data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-file-loader-'));
  const file = join(dir, 'data.nt');
  // More than two parser batches (16,384 statements): the term table starts over between them.
  writeFileSync(file, recurringTerms(40_000));
  const stores: QuadStore[] = [];
  try {
    const load = async (options: LoadFileOptions, twice = false) => {
      const store = openStore({ path: join(dir, `store-${stores.length}`) });
      stores.push(store);
      for (let round = 0; round < (twice ? 2 : 1); round++) await loadFile(store, { path: file, format: 'ntriples', gzip: false }, options);
      return store;
    };
    const plain = await load({});
    const forgetful = await load({ termLimit: 40, writeBatch: 500, stageStatements: 10_000 });
    const reloaded = await load({ termLimit: 40, writeBatch: 5000 }, true);
    const expected = statements(plain);
    for (const store of [forgetful, reloaded]) {
      assert.deepEqual(statements(store), expected);
      assert.deepEqual(store.reader().statistics(), plain.reader().statistics());
    }
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});
