import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedMap } from './bounded-map.js';

test('keeps at most its limit of entries, the recently used first', () => {
  const map = new BoundedMap<number, number>(4);
  for (let i = 0; i < 4; i++) map.set(i, i);
  assert.equal(map.get(0), 0);
  map.set(4, 4);
  map.set(5, 5);
  assert.ok(map.size <= 4);
  assert.equal(map.get(5), 5);
});

test('with a weight limit, keeps entries to their total weight and drops one heavier than half of it', () => {
  const map = new BoundedMap<string, string>(100, { maxWeight: 10, weigh: (_key, value) => value.length });
  map.set('big', 'x'.repeat(6));
  assert.equal(map.get('big'), undefined);
  map.set('a', 'aaaa');
  map.set('b', 'bbbb');
  assert.equal(map.get('a'), 'aaaa');
  map.set('c', 'cccc');
  map.set('d', 'dddd');
  assert.equal(map.get('a'), undefined, 'two generations of 5 hold a few entries of 4');
  assert.equal(map.get('d'), 'dddd');
});
