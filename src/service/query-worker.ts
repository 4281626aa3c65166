/**
 * Entry point of a query worker thread: a read-only handle on the store, one query at a time,
 * evaluated synchronously batch by batch. Rows leave in messages of a bounded size; the worker
 * blocks (see flow-control.ts) rather than run ahead of a slow consumer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/index.js';
import { runQuery } from '../engine/index.js';
import { explainQuery } from '../engine/index.js';
import { setJoinTableCacheBytes } from '../engine/index.js';
import type { QuadStore } from '../store/index.js';
import { serializeError } from './error-transport.js';
import { isCancelRequested, recordBatchSent, waitForCredit } from './flow-control.js';
import { TermTableEncoder } from './transfer-term-table.js';
import { isDocumentFormat, quadsDocument, solutionsDocument } from '../formats/index.js';
import type { QueryWorkerData, QueryWorkerReply, QueryWorkerRequest, ResultHead, RunQueryMessage } from './worker-messages.js';
import type { SolutionRow } from './sparql-service.js';
import type { Quad } from '../rdf/index.js';
import { keepQueryGarbageYoung } from './young-generation.js';
import { releaseGarbageAfterJob, setReleaseGrowth } from './heap-release.js';

/** Cells per message: large enough to amortize a message, small enough to stream smoothly. */
const CELLS_PER_MESSAGE = 32_768;
/** Rows never wait longer than this for company before they are sent. */
const FLUSH_INTERVAL_MS = 50;

const port = parentPort!;
const { storePath, control, window, joinTableCacheBytes, releaseGrowthBytes } = workerData as QueryWorkerData;
if (joinTableCacheBytes !== undefined) setJoinTableCacheBytes(joinTableCacheBytes);
if (releaseGrowthBytes !== undefined) setReleaseGrowth(releaseGrowthBytes);

function post(reply: QueryWorkerReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(reply, transfer);
}

keepQueryGarbageYoung();

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
      unionDefaultGraph: job.unionDefaultGraph,
      deadline: job.deadline,
      memoryBudget: job.memoryBudget,
      fetchSettings: job.fetchSettings,
      allowService: job.allowService,
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
      const { variables } = result;
      const encoder = new TermTableEncoder(variables.length, rowsPerMessage(variables.length));
      const format = documentFormat(job.documentFormats?.solutions);
      const write = format === undefined ? undefined : (rows: SolutionRow[]) => solutionsDocument(format, variables, rows);
      streamBatches(job, { kind: 'bindings', variables }, encoder, result.rows, (row) => encoder.addRow(row), busyMs, write);
    } else {
      const { prefixes } = result;
      const encoder = new TermTableEncoder(4, rowsPerMessage(4));
      const format = documentFormat(job.documentFormats?.quads);
      const write = format === undefined ? undefined : (quads: Quad[]) => quadsDocument(format, prefixes, quads);
      streamBatches(job, { kind: 'quads', prefixes }, encoder, result.quads, (quad) => encoder.addQuad(quad), busyMs, write);
    }
  } catch (error) {
    post({ type: 'error', jobId, error: serializeError(error) });
  } finally {
    // After the job's last message, so its client does not wait for it; the pool learns when it is
    // done, and meanwhile gives the next query to another worker if one is idle.
    releaseGarbageAfterJob();
    post({ type: 'settled' });
  }
}

function rowsPerMessage(width: number): number {
  return Math.max(1, Math.floor(CELLS_PER_MESSAGE / Math.max(1, width)));
}

/**
 * Gathers the engine's batches into messages: a message fills up to CELLS_PER_MESSAGE, or goes
 * out FLUSH_INTERVAL_MS after the previous one (or the start), so a client of a slow query sees its
 * answer start, and a result ready within that time is one message (head, rows and end).
 * Leaving the loop early (cancelled, timed out) returns the engine's iterator, which ends its work.
 * With `write`, a result that ends within its first message also goes out written as a document:
 * its items are kept until then (a message's worth at most).
 */
function streamBatches<T>(
  job: RunQueryMessage,
  head: ResultHead,
  encoder: TermTableEncoder,
  batches: Iterable<T[]>,
  add: (item: T) => void,
  busyMs: () => number,
  write?: (items: T[]) => Uint8Array,
): void {
  const limit = rowsPerMessage(encoder.width);
  let lastFlush = Date.now();
  let headSent = false;
  let held: T[] | undefined = write ? [] : undefined;
  const flush = (last: boolean): void => {
    waitForCredit(control, window, job.deadline);
    const batch = encoder.take();
    lastFlush = Date.now();
    const reply: QueryWorkerReply = { type: 'batch', jobId: job.jobId, head: headSent ? undefined : head, batch, last };
    const transfer = [batch.cells.buffer as ArrayBuffer];
    if (last) reply.busyMs = busyMs();
    const document = last && held && write ? documentOf(held, write) : undefined;
    if (document) {
      reply.document = document;
      transfer.push(document.buffer as ArrayBuffer);
    }
    held = undefined;
    post(reply, transfer);
    headSent = true;
    recordBatchSent(control);
  };
  for (const engineBatch of batches) {
    for (const item of engineBatch) {
      add(item);
      held?.push(item);
      if (encoder.rowCount >= limit) flush(false);
    }
    if (encoder.rowCount > 0 && Date.now() - lastFlush >= FLUSH_INTERVAL_MS) flush(false);
  }
  if (encoder.rowCount > 0) flush(true);
  else if (!headSent) {
    const reply: QueryWorkerReply = { type: 'batch', jobId: job.jobId, head, last: true, busyMs: busyMs() };
    const document = write ? documentOf([], write) : undefined;
    if (document) reply.document = document;
    post(reply, document ? [document.buffer as ArrayBuffer] : []);
  } else post({ type: 'end', jobId: job.jobId, busyMs: busyMs() });
}

/** A format the worker may write (not HTML); unknown names are left to the main thread too. */
function documentFormat(format: string | undefined): string | undefined {
  return format !== undefined && isDocumentFormat(format) ? format : undefined;
}

/** Undefined when the format cannot hold these items: the main thread then writes them and reports why. */
function documentOf<T>(items: T[], write: (items: T[]) => Uint8Array): Uint8Array | undefined {
  try {
    return write(items);
  } catch {
    return undefined;
  }
}
