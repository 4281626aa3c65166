/**
 * The checkpoints of a write transaction (WriteOptions.checkpoint): how its caller stops a long
 * write (a time limit, a cancelled request) that the store has no reason to stop by itself. The
 * writer counts its changes and calls the checkpoint every CHANGES_PER_CHECKPOINT of them; whatever
 * the checkpoint throws aborts the transaction.
 */

/**
 * Changes (a quad added or removed, a new term, a quad read to be removed) between two calls. A
 * change costs microseconds (several index puts), so the calls come every few milliseconds, while
 * what they cost (a clock read, a flag) is lost in the noise.
 */
export const CHANGES_PER_CHECKPOINT = 1024;

export class WriteCheckpoints {
  private untilNext = CHANGES_PER_CHECKPOINT;

  constructor(private readonly checkpoint: (() => void) | undefined) {}

  /** `changes` more changes made (or about to be). */
  advance(changes = 1): void {
    this.untilNext -= changes;
    if (this.untilNext > 0) return;
    this.untilNext = CHANGES_PER_CHECKPOINT;
    this.checkpoint?.();
  }

  /** The last call, before the commit: past it, the transaction commits however long that takes. */
  beforeCommit(): void {
    this.checkpoint?.();
  }
}
