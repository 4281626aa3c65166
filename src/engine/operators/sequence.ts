/**
 * A join evaluated as a pipeline: the right side extends each solution of the left side, so
 * selective left sides drive index look-ups on the right (bind join).
 */
import type { Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { Operator, union } from './operator.js';

export class Sequence extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(readonly steps: Operator[]) {
    super();
    this.maybe = union(...steps.map((s) => s.maybe));
    this.certain = union(...steps.map((s) => s.certain));
  }

  describe(): string {
    return 'each step extends the solutions of the one before (index nested-loop join)';
  }

  override children(): Operator[] {
    return this.steps;
  }

  execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    let stream = input;
    for (const step of this.steps) stream = step.execute(stream, ctx);
    return stream;
  }
}

/** Passes solutions through unchanged: the empty group pattern. */
export class Identity extends Operator {
  readonly maybe = new Set<number>();
  readonly certain = new Set<number>();

  describe(): string {
    return 'the empty group pattern';
  }

  execute(input: Iterable<Batch>): Iterable<Batch> {
    return input;
  }
}
