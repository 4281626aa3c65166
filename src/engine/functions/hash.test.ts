import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attempt, call, int, lit } from './test-helpers.js';

test('hash functions take simple literals only', () => {
  assert.equal(call('md5', [lit('abc')]), '"900150983cd24fb0d6963f7d28e17f72"');
  assert.equal(call('sha1', [lit('abc', 'xsd:string')]), '"a9993e364706816aba3e25717850c26c9cd0d89d"');
  assert.equal(call('sha256', [lit('abc')]), '"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"');
  assert.match(call('sha384', [lit('abc')]), /^"cb00753f45a35e8b[0-9a-f]{80}"$/);
  assert.match(call('sha512', [lit('abc')]), /^"ddaf35a193617aba[0-9a-f]{112}"$/);
  assert.equal(call('md5', [lit('食べ物')]), '"e7ada485d13b1decf628c9211bc3a97b"'); // W3C md5-02
  assert.equal(attempt('md5', [lit('abc', 'en')]), 'error');
  assert.equal(attempt('sha1', [int(1)]), 'error');
});
