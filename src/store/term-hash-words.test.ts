import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashTermKey } from './term-hash.js';
import { hashTermKeyWords, hashTermKeysWords } from './term-hash-words.js';

/** hashTermKeyWords of the key placed at an offset in a larger buffer, against the store's string hash. */
function assertSameHash(key: string, offset: number): void {
  const encoded = Buffer.from(key, 'utf8');
  const bytes = new Uint8Array(offset + encoded.length + 5);
  bytes.set(encoded, offset);
  const view = new DataView(bytes.buffer);
  const expected = new Uint32Array(2);
  const actual = new Uint32Array(2);
  hashTermKey(key, expected);
  hashTermKeyWords(bytes, view, offset, offset + encoded.length, actual);
  assert.deepEqual([...actual], [...expected], `${JSON.stringify(key.slice(0, 40))} (length ${key.length}) at ${offset}`);
}

test('equal to the store dictionary hash (hashTermKey) for keys of every length and alignment', () => {
  const alphabet = '<http://example.org/ab"cdefXYZ0123456789_-#@^';
  let seed = 12345;
  const random = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  for (let length = 0; length < 200; length++) {
    let key = '';
    for (let i = 0; i < length; i++) key += alphabet[random(alphabet.length)];
    for (let offset = 0; offset < 4; offset++) assertSameHash(key, offset);
  }
});

test('non-ASCII keys (hashed over UTF-16 code units) agree, wherever the first such byte falls', () => {
  const keys = ['"ünïcødé', '<http://a/路径', '"😀 emoji', '@fr"été', '"' + 'x'.repeat(37) + 'é', '"abc\u0080', '"\u07ff\u0800\uffff', '_:é1'];
  for (const key of keys) for (let offset = 0; offset < 4; offset++) assertSameHash(key, offset);
});

test('long keys agree', () => {
  assertSameHash('"' + 'lorem ipsum dolor sit amet, '.repeat(5_000), 1);
  assertSameHash('"' + 'lorem ipsum dolor sit amet, '.repeat(5_000) + 'ß', 2);
  assertSameHash('<http://example.org/' + 'a/'.repeat(3_000) + 'end', 3);
});

test('a batch hashed two keys at a time gives each key its own hash', () => {
  let seed = 99;
  const random = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const pieces = ['<http://example.org/', 'abc', '"', 'é', '路径', '😀', ' ', 'lorem ipsum dolor sit amet '];
  for (let round = 0; round < 30; round++) {
    const keys: string[] = [];
    const count = random(40);
    for (let k = 0; k < count; k++) {
      let key = '';
      // Mostly ASCII, of very different lengths (one key may end long before the other).
      const parts = random(5) === 0 ? random(200) : random(8);
      for (let p = 0; p < parts; p++) key += pieces[random(3) === 0 ? random(pieces.length) : random(3)];
      keys.push(key);
    }
    const encoded = keys.map((key) => Buffer.from(key, 'utf8'));
    const offset = round % 4;
    const bytes = new Uint8Array(offset + encoded.reduce((sum, key) => sum + key.length, 0) + 3);
    const ends = new Uint32Array(keys.length);
    let at = 0;
    encoded.forEach((key, i) => {
      bytes.set(key, offset + at);
      at += key.length;
      ends[i] = at;
    });
    const slice = bytes.subarray(offset, offset + at);
    const out = new Uint32Array(keys.length * 2);
    hashTermKeysWords(slice, new DataView(slice.buffer, slice.byteOffset, slice.byteLength), ends, out);
    const expected = new Uint32Array(2);
    keys.forEach((key, i) => {
      hashTermKey(key, expected);
      assert.deepEqual([out[2 * i], out[2 * i + 1]], [...expected], `${JSON.stringify(key.slice(0, 40))} (round ${round}, key ${i})`);
    });
  }
});
