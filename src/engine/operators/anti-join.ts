/**
 * Anti-join and semi-join: FILTER NOT EXISTS { P }, FILTER EXISTS { P }, and OPTIONAL { P }
 * FILTER(!BOUND(?x)), as one question per left solution: has P a compatible solution? Two ways
 * to answer it, which the planner builds only where they agree (P depends on the solution only
 * through variables P always binds: plan/existence-joins.ts):
 *
 * - probe: P evaluated with the solution's bindings (index look-ups per solution), best for a few
 *   solutions or a large P;
 * - hash: P evaluated once on its own, hashed on the variables both sides always bind, and each
 *   solution looked up, best for many solutions (a per-solution evaluation repeated a hundred
 *   thousand times is the cliff this removes).
 *
 * Which way runs is decided while running, not from the planner's estimates: a prepared plan
 * (plan/prepared-plans.ts) serves every query of a template, whatever the sizes its constants
 * give, and an estimate can be off by an order of magnitude. Solutions are probed while P's table
 * is built alongside, a few rows per solution probed (what a probe costs, in rows of a table);
 * once the table is complete, the remaining solutions are looked up. A build is started only when
 * the planner's estimate of P fits the rows allowed so far, and is never dropped: the work is at
 * most the probes plus as much again, and a large P with few solutions is never read whole. The choice and the tables last for the whole evaluation (an
 * operator inside OPTIONAL or EXISTS runs once per batch or solution of its own input).
 */
import { type Batch, BatchWriter, compatible, mergeInto, pooledCapacity } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { type CompiledExpression, passes } from '../expression/compile-expression.js';
import { SolutionTable } from '../solution-table.js';
import { RowBuffer } from '../row-buffer.js';
import { Operator, slotList } from './operator.js';

/** The per-solution way: tells which rows of a batch have a compatible solution of P. */
export interface MatchProbe {
  /** Sets matched[r] to 1 for each row r of the batch that has one. */
  run(batch: Batch, matched: Uint8Array, ctx: ExecContext): void;
  /** The plans it runs, for explain. */
  readonly plans: Operator[];
  /**
   * What probing one solution costs, in rows of a table built instead (measured on the analytic
   * workload: a table row costs about 0.5 µs to read, hash and look up).
   */
  readonly costInTableRows: number;
}

/**
 * When the table is built (see the header). QUIVER_EXISTENCE_JOINS=hash or =probe forces one way
 * for every solution (to run a test suite both ways); tests may set the figures themselves.
 */
export const existenceJoinTuning = tuningFor(process.env.QUIVER_EXISTENCE_JOINS);

function tuningFor(forced: string | undefined) {
  if (forced === 'hash') return { probeFirst: 0, budgetScale: Infinity, buildFloor: Infinity };
  if (forced === 'probe') return { probeFirst: Infinity, budgetScale: 0, buildFloor: 0 };
  return {
    /** Solutions probed before the table is started. */
    probeFirst: 256,
    /** Scales the rows read per solution: what a probe costs in table rows, times this. */
    budgetScale: 1,
    /** Rows the table may read at once when it is started. */
    buildFloor: 1024,
  };
}

/** A table being built: P's solutions read so far, and the rest to come. */
interface TableBuild {
  rows: RowBuffer;
  rest: Iterator<Batch>;
}

/** What an evaluation did, for explain (counts only: a kept plan must not hold its last tables). */
interface RunReport {
  probed: number;
  hashed: number;
  /** Rows of complete tables, and rows read into tables so far. */
  tableRows: number;
  read: number;
}

/** One evaluation's tables (kept in ctx.memo: an operator runs many times in one). */
interface JoinState {
  seen: number;
  tables: Map<string, SolutionTable>;
  builds: Map<string, TableBuild>;
  report: RunReport;
}

