/**
 * One triple pattern, joined into each incoming solution by an index range scan with the
 * solution's bindings substituted (an index nested-loop join). A chain of these is a BGP.
 *
 * When a batch brings many solutions and the pattern's constants alone match few quads, one scan
 * of those quads into a hash table (keyed by the position the solutions bind) costs less than a
 * range scan per solution: the operator then joins by hash. It decides per batch, on actual row
 * counts, so a wrong estimate cannot make it pick the expensive way for long.
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { QUERY_LOCAL_ID_BASE, type TermId } from '../../store/index.js';
import { Operator, slotLabel } from './operator.js';
import { type GraphRef, graphsToScan, needsDedupe } from './graph-ref.js';
import { ObjectRange, type ObjectBound } from './object-range.js';
import {
  cacheKeyedQuads,
  cachedKeyedQuads,
  keyedQuadsFor,
  KeyedQuadsBuilder,
  lookupCostsFor,
  OrderedProbes,
  scannedBefore,
  type KeyedQuads,
  type LookupCosts,
} from './keyed-quads.js';
import { cachedNumericObjects, MAX_NUMERIC_OBJECTS, numericObjectsFor } from './numeric-objects.js';

/** A pattern position: a constant term ID, or a variable slot. */
export type PatternTerm = { kind: 'id'; id: TermId; label: string } | { kind: 'slot'; slot: number; label: string };

