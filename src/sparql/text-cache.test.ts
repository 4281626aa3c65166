import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextCache } from './text-cache.js';

test('a text is cached apart for each base IRI, no base and an empty base being the same', () => {
  const cache = new TextCache<string>(8);
  cache.set('SELECT * {}', undefined, 'no base');
  cache.set('SELECT * {}', 'http://example.org/', 'with base');
  assert.equal(cache.get('SELECT * {}', undefined), 'no base');
  assert.equal(cache.get('SELECT * {}', ''), 'no base');
  assert.equal(cache.get('SELECT * {}', 'http://example.org/'), 'with base');
  assert.equal(cache.get('SELECT * {}', 'http://example.com/'), undefined);
});

test('texts are kept to a total length: a long one is not kept, and many short ones push old ones out', () => {
  const cache = new TextCache<number>(512, 1000);
  cache.set('x'.repeat(600), undefined, 1);
  assert.equal(cache.get('x'.repeat(600), undefined), undefined, 'longer than half the bound');
  for (let i = 0; i < 20; i++) cache.set(`${i}`.padEnd(100, '.'), undefined, i);
  assert.equal(cache.get('0'.padEnd(100, '.'), undefined), undefined);
  assert.equal(cache.get('19'.padEnd(100, '.'), undefined), 19);
});
