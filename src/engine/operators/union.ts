/** UNION: each incoming solution joined with either branch, one branch after the other. */
import type { Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { Operator, intersection, union } from './operator.js';

export class Union extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(readonly branches: Operator[]) {
    super();
    this.maybe = union(...branches.map((b) => b.maybe));
    this.certain = branches.map((b) => b.certain as Set<number>).reduce((a, b) => intersection(a, b));
    this.estimate = branches.reduce((sum, b) => sum + b.estimate, 0);
  }

  describe(): string {
    return `${this.branches.length} branches`;
  }

  override children(): Operator[] {
    return this.branches;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    for (const batch of input) {
      // Each branch reads the batch without changing it; operators copy rows before extending.
      for (const branch of this.branches) yield* branch.execute([batch], ctx);
    }
  }
}
