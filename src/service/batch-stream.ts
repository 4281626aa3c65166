/**
 * The main-thread end of a result stream: batches arrive from a worker as messages and leave as an
 * async iterable. Pulling a batch grants the worker credit for one more; leaving the loop early
 * (the iterator's `return()`) tells the producer to stop.
 */
export interface BatchStreamHooks {
  /** The consumer took a batch. */
  onPull(): void;
  /** The consumer stopped before the end. */
  onAbandon(): void;
}

type Waiter<T> = { resolve: (result: IteratorResult<T[]>) => void; reject: (error: Error) => void };

export class BatchStream<T> implements AsyncIterable<T[]> {
  private readonly buffered: T[][] = [];
  private waiter?: Waiter<T>;
  private ended = false;
  private failure?: Error;
  private closed = false;
  private iterating = false;

  constructor(private readonly hooks: BatchStreamHooks) {}

  push(batch: T[]): void {
    if (this.closed) return;
    if (this.waiter) this.deliver(batch);
    else this.buffered.push(batch);
  }

  end(): void {
    this.ended = true;
    this.settleWaiter();
  }

  /** Batches already received are still delivered; then the error is thrown. */
  fail(error: Error): void {
    if (this.ended || this.failure) return;
    this.failure = error;
    this.settleWaiter();
  }

  get isFinished(): boolean {
    return this.ended || this.failure !== undefined || this.closed;
  }

  [Symbol.asyncIterator](): AsyncIterator<T[]> {
    if (this.iterating) throw new Error('a result stream can be read only once');
    this.iterating = true;
    return {
      next: () => this.next(),
      return: async () => {
        this.abandon();
        return { done: true, value: undefined };
      },
    };
  }

  private next(): Promise<IteratorResult<T[]>> {
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    const batch = this.buffered.shift();
    if (batch) {
      this.hooks.onPull();
      return Promise.resolve({ done: false, value: batch });
    }
    if (this.failure) {
      this.closed = true;
      return Promise.reject(this.failure);
    }
    if (this.ended) {
      this.closed = true;
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private deliver(batch: T[]): void {
    const waiter = this.waiter!;
    this.waiter = undefined;
    this.hooks.onPull();
    waiter.resolve({ done: false, value: batch });
  }

  private settleWaiter(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    this.closed = true;
    if (this.failure) waiter.reject(this.failure);
    else waiter.resolve({ done: true, value: undefined });
  }

  private abandon(): void {
    if (this.closed) return;
    const finishedByProducer = this.ended || this.failure !== undefined;
    this.closed = true;
    this.buffered.length = 0;
    this.settleWaiter();
    if (!finishedByProducer) this.hooks.onAbandon();
  }
}
