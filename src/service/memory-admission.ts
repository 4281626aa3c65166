/**
 * The process-wide memory budget (`quiver serve --max-memory`): work that may take much memory (a
 * query on a worker, an update) is admitted only when what it reserves fits beside what the process
 * holds now and what the work already admitted has reserved. Work that does not fit waits (a query
 * in the pool's queue, an update here) until some finishes; beyond the queues it is refused (503).
 *
 * A reservation is what the work may add at worst (worker-heap.ts), so the measure of what the
 * process holds counts running work twice over (in the measure and in its reservation): the
 * budget errs on the side of the limit. One piece of work is always admitted when nothing else is
 * reserved, so that a process that holds much for its own reasons still answers, one at a time.
 */
import { CancelledError, TimeoutError } from '../errors.js';
import { residentBytes } from './resident-memory.js';
import type { CancelSignal } from './sparql-service.js';

/** How often waiting work looks again while nothing finishes (the process may shrink by itself). */
const RECHECK_MS = 50;
/** The least time between two reclaims (each is a pause of the thread that makes it). */
const RECLAIM_INTERVAL_MS = 1000;

export class MemoryAdmission {
  private reserved = 0;
  private holders = 0;
  private readonly listeners = new Set<() => void>();
  private recheck?: NodeJS.Timeout;
  private lastReclaim = 0;

  constructor(
    /** Bytes the process should stay under. */
    readonly limit: number,
    private readonly measure: () => number = residentBytes,
    /** Gives back memory the process holds but no longer uses (garbage), before work is refused for want of it. */
    private readonly reclaim?: () => void,
  ) {}

  /** Reservations held now, and their bytes (for metrics). */
  get load(): { holders: number; reservedBytes: number } {
    return { holders: this.holders, reservedBytes: this.reserved };
  }

  /**
   * Whether the process holds more than the limit already, reservations aside: then even waiting is
   * refused (a waiting request holds its text, and the queue would grow the process further).
   */
  get overLimit(): boolean {
    return this.measure() > this.limit;
  }

  /** What the process holds now, as the budget measures it. */
  get residentBytes(): number {
    return this.measure();
  }

  /** Takes `bytes` of the budget when they fit (or when nothing is reserved); false otherwise. */
  tryReserve(bytes: number): boolean {
    if (this.holders > 0 && !this.fits(bytes) && !(this.reclaimed() && this.fits(bytes))) return false;
    this.reserved += bytes;
    this.holders++;
    return true;
  }

  private fits(bytes: number): boolean {
    return this.measure() + this.reserved + bytes <= this.limit;
  }

  /** Reclaims, unless it did so lately; returns whether it did. */
  private reclaimed(): boolean {
    if (!this.reclaim || Date.now() - this.lastReclaim < RECLAIM_INTERVAL_MS) return false;
    this.lastReclaim = Date.now();
    this.reclaim();
    return true;
  }

  /** Gives back a reservation made by tryReserve, and lets waiting work look again. */
  release(bytes: number): void {
    this.reserved = Math.max(0, this.reserved - bytes);
    this.holders = Math.max(0, this.holders - 1);
    this.notify();
  }

  /**
   * Calls `listener` whenever there may be room: at each release, and every RECHECK_MS while it is
   * registered. Returns the function that unregisters it.
   */
  whenRoom(listener: () => void): () => void {
    this.listeners.add(listener);
    this.recheck ??= setInterval(() => this.notify(), RECHECK_MS);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopRechecking();
    };
  }

  /**
   * Waits until `bytes` fit; resolves with the function that gives them back (call it once). Rejects
   * with CancelledError when the signal aborts, TimeoutError at the deadline.
   */
  reserve(bytes: number, until: { signal?: CancelSignal; deadline?: number } = {}): Promise<() => void> {
    const granted = (): (() => void) => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.release(bytes);
      };
    };
    if (until.signal?.aborted) return Promise.reject(new CancelledError());
    if (this.tryReserve(bytes)) return Promise.resolve(granted());
    return new Promise((resolve, reject) => {
      const give = (outcome: () => void): void => {
        stop();
        clearTimeout(timer);
        until.signal?.removeEventListener('abort', aborted);
        outcome();
      };
      const stop = this.whenRoom(() => {
        if (this.tryReserve(bytes)) give(() => resolve(granted()));
      });
      const aborted = (): void => give(() => reject(new CancelledError()));
      const timer =
        until.deadline === undefined ? undefined : setTimeout(() => give(() => reject(new TimeoutError())), Math.max(0, until.deadline - Date.now()));
      until.signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
    if (this.listeners.size === 0) this.stopRechecking();
  }

  private stopRechecking(): void {
    clearInterval(this.recheck);
    this.recheck = undefined;
  }
}