export class PatternScan extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;
  /** Variable positions (0..3 = s, p, o, g) and their slots, first occurrence of each slot. */
  private readonly binds: { pos: number; slot: number }[] = [];
  /** The same as two arrays of small integers, for the loops that run per quad. */
  private readonly bindPositions: number[];
  private readonly bindSlots: number[];
  private readonly terms: readonly PatternTerm[];
  /** Positions repeating a slot bound earlier in the same quad (?x ?p ?x). */
  private readonly repeats: { pos: number; firstPos: number }[] = [];
  /**
   * Quads matching the constants alone, set by the optimizer: what a hash join would scan. NaN
   * (no optimizer, or unknown) keeps the operator to index look-ups.
   */
  constantMatches = Number.NaN;
  /** Whether some batch was joined by hash (for explain, which describes the operator after the run). */
  private hashed = false;
  /**
   * Bounds the filters after this scan put on its object (set by the optimizer): with enough
   * solutions, the scan reads only the quads in range (object-range.ts) instead of looking each up.
   */
  objectBounds: ObjectBound[] = [];
  private ranged = false;
  /** Whether some solution was joined with a cached table's quads (cachedObjectTable). */
  private fromCache = false;

  constructor(
    readonly s: PatternTerm,
    readonly p: PatternTerm,
    readonly o: PatternTerm,
    readonly graph: GraphRef,
  ) {
    super();
    this.terms = [s, p, o];
    const maybe = new Set<number>();
    // Planning builds a scan per pattern of every query: plain loops over the four positions.
    for (let pos = 0; pos < 4; pos++) {
      const t = pos === 0 ? s : pos === 1 ? p : pos === 2 ? o : graph;
      if (t.kind !== 'slot') continue;
      const first = this.binds.find((b) => b.slot === t.slot);
      if (first === undefined) {
        this.binds.push({ pos, slot: t.slot });
        maybe.add(t.slot);
      } else {
        this.repeats.push({ pos, firstPos: first.pos });
      }
    }
    this.maybe = maybe;
    this.certain = maybe;
    this.bindPositions = this.binds.map((b) => b.pos);
    this.bindSlots = this.binds.map((b) => b.slot);
  }

  describe(slotNames: readonly string[]): string {
    const g =
      this.graph.kind === 'default'
        ? ''
        : this.graph.kind === 'id'
          ? ` (in graph ${this.graph.label ?? 'a named graph'})`
          : ` (in graph ${slotLabel(this.graph.slot, slotNames)})`;
    const how = this.hashed ? ' (hash join)' : this.ranged ? ' (object range)' : this.fromCache ? ' (cached table)' : '';
    return `${this.s.label} ${this.p.label} ${this.o.label}${g}${how}`;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const out = new BatchWriter(ctx.width, ctx.batchPool());
    const width = out.width;
    // Plain arrays for the few numbers per execution: a typed array costs more to make than to use here.
    const key = [0, 0, 0, 0];
    const last = new LastLookup();
    // Each position as numbers for the whole execution (a constant's ID is set before it starts):
    // the slot a solution binds, or -1 and the constant's ID.
    const { s, p, o } = this;
    const sSlot = s.kind === 'slot' ? s.slot : -1;
    const pSlot = p.kind === 'slot' ? p.slot : -1;
    const oSlot = o.kind === 'slot' ? o.slot : -1;
    const sId = s.kind === 'id' ? s.id : 0;
    const pId = p.kind === 'id' ? p.id : 0;
    const oId = o.kind === 'id' ? o.id : 0;
    const bindPositions = this.bindPositions;
    const bindSlots = this.bindSlots;
    const binds = bindPositions.length;
    for (const batch of input) {
      ctx.checkpoint();
      const data = batch.data;
      // The batch's solutions looked up, and the quads they read: what the choice of a hash join weighs.
      let rowsLookedUp = 0;
      let quadsLookedUp = 0;
      // The range path first (it reads only the quads in range), then the hash table (all the
      // constants' quads), which takes the solutions the range turns down as too many for it.
      const range = this.objectBounds.length > 0 ? this.objectRange(batch, ctx) : undefined;
      let table = this.worthHashing(batch, batch.length, ctx) ? this.hashTable(batch, ctx) : undefined;
      for (let row = 0; row < batch.length; row++) {
        const offset = row * width;
        if (row === SAMPLED_ROWS && !table && rowsLookedUp > 0) {
          // The batch's first solutions' look-ups show how many quads each reads: with that rate,
          // the rest of the batch may be worth joining by hash (for the first batch, the only sign).
          this.addLookupCosts(batch, ctx, rowsLookedUp, quadsLookedUp);
          rowsLookedUp = quadsLookedUp = 0;
          if (this.worthHashing(batch, batch.length - row, ctx)) table = this.hashTable(batch, ctx);
        }
        if (range && range.joinRow(batch, row, out, ctx)) {
          this.ranged = true;
          if (out.pending) yield* out.drainFull();
          continue;
        }
        if (table && table.joinRow(batch, row, out)) {
          this.hashed = true;
          if (out.pending) yield* out.drainFull();
          continue;
        }
        // A term the store does not hold (a query-local ID) matches no stored quad.
        const ks = sSlot < 0 ? sId : data[offset + sSlot];
        const kp = pSlot < 0 ? pId : data[offset + pSlot];
        const ko = oSlot < 0 ? oId : data[offset + oSlot];
        if (ks >= QUERY_LOCAL_ID_BASE || kp >= QUERY_LOCAL_ID_BASE || ko >= QUERY_LOCAL_ID_BASE) continue;
        key[0] = ks;
        key[1] = kp;
        key[2] = ko;
        const graphs = graphsToScan(this.graph, data, offset, ctx);
        if (graphs.length === 1 && last.repeats(key, graphs[0])) {
          last.replay(batch, row, out, bindSlots);
          if (out.pending) yield* out.drainFull();
          continue;
        }
        const cached = graphs.length === 1 && ks === 0 && ko === 0 ? this.cachedObjectTable(graphs[0], ctx) : undefined;
        if (cached) {
          last.forget();
          yield* this.joinCachedTable(cached, batch, row, out, ctx);
          continue;
        }
        rowsLookedUp++;
        // An open scan seen before on this content: what it reads becomes the table the next ones read.
        const keep = graphs.length === 1 && ks === 0 && ko === 0 ? this.objectTableToKeep(graphs[0], ctx) : undefined;
        const seen = graphs.length > 1 && needsDedupe(this.graph, ctx) ? new Set<string>() : null;
        if (graphs.length === 1) last.begin(key, graphs[0]);
        else last.forget();
        for (const g of graphs) {
          if (!seen && this.fullyBound(key, g, data, offset)) {
            // Everything bound: an existence check, no cursor.
            if (ctx.reader.has(key[0], key[1], key[2], g)) {
              out.target().appendCopy(batch, row);
              last.record(last.keyQuad(), bindPositions);
            }
            continue;
          }
          for (const quad of ctx.reader.scan(key[0], key[1], key[2], g)) {
            quadsLookedUp++;
            keep?.add(quad);
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
            for (let j = 0; j < binds; j++) t[base + bindSlots[j]] = quad[bindPositions[j]];
            last.record(quad, bindPositions);
            // Hand on each full batch while the cursor is still open: one solution may match the
            // whole store (ASK { ?s ?p ?o }, a first page), which must neither wait for nor hold all of it.
            if (out.pending) {
              ctx.checkpoint();
              yield* out.drainFull();
            }
          }
        }
        // Kept only when the scan ran to its end: a consumer that stopped early (LIMIT) leaves no table.
        if (keep) cacheKeyedQuads(ctx.reader, [0, constantOf(this.p), 0, graphs[0]], OBJECT_POS, [SUBJECT_POS], keep.build());
        if (out.pending) {
          ctx.checkpoint();
          yield* out.drainFull();
        }
      }
      if (rowsLookedUp > 0) this.addLookupCosts(batch, ctx, rowsLookedUp, quadsLookedUp);
    }
    yield* out.flush();
  }

  /**
   * Whether to join this batch by hash: enough solutions that their look-ups would cost more than
   * one scan of the constants' quads (a look-up costs about as much as scanning ten quads). The
   * evaluation's earlier batches count too, their look-ups and the quads these read: once they and
   * this batch's (at as many quads a solution as before) would cost as much as the scan, the rest
   * are joined by hash, so a large input costs at most about twice the better of the two ways,
   * whatever the estimate said. (The quads read matter where each solution matches many: 10,000
   * products' look-ups of their 22 features each read as many quads as the table holds.) The
   * look-ups counted are those of every query of this thread on the same store content, as the
   * table, once built, serves them all (keyed-quads.ts, lookupCostsFor).
   */
  private worthHashing(batch: Batch, rowsAhead: number, ctx: ExecContext): boolean {
    if (rowsAhead < MIN_ROWS_TO_HASH || !this.tableFits(ctx) || !ctx.fastPath('hashJoins')) return false;
    if (this.repeats.length > 0 || this.graph.kind === 'slot') return false;
    if (!(this.graph.kind === 'id' || ctx.dataset.defaultGraphs.length === 1)) return false;
    if (this.constantMatches <= rowsAhead * QUADS_PER_LOOKUP) return true;
    // A table this evaluation or an earlier query built costs nothing to use.
    if (this.tableAtHand(batch, ctx)) return true;
    const { rows, quads } = this.lookupCosts(batch, ctx);
    const quadsPerRow = rows > 0 ? quads / rows : 0;
    return this.constantMatches <= (rows + rowsAhead) * (QUADS_PER_LOOKUP + quadsPerRow);
  }

  /**
   * Whether the constants' quads fit a hash table: at most half of what the query's memory budget
   * has left, at the most a table can take a quad, and a bound on the size whatever the budget.
   * (A fixed million quads left BSBM 100k's 2,000,000 offers to a look-up each: 2.1 s for a09's
   * MINUS over them, 0.5 s by hash.)
   */
  private tableFits(ctx: ExecContext): boolean {
    const quads = this.constantMatches;
    return quads <= MAX_HASHED_QUADS && quads * TABLE_BYTES_PER_QUAD * 2 <= ctx.memoryLeft;
  }

  private addLookupCosts(batch: Batch, ctx: ExecContext, rows: number, quads: number): void {
    const costs = this.lookupCosts(batch, ctx);
    costs.rows += rows;
    costs.quads += quads;
  }

  /**
   * The solutions looked up so far instead of joining them with the table the batch would use, and
   * the quads their look-ups read: by this evaluation, and by the thread's earlier ones on the same
   * store content where the table could be cached.
   */
  private lookupCosts(batch: Batch, ctx: ExecContext): LookupCosts {
    let memo = ctx.memo.get(this);
    if (!memo) {
      memo = new Map();
      ctx.memo.set(this, memo);
    }
    let costs = memo.get('lookupCosts') as LookupCosts | undefined;
    if (!costs) {
      const keyPos = this.keyPosition(batch, ctx.width);
      const g = this.tableGraph(ctx);
      const shared = keyPos >= 0 && g !== -1 ? lookupCostsFor(ctx.reader, this.tableConstants(g), keyPos, this.writePositions(keyPos)) : undefined;
      costs = shared ?? { rows: 0, quads: 0 };
      memo.set('lookupCosts', costs);
    }
    return costs;
  }

  /** The positions a table keyed by keyPos holds values for: the other variables'. */
  private writePositions(keyPos: number): number[] {
    return this.binds.filter((b) => b.pos !== keyPos).map((b) => b.pos);
  }

  /** The hash table for the position the batch binds, built once per evaluation (undefined: not applicable). */
  private hashTable(batch: Batch, ctx: ExecContext): HashedQuads | undefined {
    const keyPos = this.keyPosition(batch, ctx.width);
    if (keyPos < 0) return undefined;
    let tables = ctx.memo.get(this) as Map<string, HashedQuads> | undefined;
    if (!tables) {
      tables = new Map();
      ctx.memo.set(this, tables);
    }
    let table = tables.get(String(keyPos));
    if (!table) {
      const g = this.tableGraph(ctx);
      table = new HashedQuads(keyPos, this.binds, ctx.width);
      if (g !== -1) table.use(keyedQuadsFor(ctx.reader, this.tableConstants(g), keyPos, table.writePositions, ctx), ctx.fastPath('orderedProbes'));
      tables.set(String(keyPos), table);
    }
    return table;
  }

  /** Whether the hash table for the position the batch binds was built already, in this evaluation or by an earlier query. */
  private tableAtHand(batch: Batch, ctx: ExecContext): boolean {
    const keyPos = this.keyPosition(batch, ctx.width);
    const g = this.tableGraph(ctx);
    if (keyPos < 0 || g === -1) return false;
    if ((ctx.memo.get(this) as Map<string, unknown> | undefined)?.has(String(keyPos))) return true;
    return cachedKeyedQuads(ctx.reader, this.tableConstants(g), keyPos, this.writePositions(keyPos)) !== undefined;
  }

  /**
   * For a scan of all of a predicate's quads in one graph (`?s :p ?o`, both unbound, distinct), the
   * table a hash join keyed by object built for the same constants on the same store content, if
   * one is cached: it holds those quads in the order the store's index gives them (object, then
   * subject), and reading it costs a few ns a quad against ~90 for lmdb-js' cursor.
   */
  private cachedObjectTable(g: TermId, ctx: ExecContext): KeyedQuads | undefined {
    if (!this.scansWholePredicate(ctx)) return undefined;
    return cachedKeyedQuads(ctx.reader, [0, constantOf(this.p), 0, g], OBJECT_POS, [SUBJECT_POS]);
  }

  /** Whether this pattern is `?s :p ?o` with two distinct variables, whose open scans a table in memory may serve. */
  private scansWholePredicate(ctx: ExecContext): boolean {
    if (this.p.kind !== 'id' || this.s.kind !== 'slot' || this.o.kind !== 'slot' || this.repeats.length > 0) return false;
    return this.binds.length === 2 && ctx.fastPath('cachedScans');
  }

  /**
   * For an open scan that has no cached table (cachedObjectTable): a builder to fill as it reads, when
   * the same scan ran before on this store content and the table fits the query's memory. A
   * predicate scanned whole again and again (an analytic workload's offers, reviews) is then read from
   * memory from its third scan on.
   */
  private objectTableToKeep(g: TermId, ctx: ExecContext): KeyedQuadsBuilder | undefined {
    if (!this.scansWholePredicate(ctx) || !this.tableFits(ctx)) return undefined;
    const constants: [TermId, TermId, TermId, TermId] = [0, constantOf(this.p), 0, g];
    return scannedBefore(ctx.reader, constants, OBJECT_POS, [SUBJECT_POS]) ? new KeyedQuadsBuilder(OBJECT_POS, [SUBJECT_POS], ctx) : undefined;
  }

  /** Joins one solution with every quad of a cached table: the subject from its values, the object its key. */
  private *joinCachedTable(table: KeyedQuads, batch: Batch, row: number, out: BatchWriter, ctx: ExecContext): Iterable<Batch> {
    this.fromCache = true;
    const width = out.width;
    const sSlot = (this.s as { slot: number }).slot;
    const oSlot = (this.o as { slot: number }).slot;
    const { keys, values } = table;
    for (let i = 0; i < keys.length; i++) {
      const target = out.target();
      const base = target.appendCopy(batch, row) * width;
      target.data[base + sSlot] = values[i];
      target.data[base + oSlot] = keys[i];
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
  }

  /** The graph whose quads a hash table holds, or -1 for a graph the dataset does not have. */
  private tableGraph(ctx: ExecContext): number {
    return this.graph.kind === 'id' ? (ctx.isNamedGraph(this.graph.id) ? this.graph.id : -1) : ctx.dataset.defaultGraphs[0];
  }

  private tableConstants(g: number): [TermId, TermId, TermId, TermId] {
    return [constantOf(this.s), constantOf(this.p), constantOf(this.o), g];
  }

  /**
   * The range path for this batch, when the object's bounds apply and its index is at hand or worth
   * building: for solutions that bind the subject, the predicate must be small against the batch
   * (the index outlives the query, but the first query pays for it); without a bound subject, each
   * solution would scan the whole predicate anyway.
   */
  private objectRange(batch: Batch, ctx: ExecContext): ObjectRange | undefined {
    if (this.p.kind !== 'id' || this.o.kind !== 'slot' || this.repeats.length > 0 || this.graph.kind !== 'default') return undefined;
    if (!ctx.fastPath('objectRanges')) return undefined;
    if (ctx.dataset.defaultGraphs.length !== 1 || batch.length === 0) return undefined;
    let memo = ctx.memo.get(this);
    let range = memo?.get('range') as ObjectRange | undefined;
    if (range === undefined) {
      if (!memo) {
        memo = new Map();
        ctx.memo.set(this, memo);
      }
      // Solutions this scan has joined by look-ups in this query, this batch included: a large
      // predicate's index pays for itself over a query's batches, not within one batch.
      const rowsJoined = ((memo.get('rowsJoined') as number | undefined) ?? 0) + batch.length;
      memo.set('rowsJoined', rowsJoined);
      const g = ctx.dataset.defaultGraphs[0];
      let index = cachedNumericObjects(ctx.reader, this.p.id, g);
      if (!index && this.worthIndexing(batch, rowsJoined)) index = numericObjectsFor(ctx.reader, this.p.id, g);
      if (!index) return undefined;
      range = new ObjectRange(index, this.s.kind === 'id' ? this.s : { kind: 'slot', slot: this.s.slot }, this.o.slot, this.objectBounds, ctx.width);
      memo.set('range', range);
    }
    range.rowsInBatch = batch.length;
    return range;
  }

  private worthIndexing(batch: Batch, rowsJoined: number): boolean {
    const quads = this.constantMatches;
    if (!(quads <= MAX_NUMERIC_OBJECTS) || this.p.kind !== 'id' || this.p.id >= QUERY_LOCAL_ID_BASE) return false;
    const subjectBound = this.s.kind === 'id' || batch.data[this.s.slot] !== 0;
    return !subjectBound || (batch.length >= MIN_ROWS_TO_HASH && quads <= rowsJoined * QUADS_PER_INDEXED_ROW);
  }

  /** The one variable position the first solution binds (and no other variable is bound), or -1. */
  private keyPosition(batch: Batch, width: number): number {
    let keyPos = -1;
    for (let pos = 0; pos < 3; pos++) {
      const t = this.terms[pos];
      if (t.kind !== 'slot' || batch.data[t.slot] === 0) continue;
      if (keyPos >= 0 || batch.data[t.slot] >= QUERY_LOCAL_ID_BASE) return -1;
      keyPos = pos;
    }
    return width > 0 ? keyPos : -1;
  }

  /**
   * EXISTS of one pattern: the first matching quad answers (execute would read them all into a
   * batch: FILTER NOT EXISTS { ?review :reviewFor ?product } read every review of every product,
   * some 6 µs a solution on BSBM 10k, issue 23's a08).
   */
  override anyMatch(data: Float64Array, offset: number, ctx: ExecContext): boolean {
    const key = [0, 0, 0];
    const terms = this.terms;
    for (let pos = 0; pos < 3; pos++) {
      const t = terms[pos];
      key[pos] = t.kind === 'slot' ? data[offset + t.slot] : t.id;
      if (key[pos] >= QUERY_LOCAL_ID_BASE) return false;
    }
    const probes = this.probeTable(key, ctx);
    if (probes?.table) return probes.table.find(key[probes.keyPos]) >= 0;
    for (const g of graphsToScan(this.graph, data, offset, ctx)) {
      if (this.fullyBound(key, g, data, offset)) {
        if (ctx.reader.has(key[0], key[1], key[2], g)) return true;
        continue;
      }
      for (const quad of ctx.reader.scan(key[0], key[1], key[2], g)) if (this.repeatsAgree(quad)) return true;
    }
    return false;
  }

  /**
   * For EXISTS probes that bind one position of the pattern (the same for every solution): the
   * table of the pattern's quads keyed by it, when it is cached, or once this thread's probes on
   * the same store content have cost as much as building it (lookupCostsFor). BSBM 10k's a08 (NOT
   * EXISTS of a review for each of 10,000 products) positions a cursor in reviewFor's index per
   * product; a table is a hash probe each. Undefined: look up in the store.
   */
  private probeTable(key: readonly number[], ctx: ExecContext): Probes | undefined {
    let memo = ctx.memo.get(this);
    if (!memo) {
      memo = new Map();
      ctx.memo.set(this, memo);
    }
    let probes = memo.get('probes') as Probes | null | undefined;
    if (probes === undefined) {
      probes = this.probesFor(key, ctx);
      memo.set('probes', probes);
    }
    if (probes === null || key[probes.keyPos] === 0 || key[probes.keyPos] >= QUERY_LOCAL_ID_BASE) return undefined;
    for (let pos = 0; pos < 3; pos++) if (pos !== probes.keyPos && this.terms[pos].kind === 'slot' && key[pos] !== 0) return undefined;
    if (probes.table) return probes;
    probes.costs.rows++;
    probes.costs.quads++;
    if (this.constantMatches > probes.costs.rows * (QUADS_PER_LOOKUP + 1)) return undefined;
    probes.table = keyedQuadsFor(ctx.reader, probes.constants, probes.keyPos, this.writePositions(probes.keyPos), ctx);
    return probes;
  }

  /** What probeTable needs for this evaluation, from its first solution; null where a table cannot serve. */
  private probesFor(key: readonly number[], ctx: ExecContext): Probes | null {
    if (this.repeats.length > 0 || this.graph.kind === 'slot' || !ctx.fastPath('hashJoins') || !this.tableFits(ctx)) return null;
    let keyPos = -1;
    for (let pos = 0; pos < 3; pos++) {
      if (this.terms[pos].kind !== 'slot' || key[pos] === 0) continue;
      if (keyPos >= 0) return null;
      keyPos = pos;
    }
    const g = this.tableGraph(ctx);
    if (keyPos < 0 || g === -1 || !(this.graph.kind === 'id' || ctx.dataset.defaultGraphs.length === 1)) return null;
    const constants = this.tableConstants(g);
    const writePositions = this.writePositions(keyPos);
    const costs = lookupCostsFor(ctx.reader, constants, keyPos, writePositions);
    if (!costs) return null;
    const table = cachedKeyedQuads(ctx.reader, constants, keyPos, writePositions);
    return { keyPos, constants, costs, table };
  }

  /** Whether subject, predicate, object and graph are all known for this solution. */
  private fullyBound(key: number[], g: number, data: Float64Array, offset: number): boolean {
    if (key[0] === 0 || key[1] === 0 || key[2] === 0 || g === 0) return false;
    return this.graph.kind !== 'slot' || data[offset + this.graph.slot] !== 0;
  }

  private repeatsAgree(quad: ArrayLike<number>): boolean {
    for (const r of this.repeats) if (quad[r.pos] !== quad[r.firstPos]) return false;
    return true;
  }
}

