import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knownIriId, rememberIriId } from './iri-ids.js';
import { QUERY_LOCAL_ID_BASE } from '../../store/quad-store.js';

test('IRI IDs are shared within one content version and forgotten with it', () => {
  rememberIriId(11, 'http://ex/p', 42);
  assert.equal(knownIriId(11, 'http://ex/p'), 42);
  assert.equal(knownIriId(12, 'http://ex/p'), undefined, 'another version: unknown');
  rememberIriId(12, 'http://ex/q', 43);
  assert.equal(knownIriId(11, 'http://ex/p'), undefined, 'the table started afresh');
});

test('a query-local ID (a term the store does not hold) is not shared', () => {
  rememberIriId(13, 'http://ex/missing', QUERY_LOCAL_ID_BASE + 1);
  assert.equal(knownIriId(13, 'http://ex/missing'), undefined);
});
