/**
 * Worker thread that runs tests one at a time for the runner. The engine evaluates synchronously,
 * so only a separate thread lets the runner stop a test that hangs: it terminates this worker and
 * starts another.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TestExecutor, type ExecutionOptions } from './execute.js';
import type { TestCase } from './manifest.js';

export type ToWorker = { type: 'run'; test: TestCase } | { type: 'stop' };
export type FromWorker = { type: 'ready' } | { type: 'done'; id: string; status: 'pass' | 'fail'; reason?: string; details?: string; ms: number };

const executor = new TestExecutor(workerData as ExecutionOptions);
const port = parentPort!;

port.on('message', async (message: ToWorker) => {
  if (message.type === 'stop') {
    await executor.close();
    port.close();
    return;
  }
  const started = performance.now();
  const outcome = await executor.run(message.test);
  const reply: FromWorker = { type: 'done', id: message.test.id, ...outcome, ms: performance.now() - started };
  port.postMessage(reply);
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