/** EXISTS probes of one evaluation into a pattern's table (PatternScan.probeTable). */
interface Probes {
  keyPos: number;
  constants: [TermId, TermId, TermId, TermId];
  costs: LookupCosts;
  table: KeyedQuads | undefined;
}

/**
 * The matches of the previous look-up, while few, for the next solution that looks up the same key:
 * a pattern whose bound positions are all constants (an OPTIONAL property of one resource) or
 * repeat from solution to solution is read once, not once per solution.
 */
class LastLookup {
  private readonly key = [-1, -1, -1, -1];
  /**
   * The bound values of each match, one per bind (at most four). Grows with use: most scans never
   * record a match (a full-size typed array per scan was a tenth of the engine's allocations).
   */
  private readonly values: number[] = [];
  private count = 0;
  private usable = false;

  repeats(key: number[], g: number): boolean {
    const own = this.key;
    return this.usable && own[0] === key[0] && own[1] === key[1] && own[2] === key[2] && own[3] === g;
  }

  /** The key looked up, as a quad: the match of an existence check. */
  keyQuad(): number[] {
    return this.key;
  }

  forget(): void {
    this.usable = false;
  }

  begin(key: number[], g: number): void {
    const own = this.key;
    own[0] = key[0];
    own[1] = key[1];
    own[2] = key[2];
    own[3] = g;
    this.count = 0;
    this.usable = true;
  }

