import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveIri } from './iri.js';

test('relative references resolve as in RFC 3986 section 5.4', () => {
  const base = 'http://a/b/c/d;p?q';
  const cases: [string, string][] = [
    ['g:h', 'g:h'],
    ['g', 'http://a/b/c/g'],
    ['./g', 'http://a/b/c/g'],
    ['g/', 'http://a/b/c/g/'],
    ['/g', 'http://a/g'],
    ['//g', 'http://g'],
    ['?y', 'http://a/b/c/d;p?y'],
    ['g?y', 'http://a/b/c/g?y'],
    ['#s', 'http://a/b/c/d;p?q#s'],
    ['', 'http://a/b/c/d;p?q'],
    ['.', 'http://a/b/c/'],
    ['..', 'http://a/b/'],
    ['../g', 'http://a/b/g'],
    ['../..', 'http://a/'],
    ['../../../g', 'http://a/g'],
    ['/./g', 'http://a/g'],
    ['g/../h', 'http://a/b/c/h'],
  ];
  for (const [reference, expected] of cases) assert.equal(resolveIri(reference, base), expected, reference);
});

test('without a base, references stay as they are', () => {
  assert.equal(resolveIri('g', undefined), 'g');
});
