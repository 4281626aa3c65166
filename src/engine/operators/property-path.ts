/**
 * Property paths (SPARQL 1.1 section 9 and 18.4): evaluated over term IDs from whichever end is
 * bound. Sequence, alternative, inverse and negated property sets keep duplicates (they are
 * joins and unions); *, + and ? give each node once and stop on cycles.
 */
import { BatchWriter, type Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { ANY, QUERY_LOCAL_ID_BASE, type TermId } from '../../store/index.js';
import { Operator } from './operator.js';
import { type GraphRef, graphsToScan } from './graph-ref.js';
import type { PatternTerm } from './pattern-scan.js';

export type PathExpr =
  | { type: 'link'; iri: TermId | undefined }
  | { type: 'inv'; path: PathExpr }
  | { type: 'seq'; items: PathExpr[] }
  | { type: 'alt'; items: PathExpr[] }
  | { type: 'nps'; iris: (TermId | undefined)[] }
  | { type: 'zeroOrMore' | 'oneOrMore' | 'zeroOrOne'; path: PathExpr };

export class PathScan extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(
    readonly subject: PatternTerm,
    readonly path: PathExpr,
    readonly object: PatternTerm,
    readonly graph: GraphRef,
  ) {
    super();
    const slots = [subject, object].filter((t) => t.kind === 'slot').map((t) => (t as { slot: number }).slot);
    if (graph.kind === 'slot') slots.push(graph.slot);
    this.maybe = new Set(slots);
    this.certain = this.maybe;
  }

  describe(): string {
    return `${this.subject.label} (path) ${this.object.label}`;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const out = new BatchWriter(width);
    for (const batch of input) {
      ctx.checkpoint();
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        const offset = row * width;
        const s = this.subject.kind === 'id' ? this.subject.id : data[offset + this.subject.slot];
        const o = this.object.kind === 'id' ? this.object.id : data[offset + this.object.slot];
        for (const graphs of this.graphSets(data, offset, ctx)) {
          const g = graphs[0];
          for (const [x, y] of this.pairs(s, o, graphs, ctx)) {
            const target = out.target();
            const r = target.appendCopy(batch, row);
            const t = target.data;
            const base = r * width;
            if (this.subject.kind === 'slot') t[base + this.subject.slot] = x;
            if (this.object.kind === 'slot') {
              // ?x path ?x: both ends must be the same node.
              if (this.subject.kind === 'slot' && this.subject.slot === this.object.slot && x !== y) {
                target.pop();
                continue;
              }
              t[base + this.object.slot] = y;
            }
            if (this.graph.kind === 'slot') t[base + this.graph.slot] = g;
            // A path from one node (or between all of them) can reach the whole graph: batches go on as they fill.
            if (out.pending) {
              ctx.checkpoint();
              yield* out.drainFull();
            }
          }
        }
        if (out.pending) {
          ctx.checkpoint();
          yield* out.drainFull();
        }
      }
    }
    yield* out.flush();
  }

  /**
   * Paths are evaluated within one graph at a time (an unbound GRAPH variable ranges over each
   * named graph), or over the merge of the default graphs.
   */
  private graphSets(data: Float64Array, offset: number, ctx: ExecContext): TermId[][] {
    const graphs = graphsToScan(this.graph, data, offset, ctx);
    if (this.graph.kind === 'default') return graphs.length > 0 ? [graphs] : [];
    const named = graphs.length === 1 && graphs[0] === ANY ? ctx.namedGraphIds() : graphs;
    return named.map((g) => [g]);
  }

  private *pairs(s: TermId, o: TermId, graphs: TermId[], ctx: ExecContext): Iterable<[TermId, TermId]> {
    // A constant of the query is a node of the path even where the graph does not hold it.
    const constants = [this.subject, this.object].filter((t) => t.kind === 'id').map((t) => (t as { id: TermId }).id);
    const walker = new PathWalker(ctx, graphs, constants);
    if (s !== 0) {
      for (const y of walker.targets(this.path, s)) if (o === 0 || y === o) yield [s, y];
    } else if (o !== 0) {
      for (const x of walker.sources(this.path, o)) yield [x, o];
    } else {
      const sameSlot = this.subject.kind === 'slot' && this.object.kind === 'slot' && this.subject.slot === this.object.slot;
      for (const x of walker.startNodes(this.path)) {
        for (const y of walker.targets(this.path, x)) if (!sameSlot || x === y) yield [x, y];
      }
    }
  }
}

/** Walks a path within one graph (a list of graphs when the default graph is a merge). */
class PathWalker {
  constructor(
    private readonly ctx: ExecContext,
    private readonly graphs: TermId[],
    private readonly constants: TermId[] = [],
  ) {}

  /** Nodes reachable from `start` (with duplicates where the path's semantics keep them). */
  targets(path: PathExpr, start: TermId): TermId[] {
    return this.walk(path, start, true);
  }

  sources(path: PathExpr, end: TermId): TermId[] {
    return this.walk(path, end, false);
  }

