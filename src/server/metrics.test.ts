import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LATENCY_BUCKETS, RequestMetrics } from './metrics.js';

describe('RequestMetrics', () => {
  it('writes counters and cumulative histograms in the Prometheus text format', () => {
    const metrics = new RequestMetrics();
    metrics.observe('select', 'GET', 200, 0.003);
    metrics.observe('select', 'GET', 200, 0.2);
    metrics.observe('select', 'POST', 400, 1000);
    const text = metrics.exposition();
    assert.match(text, /^# HELP quiver_http_requests_total /m);
    assert.match(text, /^# TYPE quiver_http_requests_total counter$/m);
    assert.match(text, /^quiver_http_requests_total\{endpoint="select",method="GET",status="200"\} 2$/m);
    assert.match(text, /^quiver_http_requests_total\{endpoint="select",method="POST",status="400"\} 1$/m);
    assert.match(text, /^quiver_http_request_duration_seconds_bucket\{endpoint="select",le="0.005"\} 1$/m);
    assert.match(text, /^quiver_http_request_duration_seconds_bucket\{endpoint="select",le="0.25"\} 2$/m);
    assert.match(text, new RegExp(`le="${LATENCY_BUCKETS.at(-1)}"\\} 2$`, 'm'), 'the slow request is in no finite bucket');
    assert.match(text, /^quiver_http_request_duration_seconds_bucket\{endpoint="select",le="\+Inf"\} 3$/m);
    assert.match(text, /^quiver_http_request_duration_seconds_count\{endpoint="select"\} 3$/m);
    assert.match(text, /^quiver_http_request_duration_seconds_sum\{endpoint="select"\} 1000.203$/m);
    assert.ok(text.endsWith('\n'));
  });

  it('adds the gauges a service reports, and leaves out those it does not know', () => {
    const text = new RequestMetrics().exposition({
      metrics: { queriesRunning: 2, queriesQueued: 5, queriesInline: 17, triples: 1234 },
      health: { status: 'ok', store: 'open', writable: true },
    });
    assert.match(text, /^quiver_queries_running 2$/m);
    assert.match(text, /^quiver_queries_queued 5$/m);
    assert.match(text, /^# TYPE quiver_queries_inline_total counter$/m);
    assert.match(text, /^quiver_queries_inline_total 17$/m);
    assert.match(text, /^quiver_store_triples 1234$/m);
    assert.match(text, /^quiver_store_writable 1$/m);
    assert.doesNotMatch(text, /quiver_store_size_bytes/);
    assert.doesNotMatch(text, /quiver_updates_running/);
  });

  it('escapes label values', () => {
    const metrics = new RequestMetrics();
    metrics.observe('a"b\\c\nd', 'GET', 200, 0);
    assert.match(metrics.exposition(), /endpoint="a\\"b\\\\c\\nd"/);
  });
});
