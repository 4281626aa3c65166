/**
 * Entry point of the writer thread: the one writable handle on the store, running updates one at a
 * time, each as one transaction. It lives off the main thread because an update may run long (a
 * big DELETE/INSERT WHERE, a LOAD that fetches and parses a large document) and the event loop must
 * keep serving queries, health checks and streaming responses meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/lmdb-store.js';
import { runUpdate } from '../engine/query-engine.js';
import type { QuadStore } from '../store/quad-store.js';
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
  if (message.type === 'update') void runJob(message);
  else if (message.type === 'graphStore') void runGraphStoreJob(message);
  else if (message.type === 'close') void closeStore();
});

async function closeStore(): Promise<void> {
  await store.close();
  post({ type: 'closed' });
}

async function runJob(job: RunUpdateMessage): Promise<void> {
  try {
    await runUpdate(store, job.update, {
      baseIri: job.baseIri,
      usingGraphUris: job.usingGraphUris,
      usingNamedGraphUris: job.usingNamedGraphUris,
      deadline: job.deadline,
      isCancelled: () => isCancelRequested(control),
      allowLoad: job.allowLoad,
      loadDirectory: job.loadDirectory,
    });
    post({ type: 'done', jobId: job.jobId });
  } catch (error) {
    post({ type: 'error', jobId: job.jobId, error: serializeError(error) });
  }
}

async function runGraphStoreJob(job: GraphStoreMessage): Promise<void> {
  try {
    const result = await runGraphStoreWrite(store, job, () => isCancelRequested(control));
    post({ type: 'done', jobId: job.jobId, result });
  } catch (error) {
    post({ type: 'error', jobId: job.jobId, error: serializeError(error) });
  }
}
