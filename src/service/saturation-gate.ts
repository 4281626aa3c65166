/**
 * The default rule for a query already known to be cheap: evaluate it on the main thread, unless
 * the main thread is saturated while some core sits idle. Only then does a worker pay.
 *
 * Handing a query to a worker costs CPU of its own: two messages, two thread wake-ups, and the rows
 * rebuilt on the main thread. BSBM at 1k products on 2 cores: 15–17 ms of server CPU per mix with
 * 4 clients on workers, 8–11 ms with every cheap query on the main thread (bench/RESULTS-LOG.md). That
 * price buys parallelism only when there is an idle core to run the worker on. When the machine is
 * busy anyway (other requests' workers, the clients themselves), a hand-off takes a core's time from
 * someone else and gives back nothing; when the main thread has spare time, it answers sooner
 * itself. So the gate looks at both, over a short window: the event loop's utilization, and the idle
 * time of all cores together. A window in which the loop was saturated while at least `idleCores`
 * cores' worth of time went unused sends the next window's cheap queries to free workers; that
 * lightens the loop, so the following window takes them back, and the share handed off settles
 * where the loop just keeps up.
 */
import { cpus } from 'node:os';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { QueryLoad } from './query-pool.js';

export interface SaturationGateOptions {
  /** Event-loop utilization (0–1) from which the main thread counts as saturated. */
  saturatedLoop?: number;
  /** Idle time, in cores, from which a hand-off has a core to run on. */
  idleCores?: number;
  /** How often the window is renewed, in milliseconds. */
  windowMs?: number;
}

export const DEFAULT_SATURATED_LOOP = 0.9;
export const DEFAULT_IDLE_CORES = 0.5;
/** Long against a query's turn-around and the 10 ms ticks cores' idle time is counted in, short against a change of load worth following. */
export const DEFAULT_WINDOW_MS = 100;

/** What the gate measures; other sources are for tests. */
export interface SaturationProbes {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** The event loop's utilization since the previous call (the first call: since start). */
  loopUtilization(): number;
  /** Idle time of all cores together so far, in milliseconds. */
  coresIdleMs(): number;
}

export class SaturationGate {
  private readonly saturatedLoop: number;
  private readonly idleCores: number;
  private readonly windowMs: number;
  private windowStart: number;
  private idleAtWindowStart: number;
  private handingOff = false;

  constructor(
    options: SaturationGateOptions = {},
    private readonly probes: SaturationProbes = systemProbes(),
  ) {
    this.saturatedLoop = options.saturatedLoop ?? DEFAULT_SATURATED_LOOP;
    this.idleCores = options.idleCores ?? DEFAULT_IDLE_CORES;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.windowStart = probes.now();
    this.idleAtWindowStart = probes.coresIdleMs();
    probes.loopUtilization();
  }

  /** Whether a cheap query may run on the main thread now; `workers` is the pool's size. */
  admits(load: Pick<QueryLoad, 'running'>, workers: number): boolean {
    this.renewWindow();
    return !(this.handingOff && load.running < workers);
  }

  private renewWindow(): void {
    const now = this.probes.now();
    const elapsed = now - this.windowStart;
    if (elapsed < this.windowMs) return;
    const idle = this.probes.coresIdleMs();
    const idleCores = (idle - this.idleAtWindowStart) / elapsed;
    this.handingOff = this.probes.loopUtilization() >= this.saturatedLoop && idleCores >= this.idleCores;
    this.windowStart = now;
    this.idleAtWindowStart = idle;
  }
}

/** This process's event loop and the machine's cores (os.cpus(), read once per window). */
export function systemProbes(): SaturationProbes {
  let previous: EventLoopUtilization | undefined;
  return {
    now: () => performance.now(),
    loopUtilization: () => {
      const current = performance.eventLoopUtilization();
      const utilization = previous ? performance.eventLoopUtilization(current, previous).utilization : current.utilization;
      previous = current;
      return utilization;
    },
    coresIdleMs: () => cpus().reduce((sum, cpu) => sum + cpu.times.idle, 0),
  };
}
