/**
 * Progress of `quiver load` on standard error: on a terminal a bar redrawn in place (statements,
 * statements per second, bytes read of the total, time left); otherwise, for logs, a plain line
 * every few seconds. Updates come from the loader and are throttled here.
 */
import type { LoadProgress } from '../loader/index.js';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const TTY_INTERVAL_MS = 200;
const LOG_INTERVAL_MS = 5000;
const BAR_WIDTH = 24;

export class ProgressReporter {
  private readonly started = Date.now();
  private lastShown = 0;
  private drawn = false;

  constructor(
    private readonly out: ProgressOutput,
    private readonly label: string,
    /** Bytes of the source, when known (not for standard input). */
    private readonly totalBytes: number | undefined,
    private readonly now: () => number = Date.now,
    /** Overrides the interval between updates (tests shorten it). */
    private readonly intervalMs?: number,
  ) {
    this.lastShown = this.now();
  }

  update(progress: LoadProgress): void {
    const now = this.now();
    const interval = this.intervalMs ?? (this.out.isTTY ? TTY_INTERVAL_MS : LOG_INTERVAL_MS);
    if (now - this.lastShown < interval) return;
    this.lastShown = now;
    if (this.out.isTTY) {
      this.out.write(`\r${this.line(progress, now)}\x1b[K`);
      this.drawn = true;
    } else {
      this.out.write(`${this.line(progress, now)}\n`);
    }
  }

  /** Ends the bar with a summary line. */
  finish(summary: string): void {
    this.out.write(`${this.drawn ? '\r\x1b[K' : ''}${summary}\n`);
  }

  /** Clears the bar, e.g. before an error message. */
  clear(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }

  line(progress: LoadProgress, now = this.now()): string {
    const seconds = Math.max((now - this.started) / 1000, 1e-3);
    const rate = progress.statements / seconds;
    const parts = [`${this.label}: ${formatCount(progress.statements)} statements`, `${formatCount(Math.round(rate))}/s`];
    const total = this.totalBytes;
    if (total !== undefined && total > 0) {
      const fraction = Math.min(progress.bytesRead / total, 1);
      parts.push(`${formatBytes(progress.bytesRead)} of ${formatBytes(total)}`);
      const left = fraction > 0 ? (seconds * (1 - fraction)) / fraction : undefined;
      parts.push(left === undefined ? 'time left unknown' : `${formatDuration(left)} left`);
      if (this.out.isTTY) parts.unshift(bar(fraction));
    } else {
      parts.push(`${formatBytes(progress.bytesRead)} read`);
    }
    if (progress.skipped > 0) parts.push(`${formatCount(progress.skipped)} skipped`);
    return parts.join('  ');
  }
}

function bar(fraction: number): string {
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}
