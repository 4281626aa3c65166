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
 * give. The first solutions are probed; once `probeFirst` have been, P is materialized within a
 * budget of rows proportional to the solutions seen so far (times what one probe costs, in rows of
 * a table). A build over budget is dropped and tried again when the solutions seen have doubled,
 * so the rows read in vain stay within a constant times the probes they could have replaced. The decision is kept for the whole evaluation (an
 * operator inside OPTIONAL or EXISTS runs once per batch or solution of its own input).
 */
import { type Batch, BatchWriter, compatible, mergeInto, pooledCapacity } from '../batch.js';
import type { ExecContext } from '../context.js';
import { type CompiledExpression, passes } from '../expression/compile-expression.js';
import { SolutionTable } from '../solution-table.js';
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
 * When the hash way is tried (see the header). QUIVER_EXISTENCE_JOINS=hash or =probe forces one
 * way for every solution (to run a test suite both ways); tests may set the figures themselves.
 */
export const existenceJoinTuning = tuningFor(process.env.QUIVER_EXISTENCE_JOINS);

function tuningFor(forced: string | undefined) {
  if (forced === 'hash') return { probeFirst: 0, budgetScale: Infinity, buildFloor: Infinity };
  if (forced === 'probe') return { probeFirst: Infinity, budgetScale: 0, buildFloor: 0 };
  return {
    /** Solutions probed before a table is first tried. */
    probeFirst: 256,
    /** Scales the budget: table rows per solution seen, times the probe's cost in table rows. */
    budgetScale: 1,
    /** A table of this many rows is always worth trying once the first solutions are probed. */
    buildFloor: 1024,
  };
}

/** One evaluation's choice and tables (kept in ctx.memo: an operator runs many times in one). */
interface JoinState {
  seen: number;
  nextAttempt: number;
  hashing: boolean;
  tables: Map<string, SolutionTable>;
  probed: number;
  hashed: number;
  tableRows: number;
  droppedBuilds: number;
}

abstract class ExistenceJoin extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain: ReadonlySet<number>;
  /** The slots compared between a left solution and a row of P: all of P's but the parameters. */
  private readonly compareSlots: number[];
  /** What the last evaluation did, for explain. */
  private lastRun?: JoinState;

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
    const dropped = run.droppedBuilds ? `, ${run.droppedBuilds} table(s) over budget dropped` : '';
    return `${keys}: ${run.hashed} solutions looked up in ${run.tableRows} rows, ${run.probed} probed${dropped}`;
  }

  override children(): Operator[] {
    return [this.left, this.right, ...this.probe.plans, ...(this.condition?.subPlans ?? [])];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const state = this.stateOf(ctx);
    const out = new BatchWriter(ctx.width);
    for (const batch of this.left.execute(input, ctx)) {
      const matched = new Uint8Array(batch.length);
      if (this.tablesFor(batch, state, ctx)) {
        this.lookUp(batch, matched, state, ctx);
        state.hashed += batch.length;
      } else {
        this.probe.run(batch, matched, ctx);
        state.probed += batch.length;
      }
      state.seen += batch.length;
      const keep = this.keepMatched ? 1 : 0;
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
      const first = existenceJoinTuning.probeFirst;
      state = { seen: 0, nextAttempt: first, hashing: false, tables: new Map(), probed: 0, hashed: 0, tableRows: 0, droppedBuilds: 0 };
      byOperator.set('', state);
      this.lastRun = state;
    }
    return state;
  }

  /** Whether the batch is to be looked up: the tables its parameter values need are built (within budget). */
  private tablesFor(batch: Batch, state: JoinState, ctx: ExecContext): boolean {
    // A batch that reaches the mark is tried whole: its solutions are already there to count.
    if (!state.hashing && state.seen + batch.length < state.nextAttempt) return false;
    const width = ctx.width;
    const tuning = existenceJoinTuning;
    const budget = Math.max(tuning.buildFloor, tuning.budgetScale * this.probe.costInTableRows * Math.max(state.seen, batch.length, 1));
    // The planner's estimate of P saves a build it expects to go over budget: the rows read in vain
    // would be as many again. A wrong estimate only keeps the probes.
    if (!state.hashing && this.right.estimate > 2 * budget) {
      state.nextAttempt = Math.max(1, state.seen) * 2;
      return false;
    }
    for (let r = 0; r < batch.length; r++) {
      const offset = r * width;
      const key = SolutionTable.paramKey(this.params, batch.data, offset);
      if (state.tables.has(key)) continue;
      const table = SolutionTable.build(this.right, this.params, this.keySlots, batch.data, offset, ctx, budget);
      if (!table) {
        state.hashing = false;
        state.droppedBuilds++;
        state.nextAttempt = Math.max(1, state.seen) * 2;
        return false;
      }
      state.tables.set(key, table);
      state.tableRows += table.rows.length;
    }
    state.hashing = true;
    return true;
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
    // A pattern evaluated for one solution (a seed batch, the scans' set-up) costs ~2-5 µs.
    costInTableRows: 4,
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
