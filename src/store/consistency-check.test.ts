import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStore } from './lmdb-store.js';
import { checkStoreConsistency } from './consistency-check.js';
import { writeSampleQuads } from './fixtures/sample-quads.js';
import { encodeCount } from './statistics.js';

test('a sound store passes; a missing index entry, a literal subject and a wrong counter are each reported', async () => {
  const path = mkdtempSync(join(tmpdir(), 'quiver-check-'));
  try {
    const store = openStore({ path });
    const written = writeSampleQuads(store, 300, 5);
    await store.close();
    const sound = await checkStoreConsistency(path);
    assert.deepEqual(sound.problems, []);
    assert.equal(sound.quads, written.length);

    const raw = open({ path, maxDbs: 32 });
    const pos = raw.openDB({ name: 'pos', encoding: 'binary', keyEncoding: 'binary' });
    const spo = raw.openDB({ name: 'spo', encoding: 'binary', keyEncoding: 'binary' });
    const id2term = raw.openDB({ name: 'id2term', encoding: 'binary', keyEncoding: 'uint32' });
    const meta = raw.openDB({ name: 'meta', encoding: 'binary' });
    const [firstPos] = pos.getKeys({ limit: 1 });
    const [firstSpo] = spo.getKeys({ limit: 1 });
    const subject = Buffer.from(firstSpo as Uint8Array).readUInt32BE(0);
    await raw.transaction(() => {
      pos.remove(firstPos!);
      id2term.put(subject, Buffer.from('"now a literal'));
      meta.put('nextId', encodeCount(2));
    });
    await raw.close();
    const problems = (await checkStoreConsistency(path, 100)).problems.join('\n');
    assert.match(problems, /pos has \d+ quads/);
    assert.match(problems, /a Literal subject/);
    assert.match(problems, /under another term's hash/);
    assert.match(problems, /outside \[2, nextId 2\)/);
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});

test('a triple term as subject and a triple term key that does not parse are each reported', async () => {
  const path = mkdtempSync(join(tmpdir(), 'quiver-check-12-'));
  try {
    const store = openStore({ path });
    writeSampleQuads(store, 50, 5);
    await store.close();
    const raw = open({ path, maxDbs: 32 });
    const spo = raw.openDB({ name: 'spo', encoding: 'binary', keyEncoding: 'binary' });
    const id2term = raw.openDB({ name: 'id2term', encoding: 'binary', keyEncoding: 'uint32' });
    const keys = [...spo.getKeys({})].map((key) => Buffer.from(key as Uint8Array));
    const subject = keys[0]!.readUInt32BE(0);
    const other = keys.map((key) => key.readUInt32BE(8)).find((object) => object !== subject && keys.every((key) => key.readUInt32BE(0) !== object))!;
    await raw.transaction(() => {
      id2term.put(subject, Buffer.from('[6:<urn:s6:<urn:p"o'));
      id2term.put(other, Buffer.from('[99:<urn:s'));
    });
    await raw.close();
    const problems = (await checkStoreConsistency(path, 100)).problems.join('\n');
    assert.match(problems, /a Quad subject/);
    assert.match(problems, /a term whose key does not parse/);
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
});
