/**
 * GRAPH ?g { P } where P does not bind ?g through its own patterns (an empty group, VALUES, a
 * sub-SELECT): P is evaluated once per named graph of the dataset with ?g bound to it.
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../context.js';
import { QUERY_LOCAL_ID_BASE } from '../../store/quad-store.js';
import { Operator, union } from './operator.js';

export class GraphEnumerate extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(readonly child: Operator, readonly graphSlot: number) {
    super();
    this.maybe = union(child.maybe, [graphSlot]);
    this.certain = union(child.certain, [graphSlot]);
    this.estimate = child.estimate;
  }

  describe(): string {
    return 'Graph (each named graph)';
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const slot = this.graphSlot;
    for (const batch of input) {
      const seeded = new BatchWriter(width);
      for (let r = 0; r < batch.length; r++) {
        const bound = batch.data[r * width + slot];
        const graphs = bound !== 0 ? (bound < QUERY_LOCAL_ID_BASE && ctx.isNamedGraph(bound) ? [bound] : []) : ctx.namedGraphIds();
        for (const g of graphs) {
          const target = seeded.target();
          const t = target.appendCopy(batch, r);
          target.data[t * width + slot] = g;
        }
      }
      for (const b of seeded.flush()) yield* this.child.execute([b], ctx);
    }
  }
}

