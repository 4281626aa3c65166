/** BIND (and projected expressions): binds a slot to an expression's value, or leaves it unbound on error. */
import { Batch } from '../batch.js';
import type { ExecContext } from '../context.js';
import { type CompiledExpression, valueOrUndefined } from '../expression/compile-expression.js';
import { Operator, union } from './operator.js';

export class Extend extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;

  constructor(readonly child: Operator, readonly slot: number, readonly expression: CompiledExpression, readonly name = '') {
    super();
    this.maybe = union(child.maybe, [slot]);
    this.certain = child.certain;
    this.estimate = child.estimate;
  }

  describe(): string {
    return `Bind ?${this.name}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const evaluate = this.expression.evaluate;
    const scoped = this.expression.usesBnode;
    for (const incoming of this.child.execute(input, ctx)) {
      // Copied: the incoming batch may be shared (a UNION hands the same batch to each branch).
      const batch = new Batch(width, incoming.length);
      batch.length = incoming.length;
      batch.data.set(incoming.data.subarray(0, incoming.length * width));
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        if (scoped) ctx.functions.bnodes = new Map();
        const offset = row * width;
        const value = valueOrUndefined(evaluate, data, offset, ctx);
        data[offset + this.slot] = value === undefined ? 0 : ctx.idOf(value);
      }
      yield batch;
    }
  }
}
