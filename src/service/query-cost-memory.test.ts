import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueryCostMemory } from './query-cost-memory.js';

test('queries that differ only in their constants share a shape', () => {
  const a = QueryCostMemory.shapeOf('SELECT ?s WHERE { ?s <http://example.org/p> "a" } LIMIT 5');
  const b = QueryCostMemory.shapeOf('SELECT ?s WHERE { ?s <http://example.org/q> "b" } LIMIT 5');
  const c = QueryCostMemory.shapeOf('SELECT ?o WHERE { <http://example.org/s> ?p ?o }');
  assert.equal(a, b);
  assert.notEqual(a, c);
  assert.equal(QueryCostMemory.shapeOf('ASK {}'), 'ASK {}');
});

test('a shape is cheap only after a few fast runs', () => {
  const costs = new QueryCostMemory(2);
  costs.record('q', 0.3);
  costs.record('q', 0.2);
  assert.equal(costs.isCheap('q'), false);
  costs.record('q', 0.4);
  assert.equal(costs.isCheap('q'), true);
  assert.equal(costs.isCheap('never seen'), false);
});

test('slow runs make a shape expensive quickly; one stretched run does not', () => {
  const costs = new QueryCostMemory(2);
  for (let i = 0; i < 5; i++) costs.record('q', 0.5);
  costs.record('q', 3);
  assert.equal(costs.isCheap('q'), true, 'one run stretched by a busy machine');
  costs.record('q', 6);
  assert.equal(costs.isCheap('q'), false);
  for (let i = 0; i < 20; i++) costs.record('q', 0.5);
  assert.equal(costs.isCheap('q'), true);
});

test('a shape that overran its budget is distrusted for many runs', () => {
  const costs = new QueryCostMemory(2);
  for (let i = 0; i < 5; i++) costs.record('q', 0.5);
  costs.markExpensive('q', 30);
  for (let i = 0; i < 5; i++) costs.record('q', 0.5);
  assert.equal(costs.isCheap('q'), false);
});