abstract class ExistenceJoin extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;
  /** The slots compared between a left solution and a row of P: all of P's but the parameters. */
  private readonly compareSlots: number[];
  /** What the last evaluation did, for explain. */
  private lastRun?: RunReport;

  constructor(
    readonly left: Operator,
    /** P on its own (the parameter slots given), for the table. */
    readonly right: Operator,
    /** The per-solution way. */
    readonly probe: MatchProbe,
    /** Slots P is evaluated with (the active graph of GRAPH ?g): a table per value. */
    readonly params: number[],
    /** Slots to hash on: bound in every solution of both sides. */
    readonly keySlots: number[],
    /** OPTIONAL's own filter, on the merge of the solution with P's row; null for none. */
    readonly condition: CompiledExpression | null,
    /** Keep the solutions that have a match (semi-join) or those that have none (anti-join). */
    private readonly keepMatched: boolean,
  ) {
    super();
    this.maybe = left.maybe;
    this.certain = left.certain;
    this.compareSlots = [...right.maybe].filter((s) => !params.includes(s));
    // As a filter's: half the solutions (what P matches is not estimated).
    this.estimate = left.estimate / 2;
  }

  describe(slotNames: readonly string[]): string {
    const keys = this.keySlots.length ? `hash on ${slotList(this.keySlots, slotNames)}` : 'hash without a key';
    const run = this.lastRun;
    if (!run) return `${keys}, or a probe per solution`;
    const unfinished = run.read > run.tableRows ? ` (${run.read - run.tableRows} rows read of an unfinished table)` : '';
    return `${keys}: ${run.hashed} solutions looked up in ${run.tableRows} rows, ${run.probed} probed${unfinished}`;
  }

  override children(): Operator[] {
    return [this.left, this.right, ...this.probe.plans, ...(this.condition?.subPlans ?? [])];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const state = this.stateOf(ctx);
    const out = new BatchWriter(ctx.width, ctx.batchPool());
    const keep = this.keepMatched ? 1 : 0;
    for (const batch of this.left.execute(input, ctx)) {
      if (batch.length === 0) continue;
      const matched = new Uint8Array(batch.length);
      if (this.tablesFor(batch, state, ctx)) {
        this.lookUp(batch, matched, state, ctx);
        state.report.hashed += batch.length;
      } else {
        this.probe.run(batch, matched, ctx);
        state.report.probed += batch.length;
      }
      state.seen += batch.length;
      for (let r = 0; r < batch.length; r++) if (matched[r] === keep) out.target().appendCopy(batch, r);
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }

  private stateOf(ctx: ExecContext): JoinState {
    let byOperator = ctx.memo.get(this) as Map<string, JoinState> | undefined;
    if (!byOperator) {
      byOperator = new Map();
      ctx.memo.set(this, byOperator);
    }
    let state = byOperator.get('');
    if (!state) {
      state = { seen: 0, tables: new Map(), builds: new Map(), report: { probed: 0, hashed: 0, tableRows: 0, read: 0 } };
      byOperator.set('', state);
      this.lastRun = state.report;
    }
    return state;
  }

  /**
   * Whether the batch is to be looked up: the tables its parameter values need are complete. Builds
   * them on, within the rows the solutions seen so far (this batch's included) allow.
   */
  private tablesFor(batch: Batch, state: JoinState, ctx: ExecContext): boolean {
    const tuning = existenceJoinTuning;
    const seen = state.seen + batch.length;
    if (seen < tuning.probeFirst) return false;
    const allowed = tuning.buildFloor + tuning.budgetScale * this.probe.costInTableRows * seen;
    let complete = true;
    for (let r = 0; r < batch.length; r++) {
      const offset = r * ctx.width;
      const key = SolutionTable.paramKey(this.params, batch.data, offset);
      if (state.tables.has(key)) continue;
      let build = state.builds.get(key);
      if (!build) {
        // One build at a time: two suspended evaluations of one operator tree must not interleave.
        if (state.builds.size > 0 || !this.worthStarting(allowed)) {
          complete = false;
          continue;
        }
        const seed = SolutionTable.seed(this.params, batch.data, offset, ctx);
        build = { rows: new RowBuffer(ctx.width), rest: this.right.execute([seed], ctx)[Symbol.iterator]() };
        state.builds.set(key, build);
      }
      if (!this.buildOn(build, state, allowed, ctx)) {
        complete = false;
        continue;
      }
      state.builds.delete(key);
      state.tables.set(key, SolutionTable.of(build.rows, this.keySlots, ctx));
      state.report.tableRows += build.rows.length;
    }
    return complete;
  }

  /**
   * Whether a table may be started: when the planner expects P to fit in the rows allowed now.
   * A table started on the hope of solutions to come may never be finished (its rows lost), and
   * how many solutions are to come is not known (the left side's estimate was 20 times too low on
   * a10). A wrong estimate of P only leaves the solutions probed, or reads the allowance in vain.
   */
  private worthStarting(allowed: number): boolean {
    return !(this.right.estimate > allowed);
  }

  /** Reads P's solutions into the table while the allowance lasts; true once they are all read. */
  private buildOn(build: TableBuild, state: JoinState, allowed: number, ctx: ExecContext): boolean {
    const report = state.report;
    while (report.read < allowed) {
      const next = build.rest.next();
      if (next.done) return true;
      build.rows.pushBatch(next.value, ctx);
      report.read += next.value.length;
    }
    return false;
  }

  private lookUp(batch: Batch, matched: Uint8Array, state: JoinState, ctx: ExecContext): void {
    const width = ctx.width;
    const data = batch.data;
    for (let r = 0; r < batch.length; r++) {
      const offset = r * width;
      const table = state.tables.get(SolutionTable.paramKey(this.params, data, offset))!;
      const keyed = table.keyed(data, offset);
      const rows = table.rows.data;
      for (let i = table.first(data, offset, keyed); i >= 0; i = table.after(i, keyed)) {
        const c = i * width;
        if (compatible(data, offset, rows, c, this.compareSlots) && this.conditionHolds(data, offset, rows, c, ctx)) {
          matched[r] = 1;
          break;
        }
      }
    }
  }

  private scratch?: Float64Array;

  /** OPTIONAL's filter on the merged solution (none: true). */
  private conditionHolds(data: Float64Array, offset: number, rows: Float64Array, c: number, ctx: ExecContext): boolean {
    const condition = this.condition;
    if (!condition) return true;
    const width = ctx.width;
    if (this.scratch?.length !== width) this.scratch = new Float64Array(width);
    const merged = this.scratch;
    merged.set(data.subarray(offset, offset + width));
    mergeInto(merged, 0, rows, c, this.compareSlots);
    if (condition.usesBnode) ctx.functions.bnodes = new Map();
    return passes(condition.evaluate, merged, 0, ctx);
  }
}

