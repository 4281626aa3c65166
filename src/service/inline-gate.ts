/**
 * Whether a query already known to be cheap may run on the main thread now, or should go to a worker.
 *
 * Running it on the main thread saves two thread hand-offs, which is what a lone client waits for;
 * but with overlapping requests the main thread is the one part of the server that cannot run in
 * parallel, so it must stay free for HTTP while the workers use the other cores.
 *
 * Counting the queries in flight cannot tell those cases apart: an inline query is evaluated and
 * written within one turn of the event loop, so the next client's request is read only after it, and
 * finds nothing in flight even when four clients are waiting. What does tell is whether the event
 * loop went idle before this query came: a lone client leaves it waiting while the client reads the
 * answer and sends the next request; overlapping clients' requests are already there when it looks.
 * So the gate admits a query when no query waits for a worker, no worker is evaluating one, and the
 * loop has waited for I/O since the previous query arrived.
 *
 * A query that arrives while another is queued or evaluating on a worker also closes the gate for a
 * while (`holdMs`): clients that overlap once overlap again, and between their requests the loop
 * may still go idle now and then (all of them reading answers at once), so a per-query look alone
 * let some of their queries onto the main thread, where the others' requests waited behind them
 * (4 clients: −9% with that gate, bench/RESULTS-LOG.md). A lone client never shows that sign. A busy
 * loop alone does not close the gate: a lone client's request finds it busy too when this process
 * was descheduled (7% of requests on a loaded 2-core machine), and overlapping clients soon show the
 * stronger sign anyway, since a busy loop sends their query to a worker.
 */
import { performance } from 'node:perf_hooks';
import type { QueryLoad } from './query-pool.js';

export interface InlineGateOptions {
  /** How long the event loop must have waited for I/O since the previous query, in milliseconds. */
  minIdleMs?: number;
  /** Whether a query evaluating on a worker keeps the next one off the main thread. */
  onlyWhenWorkersIdle?: boolean;
  /** How long a sign of overlapping queries keeps the gate closed, in milliseconds. */
  holdMs?: number;
}

/** Above what an event loop turn with requests already waiting idles (a poll that returns at once). */
export const DEFAULT_MIN_IDLE_MS = 0.05;
/** Long against a request's turn-around (~1 ms), short against a change of load worth following. */
export const DEFAULT_HOLD_MS = 250;

/** The event loop's total idle time so far, in milliseconds; a source other than this process's loop is for tests. */
export type LoopIdleTime = () => number;
/** Milliseconds on a monotonic clock; another source is for tests. */
export type Clock = () => number;

export class InlineGate {
  private readonly minIdleMs: number;
  private readonly onlyWhenWorkersIdle: boolean;
  private readonly holdMs: number;
  private idleAtLastQuery: number;
  private closedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    options: InlineGateOptions = {},
    private readonly idleTime: LoopIdleTime = () => performance.eventLoopUtilization().idle,
    private readonly now: Clock = () => performance.now(),
  ) {
    this.minIdleMs = options.minIdleMs ?? DEFAULT_MIN_IDLE_MS;
    this.onlyWhenWorkersIdle = options.onlyWhenWorkersIdle ?? true;
    this.holdMs = options.holdMs ?? DEFAULT_HOLD_MS;
    this.idleAtLastQuery = idleTime();
  }

  /** Asked once per query (it marks the query's arrival). */
  admits(load: Pick<QueryLoad, 'running' | 'queued'>): boolean {
    const idle = this.idleTime();
    const waitedForThisQuery = idle - this.idleAtLastQuery >= this.minIdleMs;
    this.idleAtLastQuery = idle;
    const now = this.now();
    if (load.queued > 0 || (this.onlyWhenWorkersIdle && load.running > 0)) {
      this.closedUntil = now + this.holdMs;
      return false;
    }
    return waitedForThisQuery && now >= this.closedUntil;
  }
}
