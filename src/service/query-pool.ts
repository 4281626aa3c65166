/**
 * The query workers and the queue in front of them: at most one query per worker, a bounded wait
 * queue behind them, and a replacement for any worker that crashes or will not stop when told.
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { CancelledError, EvaluationError, OverloadedError, ResourceLimitError, type QuiverError } from '../errors.js';
import { acknowledgeBatch, createControlBlock, requestCancel, resetControl, type ControlBlock } from './flow-control.js';
import { QueryJob, type QueryJobSpec } from './query-job.js';
import type { QueryResult } from './sparql-service.js';
import type { QueryWorkerData, QueryWorkerReply } from './worker-messages.js';
import { startWorker, waitForReply } from './worker-startup.js';
import type { MemoryAdmission } from './memory-admission.js';

export interface QueryPoolOptions {
  storePath: string;
  size: number;
  maxQueue: number;
  /** How long a cancelled query may take to stop before its worker is terminated. */
  cancelGraceMs: number;
  /** Unacknowledged batches a worker may have in flight. */
  window: number;
  resourceLimits?: ResourceLimits;
  /** Bytes of join tables each worker keeps for later queries (the engine's default if unset). */
  joinTableCacheBytes?: number;
  /** Growth of a worker's memory after which a job's end collects its garbage (heap-release.ts's default if unset). */
  releaseGrowthBytes?: number;
  /** The process-wide memory budget, and what each query reserves of it while it runs on a worker. */
  memory?: { admission: MemoryAdmission; perQuery: number };
}

export interface QueryLoad {
  running: number;
  queued: number;
  replacedWorkers: number;
}

const WORKER_ENTRY = new URL('./query-worker.js', import.meta.url);
const RESTART_DELAY_MS = 1000;

/** One worker thread, from start to termination; a replacement is a new QueryWorker. */
class QueryWorker {
  job?: QueryJob;
  private graceTimer?: NodeJS.Timeout;
  retired = false;
  /**
   * From the end of a job until the worker says it has settled: it may still be collecting the
   * job's garbage (heap-release.ts), two full collections that took ~280 ms after an aggregate over
   * ten million rows, which a query given to it meanwhile would wait for.
   */
  settling = false;
  /** Gives back the job's share of the process memory budget, when it took one. */
  releaseMemory?: () => void;

  constructor(
    readonly worker: Worker,
    readonly control: ControlBlock,
    private readonly graceMs: number,
  ) {}

  get idle(): boolean {
    return !this.job && !this.retired;
  }

  run(job: QueryJob, onUnresponsive: (w: QueryWorker) => void): void {
    this.job = job;
    resetControl(this.control);
    job.startedOn({
      acknowledge: () => acknowledgeBatch(this.control),
      cancel: () => {
        requestCancel(this.control);
        this.graceTimer ??= setTimeout(() => onUnresponsive(this), this.graceMs);
      },
    });
    this.worker.postMessage(job.runMessage);
  }

  jobOver(): void {
    this.settling = true;
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.job = undefined;
    const release = this.releaseMemory;
    this.releaseMemory = undefined;
    release?.();
  }
}

export class QueryPool {
  private readonly workers = new Set<QueryWorker>();
  private readonly queue: QueryJob[] = [];
  private closing = false;
  private readonly idleWaiters: (() => void)[] = [];
  private replacedWorkers = 0;
  /** Set while queued queries wait for room in the memory budget (not for a worker). */
  private stopWaitingForMemory?: () => void;

  private constructor(private readonly options: QueryPoolOptions) {}

  static async start(options: QueryPoolOptions): Promise<QueryPool> {
    const pool = new QueryPool(options);
    try {
      await Promise.all(Array.from({ length: options.size }, () => pool.addWorker()));
    } catch (error) {
      await pool.terminateAll();
      throw error;
    }
    return pool;
  }

  /** Worker threads, i.e. queries evaluated at once. */
  get size(): number {
    return this.options.size;
  }

  /** Queries running now and waiting, and workers replaced so far (stuck or crashed). */
  get load(): QueryLoad {
    let running = 0;
    for (const w of this.workers) if (w.job) running++;
    return { running, queued: this.queue.length, replacedWorkers: this.replacedWorkers };
  }

