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
