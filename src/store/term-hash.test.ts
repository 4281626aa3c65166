import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashTermKey, hashTermKeyBytes } from './term-hash.js';
import { dictionaryKeyOf } from './term-dictionary.js';

function wordsOf(key: string): number[] {
  const out = new Uint32Array(2);
  hashTermKey(key, out);
  return [...out];
}

function wordsOfBytes(key: string): number[] {
  const bytes = Buffer.concat([Buffer.from('~~'), Buffer.from(key, 'utf8'), Buffer.from('~')]);
  const out = new Uint32Array(2);
  hashTermKeyBytes(bytes, 2, bytes.length - 1, out);
  return [...out];
}

const KEYS = [
  '<http://example.org/a',
  '"',
  '@en"chat',
  '^http://www.w3.org/2001/XMLSchema#integer"01',
  '"ünïcødé 路径 😀',
  '_f_b1',
  'D',
  '"' + 'x'.repeat(5000),
];

test('hashing the UTF-8 bytes gives the hash of the key string (ASCII or not)', () => {
  for (const key of KEYS) assert.deepEqual(wordsOfBytes(key), wordsOf(key), key);
});

test('the dictionary key is the hash, high word first (the store format)', () => {
  for (const key of KEYS) {
    const [high, low] = wordsOf(key);
    const expected = Buffer.alloc(8);
    expected.writeUInt32BE(high, 0);
    expected.writeUInt32BE(low, 4);
    assert.deepEqual(dictionaryKeyOf(key), expected, key);
  }
  // Pinned: stores written by earlier versions are looked up with this hash.
  assert.equal(dictionaryKeyOf('<http://example.org/a').toString('hex'), dictionaryKeyOfPinned);
});

const dictionaryKeyOfPinned = '067fe72ed51515b7';
