/**
 * BIND and projected expressions: binds slots to expressions' values, or leaves them unbound on
 * error. Consecutive bindings run as one operator so that BNODE(str) labels are shared within a
 * solution (SPARQL 1.1 section 17.4.2.9) across all of its expressions.
 */
import { Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { type CompiledExpression, valueOrUndefined } from '../expression/compile-expression.js';
import { Operator, union } from './operator.js';

export interface Binding {
  slot: number;
  expression: CompiledExpression;
  name: string;
}

export class Extend extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;
  private readonly scoped: boolean;

  constructor(
    readonly child: Operator,
    readonly bindings: Binding[],
  ) {
    super();
    this.maybe = union(
      child.maybe,
      bindings.map((b) => b.slot),
    );
    this.certain = child.certain;
    this.estimate = child.estimate;
    this.scoped = bindings.some((b) => b.expression.usesBnode);
  }

  describe(): string {
    return this.bindings.map((b) => `?${b.name}`).join(' ');
  }

  override children(): Operator[] {
    return [this.child, ...this.bindings.flatMap((b) => b.expression.subPlans)];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    for (const incoming of this.child.execute(input, ctx)) {
      // Copied: the incoming batch may be shared (a UNION hands the same batch to each branch).
      const batch = new Batch(width, incoming.length);
      batch.length = incoming.length;
      batch.data.set(incoming.data.subarray(0, incoming.length * width));
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        if (this.scoped) ctx.functions.bnodes = new Map();
        const offset = row * width;
        for (const b of this.bindings) {
          const value = valueOrUndefined(b.expression.evaluate, data, offset, ctx);
          data[offset + b.slot] = value === undefined ? 0 : ctx.idOf(value);
        }
      }
      yield batch;
    }
  }
}
