/**
 * The body of an answer as it arrives, read by its consumer all at once (`whole`) or chunk by
 * chunk (`chunks`) at its own pace: while more than HIGH_WATER bytes wait, the source is paused,
 * and it is resumed as the consumer takes them. Both HTTP clients read bodies through it, net/'s
 * undici client (http-client.ts) and remote mode's own HTTP/1.1 client (service/remote-http1.ts);
 * they differ only in what they pause, resume and destroy (the BodySource).
 */

/** What a body is read from: a connection, or undici's controller of one. */
export interface BodySource {
  pause(): void;
  resume(): void;
  /** Closes the connection: the consumer left before the end. */
  destroy(): void;
}

/** Bytes of body queued for a consumer that does not read (or not yet) before the source is paused. */
const HIGH_WATER = 64 * 1024;

export class BodyQueue {
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private error: Error | undefined;
  /** The consumer waiting for more (a chunk, the end, or a failure). */
  private wake: (() => void) | undefined;
  private readingWhole = false;

  constructor(private readonly source: BodySource) {}

  /** Whether the body has ended or failed: nothing more is taken. */
  get settled(): boolean {
    return this.ended || this.error !== undefined;
  }

  push(chunk: Buffer): void {
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (!this.readingWhole && this.queued > HIGH_WATER) this.source.pause();
    this.wakeUp();
  }

  /** The last byte has come; `then` runs before the consumer hears of it (a connection handed back). */
  end(then?: () => void): void {
    this.ended = true;
    then?.();
    this.wakeUp();
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.error = error;
    this.drop();
    this.wakeUp();
  }

  /** Forgets what is queued (a body nobody will read). */
  drop(): void {
    this.queue = [];
    this.queued = 0;
  }

  whole(): Promise<Buffer> {
    this.readingWhole = true;
    this.source.resume();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.error !== undefined) return reject(this.error);
        if (!this.ended) {
          this.wake = check;
          return;
        }
        const queue = this.queue;
        this.queue = [];
        resolve(queue.length === 1 ? queue[0]! : Buffer.concat(queue, this.queued));
      };
      check();
    });
  }

  async *chunks(): AsyncGenerator<Buffer> {
    let done = false;
    try {
      for (;;) {
        if (this.error !== undefined) throw this.error;
        const chunk = this.queue.shift();
        if (chunk !== undefined) {
          this.queued -= chunk.length;
          if (this.queued <= HIGH_WATER) this.source.resume();
          yield chunk;
          continue;
        }
        if (this.ended) break;
        this.source.resume();
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
      done = true;
    } finally {
      if (!done) this.destroy();
    }
  }

  /** Closes the source unless the body has ended. */
  destroy(): void {
    if (!this.ended) this.source.destroy();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
