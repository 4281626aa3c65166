/**
 * EXPLAIN: run a query to the end with every operator of its plan instrumented, count the result
 * rows without turning them into terms, and report the plan with estimated and actual rows and
 * time per operator. Instrumentation replaces `execute` on the operator instances of this one plan,
 * so a query that is not explained pays nothing for it.
 */
import { parseQuery } from '../sparql/index.js';
import type { QuadStore } from '../store/index.js';
import type { EngineQueryOptions } from './engine-api.js';
import { unitBatch, type Batch } from './batch.js';
import type { ExecContext } from './exec-context.js';
import type { Operator } from './operators/operator.js';
import { endpointFinder, planQuery, hasSolution, withTextCharged, type PlannedQuery } from './query-engine.js';
import { prefetchServices } from './service-call.js';
import { sharedStatistics } from './plan/planner-statistics.js';

/** Evaluates the query to its end and explains how. Errors (syntax, time-out) are thrown as for runQuery. */
export async function explainQuery(store: QuadStore, query: string, queryOptions: EngineQueryOptions = {}): Promise<QueryExplanation> {
  const started = performance.now();
  const options = withTextCharged(query, queryOptions);
  const parsed = parseQuery(query, options.baseIri);
  const services = await prefetchServices(parsed.algebra, options, endpointFinder(store, parsed, options));
  const reader = store.reader();
  try {
    const planned = planQuery(parsed, reader, options, services, sharedStatistics(store, reader));
    const probes = new Probes(planned.ctx.slotNames);
    probes.attach(planned.op);
    const rootStarted = performance.now();
    const resultRows = countResults(planned);
    const rootTime = performance.now() - rootStarted;
    const plan = wrapRoot(planned, probes.report(planned.op), resultRows, rootTime);
    return { query, resultRows, totalTimeMs: round(performance.now() - started), plan };
  } finally {
    reader.release();
  }
}

/** Runs the planned query to the end: solutions (SELECT), triples (CONSTRUCT, DESCRIBE), or 1 / 0 (ASK). */
function countResults(planned: PlannedQuery): number {
  switch (planned.form) {
    case 'ask':
      return hasSolution(planned.op, planned.ctx) ? 1 : 0;
    case 'construct':
    case 'describe': {
      let n = 0;
      for (const quads of planned.quads()) n += quads.length;
      return n;
    }
    case 'select':
      return countSolutions(planned.op, planned.ctx);
  }
}

function countSolutions(op: Operator, ctx: ExecContext): number {
  let n = 0;
  for (const batch of op.execute([unitBatch(ctx.width)], ctx)) n += batch.length;
  return n;
}

/** ASK, CONSTRUCT and DESCRIBE turn solutions into something else: a node of its own above the plan. */
function wrapRoot(planned: PlannedQuery, plan: PlanNode, resultRows: number, timeMs: number): PlanNode {
  if (planned.form === 'select') return plan;
  const operator = planned.form === 'ask' ? 'Ask' : planned.form === 'construct' ? 'Construct' : 'Describe';
  const details = planned.form === 'ask' ? 'stops at the first solution' : 'triples from the template';
  return { operator, details, estimatedRows: null, actualRows: resultRows, timeMs: round(timeMs), children: [plan] };
}

interface Probe {
  rows: number;
  /** Time in the operator's output iterator, its input's pulls included. */
  outputMs: number;
  /** Time spent pulling the input handed to the operator (the work of the operators before it). */
  inputMs: number;
}

/** Counters per operator of one plan, and the instrumented `execute` that feeds them. */
class Probes {
  private readonly probes = new Map<Operator, Probe>();

  constructor(private readonly slotNames: readonly string[]) {}

  attach(op: Operator): void {
    if (this.probes.has(op)) return;
    const probe: Probe = { rows: 0, outputMs: 0, inputMs: 0 };
    this.probes.set(op, probe);
    const original = op.execute;
    op.execute = (input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> => {
      const timedInput = timed(input, (ms) => (probe.inputMs += ms));
      return timed(
        original.call(op, timedInput, ctx),
        (ms) => (probe.outputMs += ms),
        (batch) => (probe.rows += batch.length),
      );
    };
    for (const child of op.children()) this.attach(child);
  }

  report(op: Operator): PlanNode {
    const probe = this.probes.get(op) ?? { rows: 0, outputMs: 0, inputMs: 0 };
    return {
      operator: op.constructor.name,
      details: op.describe(this.slotNames),
      estimatedRows: Number.isFinite(op.estimate) ? round(op.estimate) : null,
      actualRows: probe.rows,
      timeMs: round(Math.max(0, probe.outputMs - probe.inputMs)),
      children: op.children().map((child) => this.report(child)),
    };
  }
}

/** An iterable whose every step is timed (and its batches seen); closing it closes the source. */
function timed(source: Iterable<Batch>, addTime: (ms: number) => void, see?: (batch: Batch) => void): Iterable<Batch> {
  return {
    [Symbol.iterator]() {
      const it = source[Symbol.iterator]();
      return {
        next() {
          const t0 = performance.now();
          try {
            const step = it.next();
            if (!step.done && see) see(step.value);
            return step;
          } finally {
            addTime(performance.now() - t0);
          }
        },
        return(value?: unknown) {
          it.return?.(value as never);
          return { done: true, value: undefined as never };
        },
      };
    },
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** One operator of an evaluation plan, with what the optimizer expected and what happened. */
export interface PlanNode {
  /** The operator, e.g. PatternScan, HashJoin, Filter. */
  operator: string;
  /** A short description: the pattern, the join variables, the expression. */
  details: string;
  /** Rows the optimizer expected this operator to produce; null where it made no estimate. */
  estimatedRows: number | null;
  /** Rows the operator produced, over every time it ran. */
  actualRows: number;
  /** Time spent in the operator and its children (not in the operators feeding it its input). */
  timeMs: number;
  children: PlanNode[];
}

/** What `explain=true` answers (the JSON body of the HTTP response). */
export interface QueryExplanation {
  query: string;
  /** Result rows (SELECT), triples (CONSTRUCT, DESCRIBE), or 1 / 0 (ASK true / false). */
  resultRows: number;
  /** From the start of parsing to the last row, in the worker that evaluated the query. */
  totalTimeMs: number;
  plan: PlanNode;
}
