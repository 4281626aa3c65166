/**
 * The cancel signal of one request: aborted when its client goes away before the response is
 * complete, which stops the request's work in the service. Not an AbortController: creating one per
 * request (an EventTarget) cost a lone client 5–8% of its query throughput on the direct query path
 * (bench/RESULTS-LOG.md, eighth session); this needs only a flag and the service's one or two listeners.
 */
import type { ServerResponse } from 'node:http';
import type { CancelSignal } from '../service/index.js';

export class ClientGone implements CancelSignal {
  aborted = false;
  private listeners: (() => void)[] = [];

  /** Aborted when `response` closes before it was completely written. */
  static watching(response: ServerResponse): ClientGone {
    const gone = new ClientGone();
    response.once('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    return gone;
  }

  /** Every listener is called once, at the abort: as with `{ once: true }` on an AbortSignal. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
