/**
 * Joins incoming solutions with an operator evaluated on its own: the SPARQL join of two
 * independently evaluated patterns. Used where passing bindings into the operator would change
 * its meaning (sub-SELECTs with modifiers, FILTER scope, BIND, OPTIONAL on shared variables).
 * The operator's solutions are materialized once (per value of the parameter slots, e.g. the graph
 * of an enclosing GRAPH ?g) and hashed on the slots both sides always bind.
 */
import { type Batch, BatchWriter, compatible, mergeInto } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { SolutionTable } from '../solution-table.js';
import { Operator, slotList } from './operator.js';

export class IsolatedJoin extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;
  private readonly mergeSlots: number[];

  constructor(
    readonly child: Operator,
    /** Slots whose incoming values the child is evaluated with (the graph of GRAPH ?g). */
    readonly paramSlots: number[],
    /** Slots to hash on: always bound by the child and possibly bound by the input. */
    readonly keySlots: number[],
  ) {
    super();
    this.maybe = child.maybe;
    this.certain = child.certain;
    this.mergeSlots = [...child.maybe];
    this.estimate = child.estimate;
  }

  describe(slotNames: readonly string[]): string {
    return this.keySlots.length ? `hash join on ${slotList(this.keySlots, slotNames)}` : 'cross product';
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const out = new BatchWriter(width);
    for (const batch of input) {
      ctx.checkpoint();
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        const offset = row * width;
        const table = SolutionTable.for(this, this.child, this.paramSlots, this.keySlots, data, offset, ctx);
        const keyed = table.keyed(data, offset);
        const tdata = table.rows.data;
        for (let i = table.first(data, offset, keyed); i >= 0; i = table.after(i, keyed)) {
          const coffset = i * width;
          if (!compatible(data, offset, tdata, coffset, this.mergeSlots)) continue;
          const target = out.target();
          const r = target.appendCopy(batch, row);
          mergeInto(target.data, r * width, tdata, coffset, this.mergeSlots);
        }
        if (out.pending) {
          ctx.checkpoint();
          yield* out.drainFull();
        }
      }
    }
    yield* out.flush();
  }
}