  record(quad: ArrayLike<number>, positions: readonly number[]): void {
    if (!this.usable) return;
    if (this.count === MAX_REPLAYED_MATCHES) {
      this.usable = false;
      return;
    }
    const base = this.count++ * positions.length;
    for (let j = 0; j < positions.length; j++) this.values[base + j] = quad[positions[j]];
  }

  replay(batch: Batch, row: number, out: BatchWriter, slots: readonly number[]): void {
    const values = this.values;
    const n = slots.length;
    for (let i = 0; i < this.count; i++) {
      const target = out.target();
      const base = target.appendCopy(batch, row) * batch.width;
      for (let j = 0; j < n; j++) target.data[base + slots[j]] = values[i * n + j];
    }
  }
}

/** Matches a repeated look-up may replay; a longer one is read again. */
const MAX_REPLAYED_MATCHES = 64;

/** Below this many solutions in a batch, look-ups are cheap enough. */
const MIN_ROWS_TO_HASH = 32;
/** A quad's subject and object positions, as tables name them. */
const SUBJECT_POS = 0;
const OBJECT_POS = 2;
/** Solutions of a batch looked up before the choice is made again for the rest, on what they read. */
const SAMPLED_ROWS = 32;
/** Quads one scan can read in the time of one index look-up (measured: roughly ten). */
const QUADS_PER_LOOKUP = 8;
/** Quads of the predicate a batch's solutions may cost to index (the index then serves later queries too). */
const QUADS_PER_INDEXED_ROW = 64;
/** A bound on the hash table's size. */
const MAX_HASHED_QUADS = 16_000_000;
/**
 * The most a table can take a quad: its key and two values (8 bytes each), and a hash bucket of
 * three 32-bit numbers at a load of a half to a quarter when every quad has a key of its own
 * (keyed-quads.ts).
 */