  private walk(path: PathExpr, node: TermId, forward: boolean): TermId[] {
    switch (path.type) {
      case 'link':
        return path.iri === undefined ? [] : this.step(node, path.iri, forward);
      case 'inv':
        return this.walk(path.path, node, !forward);
      case 'seq': {
        const items = forward ? path.items : [...path.items].reverse();
        let frontier = [node];
        for (const item of items) {
          const next: TermId[] = [];
          for (const n of frontier) for (const m of this.walk(item, n, forward)) next.push(m);
          frontier = next;
        }
        return frontier;
      }
      case 'alt':
        return path.items.flatMap((item) => this.walk(item, node, forward));
      case 'nps':
        return this.negatedStep(node, path.iris, forward);
      case 'zeroOrOne': {
        const result = new Set<TermId>(this.inGraph(node) ? [node] : []);
        for (const m of this.walk(path.path, node, forward)) result.add(m);
        return [...result];
      }
      case 'zeroOrMore':
      case 'oneOrMore': {
        const visited = new Set<TermId>();
        if (path.type === 'zeroOrMore' && this.inGraph(node)) visited.add(node);
        let frontier = [node];
        // The walk holds its visited nodes until it returns them: reserved as it grows, given back after.
        let reserved = 0;
        try {
          while (frontier.length > 0) {
            const next: TermId[] = [];
            for (const n of frontier) {
              for (const m of this.walk(path.path, n, forward)) {
                if (!visited.has(m)) {
                  visited.add(m);
                  next.push(m);
                }
              }
            }
            frontier = next;
            const held = (visited.size + next.length) * VISITED_NODE_BYTES;
            this.ctx.reserve(held - reserved);
            reserved = held;
            this.ctx.checkpoint();
          }
          return [...visited];
        } finally {
          this.ctx.release(reserved);
        }
      }
    }
  }

  /**
   * A zero-length path matches a node of the graph only: a term that occurs in no triple of the
   * graph (a constant of the query, a VALUES binding) has no path to itself.
   */
  private inGraph(node: TermId): boolean {
    if (this.constants.includes(node)) return true;
    if (node >= QUERY_LOCAL_ID_BASE) return false;
    for (const g of this.graphs) {
      if (this.ctx.reader.count(node, 0, 0, g) > 0 || this.ctx.reader.count(0, 0, node, g) > 0) return true;
    }
    return false;
  }

  private step(node: TermId, predicate: TermId, forward: boolean): TermId[] {
    if (node >= QUERY_LOCAL_ID_BASE) return [];
    const out: TermId[] = [];
    for (const g of this.graphs) {
      const scan = forward ? this.ctx.reader.scan(node, predicate, 0, g) : this.ctx.reader.scan(0, predicate, node, g);
      for (const q of scan) out.push(forward ? q[2] : q[0]);
    }
    return out;
  }

  private negatedStep(node: TermId, excluded: (TermId | undefined)[], forward: boolean): TermId[] {
    if (node >= QUERY_LOCAL_ID_BASE) return [];
    const out: TermId[] = [];
    for (const g of this.graphs) {
      const scan = forward ? this.ctx.reader.scan(node, 0, 0, g) : this.ctx.reader.scan(0, 0, node, g);
      for (const q of scan) if (!excluded.includes(q[1])) out.push(forward ? q[2] : q[0]);
    }
    return out;
  }

  /**
   * Candidate start nodes when neither end is bound: subjects of the graph, plus every node of
   * the graph when the path can be of length zero.
   */
  startNodes(path: PathExpr): TermId[] {
    const nodes = new Set<TermId>();
    const zeroLength = canBeEmpty(path);
    let counted = 0;
    for (const g of this.graphs) {
      for (const q of this.ctx.reader.scan(0, 0, 0, g)) {
        nodes.add(q[0]);
        if (zeroLength || hasInverse(path)) nodes.add(q[2]);
        if (nodes.size - counted >= 1024) {
          this.ctx.reserve((nodes.size - counted) * VISITED_NODE_BYTES);
          counted = nodes.size;
        }
      }
    }
    return [...nodes];
  }
}

/** A node in a set of visited (or start) nodes, and in the array it is returned in. */
const VISITED_NODE_BYTES = 32;

function canBeEmpty(path: PathExpr): boolean {
  switch (path.type) {
    case 'zeroOrMore':
    case 'zeroOrOne':
      return true;
    case 'seq':
      return path.items.every(canBeEmpty);
    case 'alt':
      return path.items.some(canBeEmpty);
    case 'oneOrMore':
    case 'inv':
      return canBeEmpty(path.path);
    default:
      return false;
  }
}

function hasInverse(path: PathExpr): boolean {
  switch (path.type) {
    case 'inv':
      return true;
    case 'seq':
    case 'alt':
      return path.items.some(hasInverse);
    case 'zeroOrMore':
    case 'zeroOrOne':
    case 'oneOrMore':
      return hasInverse(path.path);
    default:
      return false;
  }
}
