/**
 * The single writer, seen from the main thread: updates wait in a FIFO and run one at a time on
 * the writer thread, each as one transaction. An update enters the FIFO once it is prepared: the
 * writer thread parses it and fetches its LOAD documents first, alongside other updates' turns
 * (writer-worker.ts), so an update waits for its own downloads but never for another's.
 *
 * Unlike a query worker, the writer is never terminated to stop a stuck update: killing a thread
 * in the middle of a write transaction could leave the store's write lock held. An update that
 * overruns its time limit or whose client went away is asked to stop: the engine polls the flag and
 * the deadline between batches of its evaluation and every so many quads while it writes, up to its
 * commit, and a stopped update rolls back, its transaction aborted, the writer free for the next.
 * Its caller learns the true outcome (an update whose commit had begun succeeded), so a reported
 * failure always means nothing changed.
 *
 * The time limit counts from the update's arrival (its deadline is set then): waiting in the FIFO
 * counts, and an update whose time runs out there leaves it without touching the store. Each update
 * ahead holds the writer no longer than its own limit, so the wait is bounded, and a client hears
 * back at about its limit at the latest.
 */
import { rm } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import { CancelledError, EvaluationError, OverloadedError, StorageFullError, TimeoutError, type QuiverError } from '../errors.js';
import { hasRoomToWrite } from '../store/index.js';
import { deserializeError } from './error-transport.js';
import { createControlBlock, requestCancel, resetControl, type ControlBlock } from './flow-control.js';
import type { CancelSignal } from './sparql-service.js';
import type { GraphStoreMessage, RunUpdateMessage, WriterReply, WriterRequest, WriterWorkerData } from './worker-messages.js';
import { startWorker, waitForReply } from './worker-startup.js';
import type { UpdateSummary } from '../engine/index.js';

export type UpdateJobSpec = Omit<RunUpdateMessage, 'type' | 'jobId'> & { signal?: CancelSignal };
export type GraphStoreJobSpec = Omit<GraphStoreMessage, 'type' | 'jobId'> & { signal?: CancelSignal };
type JobMessage = Omit<RunUpdateMessage, 'jobId'> | Omit<GraphStoreMessage, 'jobId'>;

export interface UpdateWriterOptions {
  path?: string;
  memory?: boolean;
  noSync?: boolean;
  maxQueue: number;
}

const WORKER_ENTRY = new URL('./writer-worker.js', import.meta.url);

interface UpdateJob {
  id: number;
  message: JobMessage;
  /** An update is prepared on the writer thread before it is queued; a Graph Store write needs no preparing. */
  prepared: boolean;
  signal?: CancelSignal;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  stopReason?: QuiverError;
  timer: NodeJS.Timeout;
  onAbort: () => void;
}

export class UpdateWriter {
  private readonly queue: UpdateJob[] = [];
  /** Updates the writer thread is preparing (parsing, fetching LOAD documents), by id. */
  private readonly preparing = new Map<number, UpdateJob>();
  private current?: UpdateJob;
  private nextId = 1;
  private closing = false;
  /** A write failed for want of space, and the disk has not had room since. */
  private storageFull = false;
  private drained?: () => void;

  private constructor(
    private worker: Worker,
    private control: ControlBlock,
    /** The store's directory: for a memory store, the temporary one the writer created. */
    readonly storePath: string,
    private readonly options: UpdateWriterOptions,
  ) {
    this.listen();
  }

  static async start(options: UpdateWriterOptions): Promise<UpdateWriter> {
    const control = createControlBlock();
    const data: WriterWorkerData = { path: options.path, memory: options.memory, noSync: options.noSync, control };
    const { worker, ready } = await startWorker<{ type: 'ready'; path: string }>(WORKER_ENTRY, data);
    return new UpdateWriter(worker, control, ready.path, options);
  }

  /** False once the writer is closing, or could not be restarted after a crash, or while its disk is full. */
  get writable(): boolean {
    return !this.closing && !this.diskFull;
  }

