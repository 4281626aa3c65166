/**
 * The union of all graphs as one graph (UNION_GRAPH): the default graph's scan and the scan of every
 * named graph, merged. Both come in the same triple order (index-layout.ts, graphLastPartner), and
 * the named graphs' index keeps the graph last, so a triple held by several graphs appears in runs:
 * one comparison per step finds each triple once, with no set of seen triples, whatever the size.
 */
import { DEFAULT_GRAPH_ID, type QuadIds } from './quad-store.js';

export class UnionScan implements Iterable<QuadIds> {
  /**
   * @param order the quad positions of a triple in the scans' key order (the default index's order).
   */
  constructor(
    private readonly defaults: Iterable<QuadIds>,
    private readonly named: Iterable<QuadIds>,
    private readonly order: readonly number[],
  ) {}

  [Symbol.iterator](): Iterator<QuadIds> {
    return new UnionIterator(this.defaults[Symbol.iterator](), this.named[Symbol.iterator](), this.order);
  }
}

const DONE: IteratorResult<QuadIds> = Object.freeze({ done: true, value: undefined });

/** The next triple of one scan, copied out of the scan's reused array. */
class Head {
  readonly triple = new Uint32Array(3);
  present = false;

  constructor(private readonly source: Iterator<QuadIds>) {
    this.advance();
  }

  advance(): void {
    const step = this.source.next();
    this.present = !step.done;
    if (step.done) return;
    this.triple[0] = step.value[0];
    this.triple[1] = step.value[1];
    this.triple[2] = step.value[2];
  }

  /** Moves past every copy of `triple` (the same triple in further graphs). */
  skip(triple: Uint32Array): void {
    while (this.present && this.triple[0] === triple[0] && this.triple[1] === triple[1] && this.triple[2] === triple[2]) this.advance();
  }

  return(): void {
    this.source.return?.();
  }
}

class UnionIterator implements Iterator<QuadIds> {
  private readonly quad = new Uint32Array(4);
  private readonly step: IteratorResult<QuadIds> = { done: false, value: this.quad };
  private readonly triple = this.quad.subarray(0, 3);
  private readonly defaults: Head;
  private readonly named: Head;

  constructor(
    defaults: Iterator<QuadIds>,
    named: Iterator<QuadIds>,
    private readonly order: readonly number[],
  ) {
    this.defaults = new Head(defaults);
    this.named = new Head(named);
    this.quad[3] = DEFAULT_GRAPH_ID;
  }

  next(): IteratorResult<QuadIds> {
    const { defaults, named } = this;
    let from: Head;
    if (!defaults.present) {
      if (!named.present) return DONE;
      from = named;
    } else if (!named.present) {
      from = defaults;
    } else {
      from = this.compare(defaults.triple, named.triple) <= 0 ? defaults : named;
    }
    this.quad.set(from.triple);
    // Each triple once: past its copy in the default graph and its copies in the named graphs.
    defaults.skip(this.triple);
    named.skip(this.triple);
    return this.step;
  }

  return(): IteratorResult<QuadIds> {
    this.defaults.return();
    this.named.return();
    return DONE;
  }

  private compare(a: Uint32Array, b: Uint32Array): number {
    for (const pos of this.order) {
      if (a[pos] !== b[pos]) return a[pos] - b[pos];
    }
    return 0;
  }
}
