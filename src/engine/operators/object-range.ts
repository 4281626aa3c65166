/**
 * The range path of a pattern scan `?s <p> ?o` whose object the following filters bound
 * (plan/object-bounds.ts): instead of one index look-up per solution, the quads of <p> whose object
 * lies within the bounds are taken from the value-ordered index (numeric-objects.ts), once per
 * distinct bounds, and joined by subject. Every quad that could pass the filters is among them, and
 * the filters still run after the scan, so the answer is the same as the look-ups'.
 */
import type { Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import type { CompiledExpression } from '../expression/compile-expression.js';
import { QUERY_LOCAL_ID_BASE, type TermId } from '../../store/index.js';
import { ExpressionError } from '../functions/index.js';
import { orderKeyOf, type NumericObjects } from './numeric-objects.js';
import { KeyedQuadsBuilder, type KeyedQuads } from './keyed-quads.js';
import { BoundedMap } from '../../bounded-map.js';

/** A bound on the object: the value of `expression` for the solution at hand. */
export interface ObjectBound {
  /** true: the object lies below the bound; false: above. */
  upper: boolean;
  expression: CompiledExpression;
}

/** Objects in range, ready to join: all of them, and by subject once a solution binds it. */
class Candidates {
  private bySubject?: KeyedQuads;

  constructor(
    private readonly index: NumericObjects,
    private readonly from: number,
    private readonly to: number,
  ) {
    this.bySubject = subjectTables.get(index)?.get(this.span);
  }

  /** Whether the table by subject exists (built, or kept by an earlier query): joining through it then costs nothing more. */
  get joinedBySubject(): boolean {
    return this.bySubject !== undefined;
  }

  get count(): number {
    return this.to - this.from + this.index.others.length / 2;
  }

  private get span(): string {
    return `${this.from} ${this.to}`;
  }

  /** Subject and object of each candidate, in turn. */
  forEach(visit: (s: TermId, o: TermId) => void): void {
    const { subjects, objects, others } = this.index;
    for (let i = this.from; i < this.to; i++) visit(subjects[i], objects[i]);
    for (let i = 0; i < others.length; i += 2) visit(others[i], others[i + 1]);
  }

  /**
   * The candidates keyed by subject, sorted into typed arrays (keyed-quads.ts) and kept with the
   * value-ordered index for later queries on the same bounds: a Map of object arrays per subject,
   * built for each query, was more than half of a date-range query's time (BSBM 1k's a05: 14,687
   * offers from a day's validFrom range, 14 ms).
   */
  table(ctx: ExecContext): KeyedQuads {
    if (!this.bySubject) {
      const builder = new KeyedQuadsBuilder(SUBJECT, [OBJECT], ctx);
      const quad = [0, 0, 0, 0];
      this.forEach((subject, object) => {
        quad[SUBJECT] = subject;
        quad[OBJECT] = object;
        builder.add(quad);
      });
      const table = builder.build();
      this.bySubject = table;
      let tables = subjectTables.get(this.index);
      if (!tables) {
        tables = new BoundedMap<string, KeyedQuads>(SPANS_KEPT, { maxWeight: SPAN_TABLE_BYTES / 16, weigh: (_span, t) => t.size + t.indexBytes / 16 });
        subjectTables.set(this.index, tables);
      }
      tables.set(this.span, table);
    }
    return this.bySubject;
  }
}

/** A quad's subject and object positions, as tables name them. */
const SUBJECT = 0;
const OBJECT = 2;

/** Candidates by subject per value-ordered index and span, for the queries after the one that built them. */
const subjectTables = new WeakMap<NumericObjects, BoundedMap<string, KeyedQuads>>();
/** Spans of one index kept by subject, and their bytes at most. */
const SPANS_KEPT = 16;
const SPAN_TABLE_BYTES = 64 * 2 ** 20;

/** A solution's bound, computed once per distinct values of the variables it reads. */
export class ObjectRange {
  private readonly boundSlots: number[];
  private readonly lastInputs: Float64Array;
  private hasLast = false;
  private lastCandidates: Candidates | undefined;
  private readonly bySpan = new Map<string, Candidates>();
  /** Solutions of the current batch: a subject join is worth it while candidates stay below a share of them. */
  rowsInBatch = 0;

  constructor(
    private readonly index: NumericObjects,
    private readonly subject: { kind: 'id'; id: TermId } | { kind: 'slot'; slot: number },
    private readonly objectSlot: number,
    private readonly bounds: readonly ObjectBound[],
    private readonly width: number,
  ) {
    this.boundSlots = [...new Set(bounds.flatMap((b) => [...b.expression.slots]))];
    this.lastInputs = new Float64Array(this.boundSlots.length);
  }

  /**
   * Joins one solution through the range; false when this solution must take the look-up path
   * (its object already bound, no bound computable, or too many candidates to beat look-ups).
   */
  joinRow(batch: Batch, row: number, out: BatchWriter, ctx: ExecContext): boolean {
    const data = batch.data;
    const offset = row * this.width;
    if (data[offset + this.objectSlot] !== 0) return false;
    const candidates = this.candidatesFor(data, offset, ctx);
    if (!candidates) return false;
    const s = this.subject.kind === 'id' ? this.subject.id : data[offset + this.subject.slot];
    if (s === 0) {
      candidates.forEach((subject, object) => this.emit(batch, row, out, subject, object));
      return true;
    }
    if (!candidates.joinedBySubject && candidates.count > this.rowsInBatch * CANDIDATES_PER_LOOKUP) return false;
    if (s >= QUERY_LOCAL_ID_BASE) return true;
    const table = candidates.table(ctx);
    const start = table.find(s);
    if (start >= 0) for (let i = start, end = start + table.found; i < end; i++) this.emit(batch, row, out, s, table.values[i]);
    return true;
  }

  private emit(batch: Batch, row: number, out: BatchWriter, s: TermId, o: TermId): void {
    const target = out.target();
    const r = target.appendCopy(batch, row);
    const base = r * this.width;
    if (this.subject.kind === 'slot') target.data[base + this.subject.slot] = s;
    target.data[base + this.objectSlot] = o;
  }

  private candidatesFor(data: Float64Array, offset: number, ctx: ExecContext): Candidates | undefined {
    const slots = this.boundSlots;
    let same = this.hasLast;
    for (let i = 0; same && i < slots.length; i++) same = this.lastInputs[i] === data[offset + slots[i]];
    if (same) return this.lastCandidates;
    for (let i = 0; i < slots.length; i++) this.lastInputs[i] = data[offset + slots[i]];
    this.hasLast = true;
    this.lastCandidates = this.computeCandidates(data, offset, ctx);
    return this.lastCandidates;
  }

  private computeCandidates(data: Float64Array, offset: number, ctx: ExecContext): Candidates | undefined {
    let low = -Infinity;
    let high = Infinity;
    let axis: string | undefined;
    for (const bound of this.bounds) {
      const value = boundValue(bound.expression, data, offset, ctx);
      // A bound that cannot be computed fails its own filter; the others still hold.
      if (value === undefined) continue;
      // Bounds of two kinds: no object passes both, but leave that to the filters on the look-up path.
      if (axis !== undefined && axis !== value.axis) return undefined;
      axis = value.axis;
      if (bound.upper) high = Math.min(high, value.key);
      else low = Math.max(low, value.key);
    }
    if (axis === undefined) return undefined;
    const index = this.index.axis(axis);
    const [from, to] = index.span(low, high);
    const key = `${axis} ${from} ${to}`;
    let candidates = this.bySpan.get(key);
    if (!candidates) {
      candidates = new Candidates(index, from, to);
      this.bySpan.set(key, candidates);
    }
    return candidates;
  }
}

/** Candidates a subject join may gather per solution of the batch and still beat index look-ups. */
const CANDIDATES_PER_LOOKUP = 16;

function boundValue(expression: CompiledExpression, data: Float64Array, offset: number, ctx: ExecContext): { axis: string; key: number } | undefined {
  try {
    return orderKeyOf(expression.evaluate(data, offset, ctx));
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
}
