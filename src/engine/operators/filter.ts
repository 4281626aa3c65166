/** FILTER: keeps the solutions whose condition has effective boolean value true. */
import { BatchWriter, type Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { type CompiledExpression, passes } from '../expression/compile-expression.js';
import { Operator } from './operator.js';

export class Filter extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  constructor(
    readonly child: Operator,
    readonly condition: CompiledExpression,
    readonly text = '',
  ) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.estimate = child.estimate / 2;
  }

  describe(): string {
    return this.text;
  }

  override children(): Operator[] {
    return [this.child, ...this.condition.subPlans];
  }

  execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    return keepPassing(this.child.execute(input, ctx), this.condition, ctx);
  }
}

/**
 * A filter pushed into a chain of pattern scans: it drops solutions as soon as the variables it
 * reads are bound, before later patterns multiply them.
 */
export class FilterStep extends Operator {
  readonly maybe = new Set<number>();
  readonly certain = new Set<number>();

  constructor(
    readonly condition: CompiledExpression,
    readonly text = '',
  ) {
    super();
  }

  describe(): string {
    return this.text;
  }

  execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    return keepPassing(input, this.condition, ctx);
  }
}

/** The rows that pass; a batch whose rows all pass goes on as it is, uncopied. */
function* keepPassing(batches: Iterable<Batch>, condition: CompiledExpression, ctx: ExecContext): Iterable<Batch> {
  const width = ctx.width;
  const out = new BatchWriter(width, ctx.batchPool());
  const evaluate = condition.evaluate;
  const scoped = condition.usesBnode;
  for (const batch of batches) {
    let allPassed = true;
    for (let row = 0; row < batch.length; row++) {
      if (scoped) ctx.functions.bnodes = new Map();
      const pass = passes(evaluate, batch.data, row * width, ctx);
      if (pass && allPassed) continue;
      if (allPassed) {
        // The first row that fails: the rows before it pass, copied now.
        allPassed = false;
        for (let before = 0; before < row; before++) out.target().appendCopy(batch, before);
      }
      if (pass) out.target().appendCopy(batch, row);
    }
    if (allPassed && batch.length > 0) {
      yield* out.flush();
      yield batch;
    }
    if (out.pending) {
      ctx.checkpoint();
      yield* out.drainFull();
    }
  }
  yield* out.flush();
}
