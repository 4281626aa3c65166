/**
 * GRAPH ?g { P } by the book (SPARQL 1.1 section 18.5, Graph): P is evaluated in each named
 * graph of the dataset without ?g bound, and ?g is bound to that graph afterwards. A hidden
 * "active graph" slot carries the graph into P's patterns. The planner takes a faster path when
 * P's patterns bind ?g themselves and nothing in P could tell the difference.
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { QUERY_LOCAL_ID_BASE } from '../../store/index.js';
import { Operator, slotLabel, union } from './operator.js';

export class GraphEnumerate extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(
    readonly child: Operator,
    /** The GRAPH variable, bound after P. */
    readonly graphSlot: number,
    /** The hidden slot P's patterns take their graph from. */
    readonly activeSlot: number,
  ) {
    super();
    this.maybe = union(child.maybe, [graphSlot]);
    this.certain = union(child.certain, [graphSlot]);
    this.estimate = child.estimate;
  }

  describe(slotNames: readonly string[]): string {
    return `each named graph as ${slotLabel(this.graphSlot, slotNames)}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const slot = this.graphSlot;
    const active = this.activeSlot;
    const out = new BatchWriter(width);
    for (const batch of input) {
      const seeded = new BatchWriter(width);
      for (let r = 0; r < batch.length; r++) {
        const bound = batch.data[r * width + slot];
        const graphs = bound !== 0 ? (bound < QUERY_LOCAL_ID_BASE && ctx.isNamedGraph(bound) ? [bound] : []) : ctx.namedGraphIds();
        for (const g of graphs) {
          const target = seeded.target();
          const t = target.appendCopy(batch, r);
          target.data[t * width + active] = g;
        }
      }
      for (const b of seeded.flush()) {
        for (const result of this.child.execute([b], ctx)) {
          const data = result.data;
          for (let r = 0; r < result.length; r++) {
            const offset = r * width;
            const g = data[offset + active];
            const own = data[offset + slot];
            // P may have bound ?g itself (OPTIONAL { ?s ?p ?g }): it must agree with the graph.
            if (own !== 0 && own !== g) continue;
            const target = out.target();
            const t = target.appendCopy(result, r);
            target.data[t * width + slot] = g;
          }
          if (out.pending) {
            ctx.checkpoint();
            yield* out.drainFull();
          }
        }
      }
    }
    yield* out.flush();
  }
}

/** GRAPH <iri> { P }: nothing when the dataset has no such named graph (even for an empty P). */
export class GraphGuard extends Operator {
  readonly maybe = new Set<number>();
  readonly certain = new Set<number>();

  constructor(readonly graph: number) {
    super();
  }

  describe(): string {
    return 'the graph exists';
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    if (!ctx.isNamedGraph(this.graph)) return;
    yield* input;
  }
}
