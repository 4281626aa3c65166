import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TermTable, hashBytes } from './byte-term-table.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

function localOf(table: TermTable, text: string): number {
  const key = bytes(text);
  return table.local(key, 0, key.length);
}

test('terms are numbered in order of first sight; a term met again keeps its number', () => {
  const table = new TermTable();
  assert.equal(localOf(table, '<http://a/s'), 0);
  assert.equal(localOf(table, '<http://a/p'), 1);
  assert.equal(localOf(table, '<http://a/s'), 0);
  assert.equal(localOf(table, '"ünïcødé'), 2);
  assert.equal(localOf(table, '"ünïcødé'), 2);
  assert.equal(table.size, 3);
});

test('a key is found from any buffer and offset holding its bytes', () => {
  const table = new TermTable();
  const line = bytes('xx<http://a/o>yy');
  assert.equal(table.local(line, 2, 13), 0);
  assert.equal(localOf(table, '<http://a/o'), 0);
  assert.equal(localOf(table, '<http://a/'), 1, 'a prefix is another key');
  assert.equal(localOf(table, ''), 2, 'the empty key is a key');
});

test('new terms since a number come as one byte array with their ends', () => {
  const table = new TermTable();
  localOf(table, 'a');
  localOf(table, 'bb');
  localOf(table, 'ccc');
  const { bytes: sent, ends } = table.newTermsSince(1);
  assert.equal(Buffer.from(sent).toString(), 'bbccc');
  assert.deepEqual([...ends], [2, 5]);
  assert.equal(table.newTermsSince(3).ends.length, 0);
});

test('many terms: growth and rehashing keep every number; clear starts over', () => {
  const table = new TermTable();
  const count = 100_000;
  for (let i = 0; i < count; i++) assert.equal(localOf(table, `<http://example.org/resource/${i}`), i);
  for (let i = 0; i < count; i += 997) assert.equal(localOf(table, `<http://example.org/resource/${i}`), i);
  const long = '"' + 'lorem ipsum '.repeat(10_000);
  assert.equal(localOf(table, long), count);
  assert.equal(localOf(table, long), count);
  assert.ok(table.bytes > long.length);
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.bytes, 0);
  assert.equal(localOf(table, '<http://example.org/resource/5'), 0);
});

test('hashBytes depends on every byte and on the range only', () => {
  const a = bytes('<http://example.org/a-long-enough-key');
  const b = bytes('<http://example.org/a-long-enough-kez');
  assert.notEqual(hashBytes(a, 0, a.length), hashBytes(b, 0, b.length));
  const padded = Buffer.concat([bytes('...'), a]);
  assert.equal(hashBytes(padded, 3, padded.length), hashBytes(a, 0, a.length));
});

test('past its byte cap the arena grows only as needed, and keeps every key', () => {
  const table = new TermTable(3 << 20);
  const keys = Array.from({ length: 40 }, (_, i) => `"${i} ` + 'x'.repeat(100_000));
  keys.forEach((key, i) => assert.equal(localOf(table, key), i));
  keys.forEach((key, i) => assert.equal(localOf(table, key), i));
  assert.ok(table.bytes > 3 << 20);
});
