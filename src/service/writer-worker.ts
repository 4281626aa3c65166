/**
 * Entry point of the writer thread: the one writable handle on the store, running updates one at a
 * time, each as one transaction. It lives off the main thread because an update may run long (a
 * big DELETE/INSERT WHERE, a LOAD that parses a large document) and the event loop must keep
 * serving queries, health checks and streaming responses meanwhile. A LOAD's download happens
 * before its update's turn (prepareJob), so a slow document holds up no other write.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/index.js';
import { applyUpdate, hasLoad, prepareUpdate, type PreparedUpdate } from '../engine/index.js';
import type { EngineUpdateOptions } from '../engine/index.js';
import { EvaluationError } from '../errors.js';
import { Semaphore } from './semaphore.js';
import type { QuadStore } from '../store/index.js';
import { serializeError } from './error-transport.js';
import { isCancelRequested } from './flow-control.js';
import type { GraphStoreMessage, RunUpdateMessage, WriterReply, WriterRequest, WriterWorkerData } from './worker-messages.js';
import { runGraphStoreWrite } from './graph-store-writes.js';

const port = parentPort!;
const { path, memory, noSync, control } = workerData as WriterWorkerData;

function post(reply: WriterReply): void {
  port.postMessage(reply);
}

let store: QuadStore;
try {
  store = openStore({ path, memory, noSync });
  post({ type: 'ready', path: store.path });
} catch (error) {
  post({ type: 'startFailed', error: serializeError(error) });
  process.exit(1);
}

port.on('message', (message: WriterRequest) => {
  if (message.type === 'update') void prepareJob(message);
  else if (message.type === 'apply') applyJob(message.jobId);
  else if (message.type === 'cancel') cancelJob(message.jobId);
  else if (message.type === 'graphStore') void runGraphStoreJob(message);
  else if (message.type === 'close') void closeStore();
});

async function closeStore(): Promise<void> {
  await store.close();
  post({ type: 'closed' });
}

/**
 * Updates being prepared, and those prepared that wait for their turn. Preparing (parsing, and
 * fetching and parsing LOAD documents) happens alongside the transactions of other updates: this
 * thread's event loop is free while a download waits on the network, and the transactions are
 * synchronous, so they still run one at a time.
 */
const preparing = new Set<number>();
const cancelled = new Set<number>();
const prepared = new Map<number, { update: PreparedUpdate; options: EngineUpdateOptions; release?: () => void }>();
/**
 * Updates with a LOAD that may hold documents at once, from their download to their commit: each
 * may hold up to --max-fetch-bytes (more once parsed), so they are few; the rest wait for a turn.
 */
const documentHolders = new Semaphore(2);

async function prepareJob(job: RunUpdateMessage): Promise<void> {
  const options: EngineUpdateOptions = {
    baseIri: job.baseIri,
    usingGraphUris: job.usingGraphUris,
    usingNamedGraphUris: job.usingNamedGraphUris,
    unionDefaultGraph: job.unionDefaultGraph,
    deadline: job.deadline,
    memoryBudget: job.memoryBudget,
    isCancelled: () => cancelled.has(job.jobId),
    allowLoad: job.allowLoad,
    loadDirectory: job.loadDirectory,
    fetchSettings: job.fetchSettings,
  };
  preparing.add(job.jobId);
  let release: (() => void) | undefined;
  try {
    const update = await prepareUpdate(job.update, options, async (parsed) => {
      if (hasLoad(parsed)) release = await documentHolders.acquire();
    });
    if (cancelled.has(job.jobId)) return release?.();
    // From now on the update runs as the main thread's current job: its stop flag is the control block.
    prepared.set(job.jobId, { update, options: { ...options, isCancelled: () => isCancelRequested(control) }, release });
    post({ type: 'prepared', jobId: job.jobId });
  } catch (error) {
    release?.();
    if (!cancelled.has(job.jobId)) post({ type: 'error', jobId: job.jobId, error: serializeError(error) });
  } finally {
    preparing.delete(job.jobId);
    cancelled.delete(job.jobId);
  }
}

function applyJob(jobId: number): void {
  const job = prepared.get(jobId);
  prepared.delete(jobId);
  try {
    if (!job) throw new EvaluationError('the update was not prepared');
    const summary = applyUpdate(store, job.update, job.options);
    post({ type: 'done', jobId, result: summary });
  } catch (error) {
    post({ type: 'error', jobId, error: serializeError(error) });
  } finally {
    job?.release?.();
  }
}

/** The main thread gave up on an update (time limit, client gone): it hears nothing more of it. */
function cancelJob(jobId: number): void {
  if (preparing.has(jobId)) cancelled.add(jobId);
  prepared.get(jobId)?.release?.();
  prepared.delete(jobId);
}

async function runGraphStoreJob(job: GraphStoreMessage): Promise<void> {
  try {
    const result = await runGraphStoreWrite(store, job, () => isCancelRequested(control));
    post({ type: 'done', jobId: job.jobId, result });
  } catch (error) {
    post({ type: 'error', jobId: job.jobId, error: serializeError(error) });
  }
}
