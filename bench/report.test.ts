import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAnswers } from './answer-check.js';
import type { QuerySample } from './http-driver.js';
import type { QueryMix } from './query-mixes.js';
import { percentile, qmphRatios, renderMarkdown, renderScaling, scalingRows, summarizeRun, type BenchReport, type EngineReport } from './report.js';

const sample = (query: string, ms: number, rows = 1, extra: Partial<QuerySample> = {}): QuerySample => ({
  mix: 1,
  seq: 1,
  query,
  client: 1,
  ms,
  rows,
  ...extra,
});

test('percentiles are nearest-rank over sorted values', () => {
  const values = Array.from({ length: 20 }, (_, i) => i + 1);
  assert.equal(percentile(values, 0.5), 10);
  assert.equal(percentile(values, 0.95), 19);
  assert.equal(percentile([7], 0.95), 7);
});

test('a run summary gives QMpH and per-query latency, leaving errors out of the latencies', () => {
  const summary = summarizeRun({
    clients: 1,
    mixes: 10,
    wallSeconds: 36,
    samples: [sample('q01', 2), sample('q01', 4), sample('q01', 100, undefined, { error: 'HTTP 500' }), sample('q05', 9)],
  });
  assert.equal(summary.qmph, 1000);
  assert.equal(summary.errors, 1);
  assert.equal(summary.perQuery.q01.count, 2);
  assert.equal(summary.perQuery.q01.medianMs, 2);
  assert.equal(summary.perQuery.q05.p95Ms, 9);
  assert.equal(summary.perQuery.q02, undefined);
});

test('QMpH ratios put Quiver over each peer at the same client count', () => {
  const engine = (name: string, qmph: number[]): EngineReport => ({
    name,
    description: name,
    load: { triples: 1, seconds: 1, triplesPerSecond: 1, method: '' },
    runs: qmph.map((q, i) => ({ clients: [1, 4][i], mixes: 1, wallSeconds: 1, qmph: q, errors: 0, perQuery: {} })),
  });
  assert.deepEqual(
    qmphRatios([engine('quiver', [50, 80]), engine('oxigraph', [100, 100])]).map((r) => [r.clients, r.ratio]),
    [
      [1, 0.5],
      [4, 0.8],
    ],
  );
});

const mixes: QueryMix[] = [
  {
    mix: 1,
    queries: [
      { query: 'q01', seq: 1, form: 'select', params: { x: '1' }, text: '', deterministic: false },
      { query: 'q02', seq: 2, form: 'select', params: { p: '<p>' }, text: '', deterministic: true },
      { query: 'q11', seq: 3, form: 'select', params: {}, text: '', deterministic: true },
    ],
  },
];

test('the answer check lists differing counts, differing rows where determined, and failures', () => {
  const at = (seq: number, query: string, rows: number, digest: string, error?: string): QuerySample => ({
    mix: 1,
    seq,
    query,
    client: 1,
    ms: 1,
    rows: error ? undefined : rows,
    digest,
    error,
  });
  const check = checkAnswers(mixes, [
    { label: 'quiver/1c', samples: [at(1, 'q01', 5, 'a'), at(2, 'q02', 3, 'b'), at(3, 'q11', 2, 'c')] },
    { label: 'oxigraph/1c', samples: [at(1, 'q01', 4, 'a'), at(2, 'q02', 3, 'z'), at(3, 'q11', 0, '', 'HTTP 500')] },
  ]);
  assert.equal(check.compared, 2);
  assert.deepEqual(
    check.rowCountDisagreements.map((d) => [d.query, d.answers]),
    [['q01', { 'quiver/1c': 5, 'oxigraph/1c': 4 }]],
  );
  assert.deepEqual(
    check.contentDisagreements.map((d) => d.query),
    ['q02'],
  );
  assert.deepEqual(
    check.failures.map((d) => [d.query, d.answers['oxigraph/1c']]),
    [['q11', 'HTTP 500']],
  );
});

test('the Markdown report puts disagreements first, with their parameters', () => {
  const check = checkAnswers(mixes.slice(0, 1), [
    { label: 'quiver/1c', samples: [{ mix: 1, seq: 1, query: 'q01', client: 1, ms: 1, rows: 5, digest: 'a' }] },
    { label: 'oxigraph/1c', samples: [{ mix: 1, seq: 1, query: 'q01', client: 1, ms: 1, rows: 4, digest: 'a' }] },
  ]);
  const report: BenchReport = {
    machine: { cpu: 'cpu', cores: 2, memoryGiB: 4, os: 'linux', node: 'v20', date: '2026-01-01T00:00:00Z' },
    options: {},
    dataset: { path: 'd', stats: {} },
    engines: [],
    skipped: [{ name: 'virtuoso', reason: 'not installed' }],
    ratios: [],
    answers: check,
  };
  const markdown = renderMarkdown(report);
  assert.match(markdown.split('\n').slice(0, 4).join('\n'), /ANSWERS DISAGREE/);
  assert.match(markdown, /Q01 mix 1 #1 `\{"x":"1"\}` → quiver\/1c: 5; oxigraph\/1c: 4/);
  assert.match(markdown, /virtuoso: skipped, not installed/);
});

test("with two dataset sizes, each engine's QMpH on the larger is set against the smaller", () => {
  const at = (products: number, qmph: number): BenchReport => ({
    machine: { cpu: 'cpu', cores: 2, memoryGiB: 4, os: 'linux', node: 'v20', date: '2026-01-01T00:00:00Z' },
    options: {},
    dataset: { path: `d${products}`, products, stats: {} },
    engines: [
      {
        name: 'quiver',
        description: '',
        load: { triples: 1, seconds: 1, triplesPerSecond: 1, method: '' },
        runs: [{ clients: 1, mixes: 1, wallSeconds: 1, qmph, errors: 0, perQuery: {} }],
      },
    ],
    skipped: [],
    ratios: [],
    answers: { compared: 0, rowCountDisagreements: [], contentDisagreements: [], failures: [] },
  });
  const rows = scalingRows([at(10_000, 60), at(1000, 100)]);
  assert.deepEqual(
    rows.map((r) => [r.engine, r.clients, r.fromProducts, r.toProducts, r.ratio]),
    [['quiver', 1, 1000, 10_000, 0.6]],
  );
  assert.match(renderScaling(rows).join('\n'), /\| quiver \| 1 \| 1000 \| 100 \| 10000 \| 60 \| 0.60 \| 40% \|/);
  assert.deepEqual(scalingRows([at(1000, 100)]), []);
});
