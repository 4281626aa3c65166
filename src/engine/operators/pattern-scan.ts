/**
 * One triple pattern, joined into each incoming solution by an index range scan with the
 * solution's bindings substituted (an index nested-loop join). A chain of these is a BGP.
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../context.js';
import { QUERY_LOCAL_ID_BASE, type TermId } from '../../store/quad-store.js';
import { Operator } from './operator.js';
import { type GraphRef, graphsToScan, needsDedupe } from './graph-ref.js';

/** A pattern position: a constant term ID, or a variable slot. */
export type PatternTerm = { kind: 'id'; id: TermId; label: string } | { kind: 'slot'; slot: number; label: string };

export class PatternScan extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;
  /** Variable positions (0..3 = s, p, o, g) and their slots, first occurrence of each slot. */
  private readonly binds: { pos: number; slot: number }[] = [];
  private readonly terms: readonly PatternTerm[];
  /** Positions repeating a slot bound earlier in the same quad (?x ?p ?x). */
  private readonly repeats: { pos: number; firstPos: number }[] = [];

  constructor(
    readonly s: PatternTerm,
    readonly p: PatternTerm,
    readonly o: PatternTerm,
    readonly graph: GraphRef,
  ) {
    super();
    this.terms = [s, p, o];
    const positions: (PatternTerm | GraphRef)[] = [s, p, o, graph];
    const firstPosOfSlot = new Map<number, number>();
    positions.forEach((t, pos) => {
      if (t.kind !== 'slot') return;
      const first = firstPosOfSlot.get(t.slot);
      if (first === undefined) {
        firstPosOfSlot.set(t.slot, pos);
        this.binds.push({ pos, slot: t.slot });
      } else {
        this.repeats.push({ pos, firstPos: first });
      }
    });
    this.maybe = new Set(firstPosOfSlot.keys());
    this.certain = this.maybe;
  }

  describe(): string {
    const g = this.graph.kind === 'default' ? '' : this.graph.kind === 'id' ? ' GRAPH <…>' : ' GRAPH ?';
    return `Scan ${this.s.label} ${this.p.label} ${this.o.label}${g}`;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const out = new BatchWriter(ctx.width);
    const width = out.width;
    const key = new Float64Array(4);
    for (const batch of input) {
      ctx.checkpoint();
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        const offset = row * width;
        if (!this.resolve(key, data, offset)) continue;
        const graphs = graphsToScan(this.graph, data, offset, ctx);
        const seen = graphs.length > 1 && needsDedupe(this.graph, ctx) ? new Set<string>() : null;
        for (const g of graphs) {
          if (!seen && this.fullyBound(key, g, data, offset)) {
            // Everything bound: an existence check, no cursor.
            if (ctx.reader.has(key[0], key[1], key[2], g)) out.target().appendCopy(batch, row);
            continue;
          }
          for (const quad of ctx.reader.scan(key[0], key[1], key[2], g)) {
            if (!this.repeatsAgree(quad)) continue;
            if (seen) {
              const k = `${quad[0]} ${quad[1]} ${quad[2]}`;
              if (seen.has(k)) continue;
              seen.add(k);
            }
            const target = out.target();
            const r = target.appendCopy(batch, row);
            const t = target.data;
            const base = r * width;
            for (const b of this.binds) t[base + b.slot] = quad[b.pos];
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

  /** Fills the scan key from constants and the solution's bindings; false when nothing can match. */
  private resolve(key: Float64Array, data: Float64Array, offset: number): boolean {
    const terms = this.terms;
    for (let i = 0; i < 3; i++) {
      const t = terms[i];
      const id = t.kind === 'id' ? t.id : data[offset + t.slot];
      // A term the store does not hold (a query-local ID) matches no stored quad.
      if (id >= QUERY_LOCAL_ID_BASE) return false;
      key[i] = id;
    }
    return true;
  }

  /** Whether subject, predicate, object and graph are all known for this solution. */
  private fullyBound(key: Float64Array, g: number, data: Float64Array, offset: number): boolean {
    if (key[0] === 0 || key[1] === 0 || key[2] === 0 || g === 0) return false;
    return this.graph.kind !== 'slot' || data[offset + this.graph.slot] !== 0;
  }

  private repeatsAgree(quad: ArrayLike<number>): boolean {
    for (const r of this.repeats) if (quad[r.pos] !== quad[r.firstPos]) return false;
    return true;
  }
}

