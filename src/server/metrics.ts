/**
 * {base}/metrics in the Prometheus text exposition format (version 0.0.4), written by hand: a few
 * counters, one histogram per endpoint and the service's gauges do not need a client library.
 * Label values come from small fixed sets (endpoint names, HTTP methods, status codes), so the
 * number of series stays bounded whatever clients send.
 */
import type { FastifyInstance } from 'fastify';
import type { RemoteHealth, RemoteRequestCounts, ServiceHealth, ServiceMetrics, SparqlService } from '../service/index.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Upper bounds of the latency buckets, in seconds: from a cached lookup to a long analytical query. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

interface Histogram {
  /** Count per bucket (not cumulative; summed when written). */
  buckets: number[];
  sum: number;
  count: number;
}

export class RequestMetrics {
  private readonly requests = new Map<string, { endpoint: string; method: string; status: number; count: number }>();
  private readonly latency = new Map<string, Histogram>();
  private readonly startedAt = Date.now() / 1000;

  /** One finished request. */
  observe(endpoint: string, method: string, status: number, seconds: number): void {
    const key = `${endpoint} ${method} ${status}`;
    const counter = this.requests.get(key) ?? { endpoint, method, status, count: 0 };
    counter.count++;
    this.requests.set(key, counter);
    let histogram = this.latency.get(endpoint);
    if (!histogram) {
      histogram = { buckets: new Array<number>(LATENCY_BUCKETS.length).fill(0), sum: 0, count: 0 };
      this.latency.set(endpoint, histogram);
    }
    const bucket = LATENCY_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) histogram.buckets[bucket]!++;
    histogram.sum += seconds;
    histogram.count++;
  }

  /** The exposition text: request counters and latencies, then what the service reports. */
  exposition(service: { metrics?: ServiceMetrics; health?: ServiceHealth } = {}): string {
    const lines: string[] = [];
    family(lines, 'quiver_http_requests_total', 'counter', 'HTTP requests answered, by endpoint, method and status.');
    for (const { endpoint, method, status, count } of this.requests.values()) {
      lines.push(`quiver_http_requests_total${labels({ endpoint, method, status: String(status) })} ${count}`);
    }
    family(lines, 'quiver_http_request_duration_seconds', 'histogram', 'Time from request to the last byte of the response, by endpoint.');
    for (const [endpoint, histogram] of this.latency) this.writeHistogram(lines, endpoint, histogram);
    writeServiceGauges(lines, service.metrics, service.health);
    family(lines, 'process_start_time_seconds', 'gauge', 'Start time of the process since the Unix epoch, in seconds.');
    lines.push(`process_start_time_seconds ${this.startedAt}`);
    family(lines, 'process_resident_memory_bytes', 'gauge', 'Resident memory of the process, in bytes.');
    lines.push(`process_resident_memory_bytes ${process.memoryUsage.rss()}`);
    return lines.join('\n') + '\n';
  }

  private writeHistogram(lines: string[], endpoint: string, histogram: Histogram): void {
    const name = 'quiver_http_request_duration_seconds';
    let cumulative = 0;
    LATENCY_BUCKETS.forEach((bound, i) => {
      cumulative += histogram.buckets[i]!;
      lines.push(`${name}_bucket${labels({ endpoint, le: String(bound) })} ${cumulative}`);
    });
    lines.push(`${name}_bucket${labels({ endpoint, le: '+Inf' })} ${histogram.count}`);
    lines.push(`${name}_sum${labels({ endpoint })} ${histogram.sum}`);
    lines.push(`${name}_count${labels({ endpoint })} ${histogram.count}`);
  }
}

function writeServiceGauges(lines: string[], metrics: ServiceMetrics | undefined, health: ServiceHealth | undefined): void {
  const gauges: [string, string, number | undefined][] = [
    ['quiver_queries_running', 'Queries being evaluated now.', metrics?.queriesRunning],
    ['quiver_queries_queued', 'Queries waiting for a worker.', metrics?.queriesQueued],
    ['quiver_updates_running', 'Updates (and graph store writes) being applied now.', metrics?.updatesRunning],
    ['quiver_updates_queued', 'Updates (and graph store writes) waiting for the writer.', metrics?.updatesQueued],
    ['quiver_store_size_bytes', 'Bytes the store occupies on disk.', metrics?.storeBytes],
    ['quiver_memory_limit_bytes', 'The memory limit of the process (--max-memory).', metrics?.memoryLimitBytes],
    ['quiver_memory_reserved_bytes', 'What running queries and updates may still add to the process, reserved from the limit.', metrics?.memoryReservedBytes],
    ['quiver_memory_resident_bytes', 'Memory the process holds that the system cannot reclaim (anonymous and shared pages).', metrics?.memoryResidentBytes],
    ['quiver_store_triples', 'Quads in the store, all graphs.', metrics?.triples],
    ['quiver_store_writable', '1 when the store is open and accepts writes.', health && (health.writable ? 1 : 0)],
  ];
  for (const [name, help, value] of gauges) {
    if (value === undefined) continue;
    family(lines, name, 'gauge', help);
    lines.push(`${name} ${value}`);
  }
  if (metrics?.queriesInline !== undefined) {
    family(
      lines,
      'quiver_queries_inline_total',
      'counter',
      'Queries evaluated on the main thread (cheap ones, while it had time for them) instead of a worker.',
    );
    lines.push(`quiver_queries_inline_total ${metrics.queriesInline}`);
  }
  writeRemoteCounts(lines, metrics?.remote, health?.remote);
}

/** Remote mode: the traffic to the remote endpoint, and whether it answered the last health check. */
function writeRemoteCounts(lines: string[], counts: RemoteRequestCounts | undefined, health: RemoteHealth | undefined): void {
  const counters: [string, string, number | undefined][] = [
    ['quiver_remote_requests_total', 'Queries and updates sent to the remote endpoint.', counts?.requests],
    [
      'quiver_remote_failures_total',
      'Requests to the remote endpoint that ended without a complete answer (not counting clients that went away).',
      counts?.failures,
    ],
    ['quiver_remote_request_seconds_total', 'Seconds from sending a request to the remote endpoint to the last byte of its answer, summed.', counts?.seconds],
  ];
  for (const [name, help, value] of counters) {
    if (value === undefined) continue;
    family(lines, name, 'counter', help);
    lines.push(`${name} ${value}`);
  }
  if (!health) return;
  family(lines, 'quiver_remote_up', 'gauge', '1 when the remote endpoint answered the last health check.');
  lines.push(`quiver_remote_up ${health.answering ? 1 : 0}`);
  family(lines, 'quiver_remote_check_seconds', 'gauge', 'Time the last health check of the remote endpoint took.');
  lines.push(`quiver_remote_check_seconds ${health.latencyMs / 1000}`);
}

function family(lines: string[], name: string, type: string, help: string): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

function labels(values: Record<string, string>): string {
  const pairs = Object.entries(values).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  return `{${pairs.join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** GET {base}/metrics: the exposition, with the service's gauges read at scrape time. */
export function registerMetricsRoute(app: FastifyInstance, path: string, metrics: RequestMetrics, service: SparqlService): void {
  app.get(path, async (_request, reply) => {
    // A service that cannot report (say, while closing) leaves its gauges out; the scrape still works.
    const [gauges, health] = await Promise.all([service.metrics?.().catch(() => undefined), service.health?.().catch(() => undefined)]);
    return reply.type(METRICS_CONTENT_TYPE).send(metrics.exposition({ metrics: gauges, health }));
  });
}
