/**
 * Starting a worker thread and waiting until it has opened its store: the first message a worker
 * sends is `ready` (or `startFailed` with the reason, e.g. a store that cannot be opened).
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { deserializeError, type SerializedError } from './error-transport.js';
import { EvaluationError } from '../errors.js';

type StartupReply = { type: 'ready' } | { type: 'startFailed'; error: SerializedError };

export async function startWorker<Ready extends { type: 'ready' }>(
  entry: URL,
  workerData: unknown,
  resourceLimits?: ResourceLimits,
): Promise<{ worker: Worker; ready: Ready }> {
  const worker = new Worker(entry, { workerData, resourceLimits });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      const onMessage = (message: StartupReply | Ready): void => {
        cleanUp();
        if (message.type === 'ready') resolve(message as Ready);
        else reject(deserializeError(message.error));
      };
      const onError = (error: Error): void => {
        cleanUp();
        reject(error);
      };
      const onExit = (code: number): void => {
        cleanUp();
        reject(new EvaluationError(`worker thread exited during start-up (code ${code})`));
      };
      const cleanUp = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    return { worker, ready };
  } catch (error) {
    void worker.terminate();
    throw error;
  }
}

/** Waits for a reply of one type, or gives up after timeoutMs (false). */
export function waitForReply(worker: Worker, type: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onMessage = (message: { type: string }): void => {
      if (message.type === type) finish(true);
    };
    const onExit = (): void => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    const finish = (replied: boolean): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(replied);
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}