  /** Whether the store's disk is full: since a write failed for want of space, until there is room again. */
  get diskFull(): boolean {
    if (this.storageFull && hasRoomToWrite(this.storePath)) this.storageFull = false;
    return this.storageFull;
  }

  /** Updates waiting or running. */
  get load(): { running: number; queued: number } {
    return { running: this.current ? 1 : 0, queued: this.queue.length + this.preparing.size };
  }

  /** Runs an update; resolves with what it changed. */
  run(spec: UpdateJobSpec): Promise<UpdateSummary> {
    const { signal, ...rest } = spec;
    return this.enqueue({ type: 'update', ...rest }, signal) as Promise<UpdateSummary>;
  }

  /** A Graph Store Protocol write, queued with the updates; resolves with the writer's result. */
  runGraphStore(spec: GraphStoreJobSpec): Promise<unknown> {
    const { signal, ...rest } = spec;
    return this.enqueue({ type: 'graphStore', ...rest }, signal);
  }

  private enqueue(message: JobMessage, signal: CancelSignal | undefined): Promise<unknown> {
    if (this.closing) return Promise.reject(new OverloadedError('the service is shutting down'));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const waiting = this.queue.length + this.preparing.size;
    if (waiting >= this.options.maxQueue) {
      return Promise.reject(new OverloadedError(`too many updates: ${waiting} are waiting already`));
    }
    return new Promise<unknown>((resolve, reject) => {
      const job: UpdateJob = {
        id: this.nextId++,
        message,
        prepared: message.type !== 'update',
        signal,
        resolve,
        reject,
        timer: setTimeout(() => this.stop(job, new TimeoutError()), Math.max(0, message.deadline - Date.now())),
        onAbort: () => this.stop(job, new CancelledError()),
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      if (job.prepared) {
        this.queue.push(job);
        this.pump();
      } else {
        this.preparing.set(job.id, job);
        this.worker.postMessage({ ...job.message, jobId: job.id } as WriterRequest);
      }
    });
  }

  /**
   * Lets queued and running updates finish until `deadline`, refuses the rest, then closes the
   * store (which removes a memory store's directory).
   */
  async close(deadline: number, graceMs: number): Promise<void> {
    this.closing = true;
    await this.whenIdle(deadline);
    for (const job of this.waitingJobs()) this.drop(job, new OverloadedError('the service is shutting down'));
    if (this.current) this.stop(this.current, new CancelledError('the service is shutting down'));
    await this.whenIdle(Date.now() + graceMs);
    this.worker.postMessage({ type: 'close' });
    await waitForReply(this.worker, 'closed', 5000);
    await this.worker.terminate();
    // A writer restarted after a crash opened the directory by path, so nobody else removes it.
    if (this.options.memory) await rm(this.storePath, { recursive: true, force: true });
  }

  private listen(): void {
    this.worker.on('message', (reply: WriterReply) => this.receive(reply));
    this.worker.on('error', (error) => this.writerDied(new EvaluationError(`the writer crashed: ${String(error)}`)));
    this.worker.on('exit', (code) => this.writerDied(new EvaluationError(`the writer exited (code ${code})`)));
  }

  private receive(reply: WriterReply): void {
    if ('jobId' in reply && this.preparing.has(reply.jobId)) return this.receivePrepared(reply);
    const job = this.current;
    if (!job || !('jobId' in reply) || reply.jobId !== job.id || reply.type === 'prepared') return;
    this.current = undefined;
    if (reply.type === 'done') {
      this.settle(job, undefined, reply.result);
    } else {
      const error = job.stopReason ?? deserializeError(reply.error);
      // Small writes may still fit in pages LMDB freed; the disk counts as full until it has room.
      if (error instanceof StorageFullError) this.storageFull = true;
      this.settle(job, error);
    }
    this.pump();
  }

  /** An update is prepared (it takes its place in the FIFO), or failed to be (it is settled). */
  private receivePrepared(reply: WriterReply & { jobId: number }): void {
    const job = this.preparing.get(reply.jobId)!;
    this.preparing.delete(job.id);
    if (reply.type === 'prepared') this.queue.push(job);
    else if (reply.type === 'error') this.settle(job, job.stopReason ?? deserializeError(reply.error));
    this.pump();
  }

  private pump(): void {
    if (this.current) return;
    const job = this.queue.shift();
    if (!job) {
      if (this.preparing.size === 0) this.drained?.();
      return;
    }
    this.current = job;
    resetControl(this.control);
    const message = job.message.type === 'update' ? { type: 'apply', jobId: job.id } : { ...job.message, jobId: job.id };
    this.worker.postMessage(message as WriterRequest);
  }

  /** Queued and preparing jobs. */
  private waitingJobs(): UpdateJob[] {
    return [...this.queue, ...this.preparing.values()];
  }

  /** Takes a job that has not started its transaction out of the writer's hands, and settles it. */
  private drop(job: UpdateJob, reason: Error): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.preparing.delete(job.id);
    // The writer thread forgets it: stops its downloads, or drops what it prepared.
    if (job.message.type === 'update') this.worker.postMessage({ type: 'cancel', jobId: job.id } as WriterRequest);
    this.settle(job, reason);
  }

