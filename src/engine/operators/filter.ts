/** FILTER: keeps the solutions whose condition has effective boolean value true. */
import { BatchWriter, type Batch } from '../batch.js';
import type { ExecContext } from '../context.js';
import { type CompiledExpression, passes } from '../expression/compile-expression.js';
import { Operator } from './operator.js';

export class Filter extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  constructor(readonly child: Operator, readonly condition: CompiledExpression, readonly text = '') {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.estimate = child.estimate / 2;
  }

  describe(): string {
    return `Filter${this.text ? ' ' + this.text : ''}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const out = new BatchWriter(width);
    const evaluate = this.condition.evaluate;
    const scoped = this.condition.usesBnode;
    for (const batch of this.child.execute(input, ctx)) {
      for (let row = 0; row < batch.length; row++) {
        if (scoped) ctx.functions.bnodes = new Map();
        if (passes(evaluate, batch.data, row * width, ctx)) out.target().appendCopy(batch, row);
      }
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}
