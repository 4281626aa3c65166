import { test } from 'node:test';
import assert from 'node:assert/strict';
import { literal, termKey } from '../rdf/terms.js';
import { openStore } from './lmdb-store.js';
import type { LmdbStoreWriter } from './lmdb-writer.js';
import { hashTermKeyBytes } from './term-hash.js';
import { CODED_TERM, codedTermValue, decodedTermBytes } from './term-text-code.js';
import { seededRandom } from './fixtures/sample-quads.js';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const words = 'the of and to in is was for on that with as by at from his an were are which this be or its first new had'.split(' ');

function prose(random: () => number, length: number): string {
  let text = '"';
  while (text.length < length) text += words[Math.floor(random() * words.length)] + (random() < 0.1 ? '. ' : ' ');
  return text.slice(0, length);
}

function roundTrip(key: Uint8Array): Uint8Array | undefined {
  const coded = codedTermValue(key);
  if (coded === undefined) return undefined;
  const copy = Uint8Array.from(coded);
  assert.equal(copy[0], CODED_TERM);
  assert.deepEqual(Buffer.from(decodedTermBytes(copy)), Buffer.from(key));
  return copy;
}

test('prose codes to well under its length and decodes to the same bytes, at every length', () => {
  const random = seededRandom(3);
  for (const length of [64, 65, 127, 128, 129, 700, 2000, 16_383, 16_384, 100_000]) {
    const key = utf8(prose(random, length));
    const coded = roundTrip(key);
    assert.ok(coded !== undefined, `${length} bytes coded`);
    assert.ok(coded.length < key.length * 0.7, `${length} bytes: ${coded.length} coded`);
  }
});

test('text the code fits badly is left as it is, and whatever is coded decodes exactly', () => {
  const random = seededRandom(5);
  const noise = Uint8Array.from({ length: 500 }, () => Math.floor(random() * 256));
  assert.equal(codedTermValue(noise), undefined, 'random bytes');
  assert.equal(codedTermValue(utf8('"' + '数据库中的文字'.repeat(20))), undefined, 'Chinese');
  // Every byte value, alone and among prose; multi-byte characters among prose.
  for (let byte = 0; byte < 256; byte++) roundTrip(Uint8Array.from([0x22, ...utf8(prose(random, 100)), byte, ...utf8(prose(random, 100))]));
  for (const text of ['naïve café façade résumé ', 'Straße über Ärger ', 'emoji 🎉 and text ']) roundTrip(utf8('"' + text.repeat(10) + prose(random, 200)));
});

test('a long literal is stored coded, and found and read back by every way in', async () => {
  const store = openStore({ memory: true });
  try {
    const random = seededRandom(9);
    const texts = Array.from({ length: 50 }, () => literal(prose(random, 300).slice(1)));
    const tagged = literal(prose(random, 300).slice(1), 'en');
    const terms = [...texts, tagged];
    const ids = store.write((w) => terms.map((term) => w.intern(term)));
    const stored = (store as unknown as { context: { dbs: { idToTerm: { get(id: number): Uint8Array | undefined } } } }).context.dbs.idToTerm;
    for (const id of ids) assert.equal(stored.get(id)![0], CODED_TERM);
    const reader = store.reader();
    terms.forEach((term, i) => {
      assert.ok(reader.termOf(ids[i]).equals(term));
      assert.equal(reader.idOf(term), ids[i]);
    });
    reader.release();
    // The load's way in: keys as bytes, compared against the coded values.
    const again = store.write((w) =>
      terms.map((term) => {
        const bytes = utf8(termKey(term));
        const hash = new Uint32Array(2);
        hashTermKeyBytes(bytes, 0, bytes.length, hash);
        return (w as LmdbStoreWriter).internKeyBytes(bytes, hash[0], hash[1]);
      }),
    );
    assert.deepEqual(again, ids);
  } finally {
    await store.close();
  }
});