  /** A queued update leaves the queue; a running one is asked to stop and reports back. */
  private stop(job: UpdateJob, reason: QuiverError): void {
    if (job.stopReason) return;
    job.stopReason = reason;
    if (this.current === job) {
      requestCancel(this.control);
    } else if (this.queue.includes(job) || this.preparing.has(job.id)) {
      this.drop(job, reason);
      this.pump();
    }
  }

  private settle(job: UpdateJob, error?: Error, result?: unknown): void {
    clearTimeout(job.timer);
    job.signal?.removeEventListener('abort', job.onAbort);
    if (error) job.reject(error);
    else job.resolve(result);
  }

  /**
   * The writer thread is gone (a crash, not a stop we asked for). Its transaction died with it, so
   * the running update failed; a new writer takes over the same store.
   */
  private writerDied(reason: QuiverError): void {
    if (this.closing && !this.current) return;
    const job = this.current;
    this.current = undefined;
    if (job) this.settle(job, reason);
    // What the thread prepared died with it; Graph Store writes carry their documents and can wait.
    for (const waiting of this.waitingJobs()) if (waiting.message.type === 'update') this.forget(waiting, reason);
    if (this.closing) return;
    this.worker.removeAllListeners();
    void this.restart();
  }

  private async restart(): Promise<void> {
    try {
      const control = createControlBlock();
      const data: WriterWorkerData = { path: this.storePath, noSync: this.options.noSync, control };
      const { worker } = await startWorker(WORKER_ENTRY, data);
      this.worker = worker;
      this.control = control;
      this.listen();
      // Updates that arrived while the writer restarted were posted to the dead one: prepare them here.
      for (const job of this.preparing.values()) this.worker.postMessage({ ...job.message, jobId: job.id } as WriterRequest);
      this.pump();
    } catch (error) {
      const reason = new EvaluationError(`the writer could not be restarted: ${(error as Error).message}`);
      for (const job of this.waitingJobs()) this.forget(job, reason);
      this.closing = true;
    }
  }

  /** Settles a waiting job without telling the writer thread (which is gone). */
  private forget(job: UpdateJob, reason: Error): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.preparing.delete(job.id);
    this.settle(job, reason);
  }

  /** Resolves when nothing runs, waits or is being prepared, or at the deadline. */
  whenIdle(deadline: number): Promise<void> {
    if (!this.current && this.queue.length === 0 && this.preparing.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      function finish(): void {
        clearTimeout(timer);
        resolve();
      }
      this.drained = finish;
    });
  }
}
