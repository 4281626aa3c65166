import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashTermKey } from '../../store/term-hash.js';
import { hashTermKeyWords } from './term-hash-words.js';

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
  const random = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
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
