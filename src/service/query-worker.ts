/**
 * Entry point of a query worker thread: a read-only handle on the store, one query at a time,
 * evaluated synchronously batch by batch. Rows leave in messages of a bounded size; the worker
 * blocks (see flow-control.ts) rather than run ahead of a slow consumer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/lmdb-store.js';
import { runQuery } from '../engine/query-engine.js';
import { explainQuery } from '../engine/explain.js';
import type { QuadStore } from '../store/quad-store.js';
import { serializeError } from './error-transport.js';
import { isCancelRequested, recordBatchSent, waitForCredit } from './flow-control.js';
import { TermTableEncoder } from './term-table.js';
import type { QueryWorkerData, QueryWorkerReply, QueryWorkerRequest, ResultHead, RunQueryMessage } from './worker-messages.js';

/** Cells per message: large enough to amortize a message, small enough to stream smoothly. */
const CELLS_PER_MESSAGE = 32_768;
/** Rows never wait longer than this for company before they are sent. */
const FLUSH_INTERVAL_MS = 50;

const port = parentPort!;
const { storePath, control, window } = workerData as QueryWorkerData;

function post(reply: QueryWorkerReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(reply, transfer);
}

let store: QuadStore;
try {
  store = openStore({ path: storePath, readOnly: true });
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'startFailed', error: serializeError(error) });
  process.exit(1);
}

port.on('message', (message: QueryWorkerRequest) => {
  if (message.type === 'run') void runJob(message);
  else if (message.type === 'close') void closeStore();
});

async function closeStore(): Promise<void> {
  await store.close();
  post({ type: 'closed' });
}

async function runJob(job: RunQueryMessage): Promise<void> {
  const { jobId } = job;
  const started = performance.now();
  const busyMs = (): number => performance.now() - started;
  try {
    const options = {
      baseIri: job.baseIri,
      defaultGraphUris: job.defaultGraphUris,
      namedGraphUris: job.namedGraphUris,
      deadline: job.deadline,
      memoryBudget: job.memoryBudget,
      isCancelled: () => isCancelRequested(control),
    };
    if (job.explain) {
      post({ type: 'explain', jobId, explanation: await explainQuery(store, job.query, options) });
      return;
    }
    const result = await runQuery(store, job.query, options);
    if (result.kind === 'boolean') {
      post({ type: 'boolean', jobId, value: result.value, busyMs: busyMs() });
      return;
    }
    if (result.kind === 'bindings') {
      const encoder = new TermTableEncoder(result.variables.length, rowsPerMessage(result.variables.length));
      streamBatches(job, { kind: 'bindings', variables: result.variables }, encoder, result.rows, (row) => encoder.addRow(row), busyMs);
    } else {
      const encoder = new TermTableEncoder(4, rowsPerMessage(4));
      streamBatches(job, { kind: 'quads', prefixes: result.prefixes }, encoder, result.quads, (quad) => encoder.addQuad(quad), busyMs);
    }
  } catch (error) {
    post({ type: 'error', jobId, error: serializeError(error) });
  }
}

function rowsPerMessage(width: number): number {
  return Math.max(1, Math.floor(CELLS_PER_MESSAGE / Math.max(1, width)));
}

/**
 * Gathers the engine's batches into messages. The first rows go out at once (a client sees the
 * answer start); after that a message fills up to CELLS_PER_MESSAGE or FLUSH_INTERVAL_MS.
 * Leaving the loop early (cancelled, timed out) returns the engine's iterator, which ends its work.
 */
function streamBatches<T>(
  job: RunQueryMessage,
  head: ResultHead,
  encoder: TermTableEncoder,
  batches: Iterable<T[]>,
  add: (item: T) => void,
  busyMs: () => number,
): void {
  const limit = rowsPerMessage(encoder.width);
  let lastFlush = 0;
  let headSent = false;
  const flush = (last: boolean): void => {
    waitForCredit(control, window, job.deadline);
    const batch = encoder.take();
    lastFlush = Date.now();
    const reply: QueryWorkerReply = { type: 'batch', jobId: job.jobId, head: headSent ? undefined : head, batch, last };
    if (last) reply.busyMs = busyMs();
    post(reply, [batch.cells.buffer as ArrayBuffer]);
    headSent = true;
    recordBatchSent(control);
  };
  for (const engineBatch of batches) {
    for (const item of engineBatch) {
      add(item);
      if (encoder.rowCount >= limit) flush(false);
    }
    if (encoder.rowCount > 0 && Date.now() - lastFlush >= FLUSH_INTERVAL_MS) flush(false);
  }
  if (encoder.rowCount > 0) flush(true);
  else if (!headSent) post({ type: 'batch', jobId: job.jobId, head, last: true, busyMs: busyMs() });
  else post({ type: 'end', jobId: job.jobId, busyMs: busyMs() });
}
