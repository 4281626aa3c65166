import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shapeRows, workloadTotal, type AnalyticEngineReport } from './analytic-report.js';

const load = { triples: 1, seconds: 1, triplesPerSecond: 1, method: 'test' };
const engine = (name: string, a01: number[], a02: number[]): AnalyticEngineReport => ({
  name,
  description: name,
  load,
  results: [
    { shape: 'a01', index: 1, ms: a01, answer: [] },
    { shape: 'a02', index: 1, ms: a02, answer: a02.length ? [] : { error: 'timeout' } },
  ],
});
const shapes = [
  { name: 'a01', title: 'one' },
  { name: 'a02', title: 'two' },
];

test('per shape: the median of each engine, the fastest among those that answered alike', () => {
  const engines = [engine('quiver', [10, 30, 20], [5]), engine('virtuoso', [2, 2, 2], [1])];
  const disagreements = [{ shape: 'a01', index: 1, params: {}, problems: { virtuoso: '0 rows, expected 3 (against quiver)' } }];
  const [a01, a02] = shapeRows({ shapes, engines, disagreements });
  assert.deepEqual(a01, { shape: 'a01', medianMs: { quiver: 20, virtuoso: 2 }, wrong: ['virtuoso'], fastest: 'quiver' });
  assert.equal(a02.fastest, 'virtuoso');
});

test("the workload's total sums each instance's median and counts the failed ones apart", () => {
  assert.deepEqual(workloadTotal(engine('quiver', [10, 30, 20], [])), { ms: 20, failed: 1 });
});
