/**
 * A server process seen from outside while a suite attacks it: its resident memory and open file
 * descriptors, sampled from /proc/<pid>, and whether {base}/health answers, polled on a timer of its
 * own, so that a server that stalls shows as failed health checks rather than as a slow test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ServerProcess } from './server-process.js';
import { sleep } from './sparql-client.js';

export interface HealthRecord {
  checks: number;
  /** One line per check that did not answer 200 in time: when, and what came instead. */
  failures: string[];
  slowestMs: number;
}

export interface ProcessWatch {
  /** The highest resident set seen, in MiB; undefined without /proc. */
  peakRssMb(): number | undefined;
  /** Resident set now, in MiB. */
  rssMb(): number | undefined;
  /** Open file descriptors now (sockets included). */
  openFiles(): number | undefined;
  health: HealthRecord;
  stop(): Promise<void>;
}

export interface WatchOptions {
  sampleEveryMs?: number;
  healthEveryMs?: number;
  /** A health check slower than this counts as failed. */
  healthTimeoutMs?: number;
}

export function watchProcess(server: ServerProcess, options: WatchOptions = {}): ProcessWatch {
  const pid = server.child.pid!;
  const { sampleEveryMs = 200, healthEveryMs = 250, healthTimeoutMs = 5000 } = options;
  let peak: number | undefined;
  const sample = (): void => {
    const rss = residentMb(pid);
    if (rss !== undefined && (peak === undefined || rss > peak)) peak = rss;
  };
  sample();
  const sampler = setInterval(sample, sampleEveryMs);
  const health: HealthRecord = { checks: 0, failures: [], slowestMs: 0 };
  const started = Date.now();
  let running = true;
  const poller = (async () => {
    while (running && server.alive()) {
      const t0 = Date.now();
      const outcome = await checkHealth(server.origin, healthTimeoutMs);
      const ms = Date.now() - t0;
      health.checks++;
      health.slowestMs = Math.max(health.slowestMs, ms);
      if (outcome !== 200) health.failures.push(`${((t0 - started) / 1000).toFixed(1)} s: ${outcome} after ${ms} ms`);
      await sleep(healthEveryMs);
    }
  })();
  return {
    peakRssMb: () => peak,
    rssMb: () => residentMb(pid),
    openFiles: () => openFiles(pid),
    health,
    stop: async () => {
      running = false;
      clearInterval(sampler);
      sample();
      await poller;
    },
  };
}

async function checkHealth(origin: string, timeoutMs: number): Promise<number | string> {
  try {
    const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : String((error as Error).cause ?? error);
  }
}

/** VmRSS of a process, in MiB. */
export function residentMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

function openFiles(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}
