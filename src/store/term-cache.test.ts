import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { namedNode, literal } from '../rdf/terms.js';
import { TERM_CACHE_SLOTS, TermCache } from './term-cache.js';

describe('TermCache', () => {
  it('gives back the term kept for an ID, and nothing for an ID never kept', () => {
    const cache = new TermCache();
    const a = namedNode('http://ex/a');
    cache.set(7, a);
    assert.equal(cache.get(7), a);
    assert.equal(cache.get(8), undefined);
    assert.equal(cache.get(0), undefined);
  });

  it('keeps one of two IDs that share a slot: the later replaces the earlier', () => {
    const cache = new TermCache();
    const a = namedNode('http://ex/a');
    const b = literal('b');
    cache.set(5, a);
    cache.set(5 + TERM_CACHE_SLOTS, b);
    assert.equal(cache.get(5), undefined);
    assert.equal(cache.get(5 + TERM_CACHE_SLOTS), b);
    // IDs up to 2^32 - 1 are store IDs too.
    cache.set(2 ** 32 - 1, a);
    assert.equal(cache.get(2 ** 32 - 1), a);
  });

  it('keeps no query-local ID (2^32 and above), and forgets everything on clear', () => {
    const cache = new TermCache();
    const a = namedNode('http://ex/a');
    cache.set(2 ** 32 + 5, a);
    assert.equal(cache.get(2 ** 32 + 5), undefined);
    assert.equal(cache.get(5), undefined);
    cache.set(9, a);
    cache.clear();
    assert.equal(cache.get(9), undefined);
  });
});