  run(spec: QueryJobSpec): Promise<QueryResult> {
    if (this.closing) return Promise.reject(new OverloadedError('the service is shutting down'));
    if (spec.signal?.aborted) return Promise.reject(new CancelledError());
    // Queries waiting for memory go first: an idle worker is not enough to overtake them.
    const idle = this.queue.length === 0 ? this.idleWorker() : undefined;
    const reservation = idle ? this.reserveMemory() : undefined;
    if (!reservation && this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new OverloadedError(`too many queries: ${this.queue.length} are waiting already`));
    }
    if (!reservation && this.options.memory?.admission.overLimit) {
      return Promise.reject(new OverloadedError('the server is over its memory limit (--max-memory); try again later'));
    }
    const job = new QueryJob(spec, (j) => this.jobStopped(j));
    if (idle && reservation) this.dispatch(idle, job, reservation);
    else {
      this.queue.push(job);
      if (idle) this.waitForMemory();
    }
    return job.result;
  }

  /**
   * Stops taking queries, lets running ones finish until `deadline` (they may still be streaming to
   * their clients), then cancels what is left and ends every worker.
   */
  async close(deadline: number): Promise<void> {
    this.closing = true;
    for (const job of this.queue.splice(0)) job.stop(new OverloadedError('the service is shutting down'));
    this.stopWaiting();
    await this.whenIdle(deadline);
    for (const w of this.workers) w.job?.stop(new CancelledError('the service is shutting down'));
    await this.whenIdle(Date.now() + this.options.cancelGraceMs);
    await Promise.all(
      [...this.workers].map(async (w) => {
        w.retired = true;
        w.worker.postMessage({ type: 'close' });
        await waitForReply(w.worker, 'closed', 1000);
        await w.worker.terminate();
      }),
    );
    this.workers.clear();
  }

  private async addWorker(): Promise<void> {
    const control = createControlBlock();
    const data: QueryWorkerData = {
      storePath: this.options.storePath,
      control,
      window: this.options.window,
      joinTableCacheBytes: this.options.joinTableCacheBytes,
      releaseGrowthBytes: this.options.releaseGrowthBytes,
    };
    const { worker } = await startWorker(WORKER_ENTRY, data, this.options.resourceLimits);
    const w = new QueryWorker(worker, control, this.options.cancelGraceMs);
    if (this.closing) {
      await worker.terminate();
      return;
    }
    this.workers.add(w);
    worker.on('message', (reply: QueryWorkerReply) => {
      if (reply.type === 'settled') w.settling = false;
      else if ('jobId' in reply && w.job?.id === reply.jobId) w.job.receive(reply);
    });
    worker.on('error', (error: Error & { code?: string }) => this.workerDied(w, crashReason(error)));
    worker.on('exit', (code) => this.workerDied(w, new EvaluationError(`a query worker exited (code ${code})`)));
    this.pump();
  }

  private idleWorker(): QueryWorker | undefined {
    return pickIdleWorker(this.workers);
  }

  private dispatch(w: QueryWorker, job: QueryJob, reservation: Reservation): void {
    w.releaseMemory = reservation.release;
    w.run(job, (stuck) => this.replace(stuck, job.stopReason ?? new CancelledError()));
  }

  /** A share of the process memory budget for one query, or undefined when it does not fit now. */
  private reserveMemory(): Reservation | undefined {
    const memory = this.options.memory;
    if (!memory) return NO_RESERVATION;
    if (!memory.admission.tryReserve(memory.perQuery)) return undefined;
    return { release: () => memory.admission.release(memory.perQuery) };
  }

  /** Looks at the queue again whenever the budget may have room. */
  private waitForMemory(): void {
    this.stopWaitingForMemory ??= this.options.memory?.admission.whenRoom(() => this.pump());
  }

  private stopWaiting(): void {
    this.stopWaitingForMemory?.();
    this.stopWaitingForMemory = undefined;
  }

  private jobStopped(job: QueryJob): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      if (this.queue.length === 0) this.stopWaiting();
      return;
    }
    for (const w of this.workers) {
      if (w.job === job) {
        w.jobOver();
        break;
      }
    }
    this.pump();
  }

  private pump(): void {
    let waitingForMemory = false;
    for (let w = this.idleWorker(); w && this.queue.length > 0; w = this.idleWorker()) {
      const reservation = this.reserveMemory();
      if (!reservation) {
        waitingForMemory = true;
        break;
      }
      this.dispatch(w, this.queue.shift()!, reservation);
    }
    if (waitingForMemory) this.waitForMemory();
    else this.stopWaiting();
    if (this.queue.length === 0 && this.load.running === 0) {
      for (const notify of this.idleWaiters.splice(0)) notify();
    }
  }

  /** A worker that does not stop in time, evaluating who knows what: end it, start another. */
  private replace(w: QueryWorker, reason: QuiverError): void {
    this.retire(w, reason);
    void w.worker.terminate();
  }

  private workerDied(w: QueryWorker, reason: QuiverError): void {
    if (w.retired) return;
    this.retire(w, reason);
  }

  private retire(w: QueryWorker, reason: QuiverError): void {
    if (w.retired) return;
    w.retired = true;
    this.workers.delete(w);
    const job = w.job;
    w.jobOver();
    job?.abandonOnWorker(reason);
    if (!this.closing) {
      this.replacedWorkers++;
      this.startReplacement();
    }
    this.pump();
  }

  private startReplacement(): void {
    this.addWorker().catch(() => {
      if (!this.closing) setTimeout(() => this.startReplacement(), RESTART_DELAY_MS).unref();
    });
  }

  private whenIdle(deadline: number): Promise<void> {
    if (this.load.running === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async terminateAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.workers].map((w) => w.worker.terminate()));
    this.workers.clear();
  }
}

/** A worker's hold on the memory budget. */
interface Reservation {
  release: () => void;
}

const NO_RESERVATION: Reservation = { release: () => undefined };

function crashReason(error: Error & { code?: string }): QuiverError {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    // Memory the engine's accounting missed: the worker's heap limit, set from the budget, caught it.
    return new ResourceLimitError('the query ran out of memory: it needs more than its memory budget allows its worker');
  }
  return new EvaluationError(`a query worker crashed: ${error.message}`);
}

/**
 * An idle worker, preferring one that has settled after its last job: the same worker again when
 * it has (it keeps its join tables and term cache warm for a lone client's next query), another
 * one while it may be collecting the last job's garbage, and a settling one when no other is idle.
 */
export function pickIdleWorker<W extends { readonly idle: boolean; readonly settling: boolean }>(workers: Iterable<W>): W | undefined {
  let settling: W | undefined;
  for (const w of workers) {
    if (!w.idle) continue;
    if (!w.settling) return w;
    settling ??= w;
  }
  return settling;
}