/** Keeps the left solutions that have no compatible solution of P (NOT EXISTS, OPTIONAL with !BOUND). */
export class AntiJoin extends ExistenceJoin {
  constructor(left: Operator, right: Operator, probe: MatchProbe, params: number[], keySlots: number[], condition: CompiledExpression | null = null) {
    super(left, right, probe, params, keySlots, condition, false);
  }
}

/** Keeps the left solutions that have a compatible solution of P (EXISTS). */
export class SemiJoin extends ExistenceJoin {
  constructor(left: Operator, right: Operator, probe: MatchProbe, params: number[], keySlots: number[]) {
    super(left, right, probe, params, keySlots, null, true);
  }
}

/** The probe of FILTER (NOT) EXISTS: the compiled EXISTS, evaluated on each solution. */
export function existsProbe(exists: CompiledExpression): MatchProbe {
  return {
    plans: exists.subPlans,
    // A pattern evaluated for one solution (a seed batch, the scans' set-up) costs ~2-5 µs, a
    // table row 0.3 µs and up (P's own joins); 2 keeps the rows read in vain low where P is large
    // (a08 at 10,000 products: 100,000 reviews for 10,000 products, no table finished).
    costInTableRows: 2,
    run(batch, matched, ctx) {
      const width = ctx.width;
      for (let r = 0; r < batch.length; r++) if (passes(exists.evaluate, batch.data, r * width, ctx)) matched[r] = 1;
    },
  };
}

/**
 * The probe of OPTIONAL: its right side run on the whole batch at once, extending each solution
 * (as LeftJoin runs it); a hidden tag slot tells which solution each of its rows extends.
 */
export function optionalProbe(right: Operator, condition: CompiledExpression | null, tagSlot: number): MatchProbe {
  return {
    plans: [right],
    // The right side runs on a whole batch at once: ~0.3-0.5 µs a solution.
    costInTableRows: 0.5,
    run(batch, matched, ctx) {
      const width = ctx.width;
      const pool = ctx.batchPool();
      const tagged = pool.take(pooledCapacity(batch.length));
      tagged.length = batch.length;
      tagged.data.set(batch.data.subarray(0, batch.length * width));
      for (let r = 0; r < batch.length; r++) tagged.data[r * width + tagSlot] = r + 1;
      for (const rows of right.execute([tagged], ctx)) {
        for (let r = 0; r < rows.length; r++) {
          const offset = r * width;
          if (condition) {
            if (condition.usesBnode) ctx.functions.bnodes = new Map();
            if (!passes(condition.evaluate, rows.data, offset, ctx)) continue;
          }
          matched[rows.data[offset + tagSlot] - 1] = 1;
        }
      }
      pool.release(tagged);
    },
  };
}
