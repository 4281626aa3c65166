/**
 * A query known to be cheap, evaluated on the main thread to the end within a small time budget.
 * This is the one exception to "queries run off the event loop": it saves the two thread hand-offs
 * that cost more than such a query itself, and it is bounded — past its budget the evaluation is
 * dropped (nothing has been sent yet) and the caller runs the query on a worker instead.
 */
import { runQuery } from '../engine/index.js';
import { TimeoutError } from '../errors.js';
import { parseQuery } from '../sparql/index.js';
import type { Quad } from '../rdf/index.js';
import type { QuadStore } from '../store/index.js';
import type { QueryJobSpec } from './query-job.js';
import type { QueryResult, SolutionRow } from './sparql-service.js';
import { keepQueryGarbageYoung } from './young-generation.js';

/** A query job's fields an inline run uses; its deadline is the request's own time limit: past it the answer is a TimeoutError, not a retry. */
export type InlineQuerySpec = Pick<
  QueryJobSpec,
  'query' | 'baseIri' | 'defaultGraphUris' | 'namedGraphUris' | 'unionDefaultGraph' | 'deadline' | 'memoryBudget' | 'fetchSettings' | 'allowService' | 'signal'
>;

export type InlineOutcome =
  | { kind: 'done'; result: QueryResult; elapsedMs: number }
  /** Over budget: nothing was produced, run it elsewhere. */
  | { kind: 'overBudget'; elapsedMs: number };

/**
 * `firstOfShape`: no query of this shape has run on this thread yet; its first parse (the template's)
 * is then paid before the budget starts, not by its evaluation budget or cost record. Later ones skip
 * that: parsing each query twice cost more than the hand-offs saved.
 */
export async function runInline(store: QuadStore, spec: InlineQuerySpec, budgetMs: number, firstOfShape = true): Promise<InlineOutcome> {
  keepQueryGarbageYoung();
  if (firstOfShape) parseQuery(spec.query, spec.baseIri);
  const started = performance.now();
  const budgetEnd = Date.now() + budgetMs;
  const options = {
    baseIri: spec.baseIri,
    defaultGraphUris: spec.defaultGraphUris,
    namedGraphUris: spec.namedGraphUris,
    unionDefaultGraph: spec.unionDefaultGraph,
    deadline: Math.min(spec.deadline, budgetEnd),
    memoryBudget: spec.memoryBudget,
    fetchSettings: spec.fetchSettings,
    allowService: spec.allowService,
    isCancelled: () => spec.signal?.aborted === true,
  };
  try {
    const result = await runQuery(store, spec.query, options);
    const complete = completed(result);
    return { kind: 'done', result: complete, elapsedMs: performance.now() - started };
  } catch (error) {
    if (error instanceof TimeoutError && Date.now() <= spec.deadline) {
      return { kind: 'overBudget', elapsedMs: performance.now() - started };
    }
    throw error;
  }
}

/** Pulls every batch now (evaluation is synchronous), so the time budget covers all of the work. */
function completed(result: Awaited<ReturnType<typeof runQuery>>): QueryResult {
  switch (result.kind) {
    case 'boolean':
      return result;
    case 'bindings':
      return { kind: 'bindings', variables: result.variables, rows: replay<SolutionRow>([...result.rows]) };
    case 'quads':
      return { kind: 'quads', prefixes: result.prefixes, quads: replay<Quad>([...result.quads]) };
  }
}

async function* replay<T>(batches: T[][]): AsyncGenerator<T[]> {
  yield* batches;
}