const TABLE_BYTES_PER_QUAD = 24 + 48;

function constantOf(t: PatternTerm): TermId {
  return t.kind === 'id' ? t.id : 0;
}

/** A keyed table joined into solutions: the table's positions written to this scan's slots. */
class HashedQuads {
  /** Slots of the positions written (other than the key). */
  private readonly writeSlots: number[];
  readonly writePositions: number[];
  private readonly keySlot: number;
  private table!: KeyedQuads;
  /** The table's look-ups: a cursor that follows probes in key order, or the table's own. */
  private probes!: { find(key: number): number };

  constructor(
    readonly keyPos: number,
    binds: readonly { pos: number; slot: number }[],
    private readonly width: number,
  ) {
    const writes = binds.filter((b) => b.pos !== keyPos);
    this.writeSlots = writes.map((b) => b.slot);
    this.writePositions = writes.map((b) => b.pos);
    this.keySlot = binds.find((b) => b.pos === keyPos)!.slot;
  }

  use(table: KeyedQuads, orderedProbes: boolean): void {
    this.table = table;
    this.probes = orderedProbes ? new OrderedProbes(table) : table;
  }

  /** Joins one solution by hash; false when the solution does not bind the key as the table expects. */
  joinRow(batch: Batch, row: number, out: BatchWriter): boolean {
    const width = this.width;
    const key = batch.data[row * width + this.keySlot];
    if (key === 0) return false;
    const table = this.table;
    if (!table) return true;
    const values = table.values;
    const writeSlots = this.writeSlots;
    const writes = writeSlots.length;
    const start = this.probes.find(key);
    const end = start + table.found;
    for (let at = start; start >= 0 && at < end; at++) {
      const target = out.target();
      const r = target.appendCopy(batch, row);
      const t = target.data;
      const base = r * width;
      let ok = true;
      for (let i = 0; i < writes; i++) {
        const value = values[at * writes + i];
        const current = t[base + writeSlots[i]];
        // A position whose slot the solution already binds (to another value) does not match.
        if (current !== 0 && current !== value) {
          ok = false;
          break;
        }
        t[base + writeSlots[i]] = value;
      }
      if (!ok) target.pop();
    }
    return true;
  }
}
