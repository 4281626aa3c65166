/**
 * The engine's entry points: a query over a snapshot of the store, an update in one transaction.
 * Evaluation is synchronous and lazy: rows are computed as the consumer pulls batches, and the
 * snapshot is released when the consumer finishes or stops.
 */
import type { Algebra } from '../sparql/index.js';
import { parseAsTemplate, parseQuery, type ParsedQuery } from '../sparql/index.js';
import { withConstants } from '../sparql/index.js';
import type { QuadStore, StoreReader, StoreStatistics } from '../store/index.js';
import type { Quad, SolutionRow, Term } from '../rdf/index.js';
import { factory } from '../rdf/index.js';
import type { EngineQueryOptions, EngineQueryResult } from './engine-api.js';
import { unitBatch } from './batch.js';
import { ExecContext, storeDataset } from './exec-context.js';
import { resolveDataset } from './dataset.js';
import { Planner } from './plan/planner.js';
import { Scope, SlotAllocator } from './plan/scope.js';
import type { Operator } from './operators/operator.js';
import { constructQuads } from './construct.js';
import { describeQuads } from './describe.js';
import { planService, prefetchServices, type EndpointFinder, type ServiceResults } from './service-call.js';
import { sharedStatistics } from './plan/planner-statistics.js';
import { templatePlansOf, type TemplatePlans } from './plan/prepared-plans.js';
import { chargeRequestText } from './text-memory.js';
import { allFastPathsOn } from './fast-paths.js';

export { runUpdate } from './update/update-executor.js';

const ROWS_PER_BATCH = 1024;

export async function runQuery(store: QuadStore, query: string, queryOptions: EngineQueryOptions = {}): Promise<EngineQueryResult> {
  const options = withTextCharged(query, queryOptions);
  const templated = mayUsePreparedPlans(options) ? parseAsTemplate(query, options.baseIri) : undefined;
  const plans = templated && templatePlansOf<PlanShape>(templated.template);
  let parsed = plans ? undefined : parseQuery(query, options.baseIri);
  const services = parsed ? await prefetchServices(parsed.algebra, options, endpointFinder(store, parsed, options)) : new Map();
  const reader = store.reader();
  try {
    const statistics = sharedStatistics(store, reader);
    if (plans) {
      const prepared = evaluatePrepared(plans, templated!, reader, options, () => reader.release(), statistics);
      if (prepared) return prepared;
      parsed = parseQuery(query, options.baseIri);
    }
    return evaluateQuery(parsed!, reader, options, () => reader.release(), services, statistics);
  } catch (error) {
    reader.release();
    throw error;
  }
}

/**
 * For SERVICE ?var (variable-service.ts): the distinct IRIs a part of the query binds the variable
 * to, evaluated alone on a snapshot of its own, over the query's dataset.
 */
export function endpointFinder(store: QuadStore, parsed: ParsedQuery, options: EngineQueryOptions): EndpointFinder {
  return (source, variable, services) => {
    const variables = [factory.variable(variable)];
    const distinct = { type: 'distinct', input: { type: 'project', input: source, variables } } as unknown as Algebra.Operation;
    const root = parsed.algebra.type === 'from' ? ({ ...parsed.algebra, input: distinct } as Algebra.Operation) : distinct;
    const reader = store.reader();
    try {
      const result = evaluateQuery({ ...parsed, algebra: root, variableOrder: [] }, reader, options, () => {}, services);
      const endpoints: string[] = [];
      if (result.kind === 'bindings')
        for (const batch of result.rows) for (const [term] of batch) if (term?.termType === 'NamedNode') endpoints.push(term.value);
      return endpoints;
    } finally {
      reader.release();
    }
  };
}

/** The options with the memory the query's parsed text keeps charged (refused when its parse would not fit). */
export function withTextCharged(query: string, options: EngineQueryOptions): EngineQueryOptions {
  const reservedBytes = chargeRequestText(query, options.memoryBudget, 'query');
  return reservedBytes === 0 ? options : { ...options, reservedBytes };
}

/** Prepared plans assume the optimizer and the store's own dataset (no protocol dataset to key them by). */
function mayUsePreparedPlans(options: EngineQueryOptions): boolean {
  return options.preparedPlans !== false && allFastPathsOn(options) && !options.defaultGraphUris?.length && !options.namedGraphUris?.length;
}

/**
 * A query of a template evaluated with a plan kept for the template (plan/prepared-plans.ts), or
 * undefined when the snapshot cannot have one (the caller then plans the query as usual).
 */
function evaluatePrepared(
  plans: TemplatePlans<PlanShape>,
  templated: { template: ParsedQuery; constants: readonly string[] },
  reader: StoreReader,
  options: EngineQueryOptions,
  done: () => void,
  statistics: () => StoreStatistics,
): EngineQueryResult | undefined {
  const { template, constants } = templated;
  const ctx = new ExecContext(reader, storeDataset(options.unionDefaultGraph), options, template.baseIri ?? options.baseIri);
  ctx.statisticsSource = statistics;
  const loan = plans.lend(constants, ctx, (parameters) => {
    const planner = new Planner(ctx, true);
    planner.parameters = parameters;
    const shape = planShape(template, planner);
    return { plan: shape, localConstants: planner.usedLocalConstant };
  });
  if (!loan) return undefined;
  const shape = loan.plan;
  ctx.width = shape.width;
  ctx.slotNames = shape.slotNames;
  const finish = () => {
    loan.release();
    done();
  };
  try {
    return resultOf(shape, ctx, finish, constants);
  } catch (error) {
    loan.release();
    throw error;
  }
}

/** Plans and starts a parsed query on a reader; `done` runs when the result is consumed or abandoned. */
export function evaluateQuery(
  parsed: ParsedQuery,
  reader: StoreReader,
  options: EngineQueryOptions,
  done: () => void,
  services: ServiceResults = new Map(),
  statistics?: () => StoreStatistics,
): EngineQueryResult {
  const planned = planQuery(parsed, reader, options, services, statistics);
  return resultOf(planned.shape, planned.ctx, done);
}

/** Starts evaluating a plan; `constants`: the query's own, for a template's plan (its CONSTRUCT template or DESCRIBE resources). */
function resultOf(shape: PlanShape, ctx: ExecContext, done: () => void, constants?: readonly string[]): EngineQueryResult {
  const { op } = shape;
  switch (shape.form) {
    case 'ask':
      try {
        return { kind: 'boolean', value: hasSolution(op, ctx) };
      } finally {
        done();
      }
    case 'construct': {
      const template = constants ? withConstants(shape.template, constants) : shape.template;
      return { kind: 'quads', prefixes: shape.prefixes, quads: guarded(constructQuads(op, template, shape.scope, ctx), done) };
    }
    case 'describe': {
      const terms = constants ? withConstants(shape.terms, constants) : shape.terms;
      return { kind: 'quads', prefixes: shape.prefixes, quads: guarded(describeQuads(op, terms, shape.scope, ctx), done) };
    }
    case 'select':
      return { kind: 'bindings', variables: shape.variables, rows: guarded(solutionRows(op, shape.slots, ctx), done) };
  }
}

/** A query's operators and how its result is formed, apart from any one evaluation (a template's plan serves many). */
export type PlanShape = { op: Operator; scope: Scope; width: number; slotNames: readonly string[]; prefixes: Record<string, string> } & (
  | { form: 'ask' }
  | { form: 'construct'; template: Algebra.Pattern[] }
  | { form: 'describe'; terms: Term[] }
  | { form: 'select'; variables: string[]; slots: number[] }
);

/** A query planned on a reader, ready to run: its root operator and how its result is formed. */
export type PlannedQuery = { op: Operator; ctx: ExecContext; shape: PlanShape } & (
  { form: 'ask' } | { form: 'construct' | 'describe'; quads: () => Iterable<Quad[]> } | { form: 'select'; variables: string[]; slots: number[] }
);

/** Resolves the dataset and plans the query's operators (nothing is evaluated yet). */
export function planQuery(
  parsed: ParsedQuery,
  reader: StoreReader,
  options: EngineQueryOptions,
  services: ServiceResults = new Map(),
  statistics?: () => StoreStatistics,
): PlannedQuery {
  const root = parsed.algebra;
  const clauses = root.type === 'from' ? (root as Algebra.From) : undefined;
  const dataset = resolveDataset(reader, clauses, options.defaultGraphUris, options.namedGraphUris, options.unionDefaultGraph);
  const ctx = new ExecContext(reader, dataset, options, parsed.baseIri ?? options.baseIri);
  if (statistics) ctx.statisticsSource = statistics;
  const planner = new Planner(ctx, options.optimize ?? true);
  const shape = planShape(parsed, planner, services);
  ctx.width = shape.width;
  ctx.slotNames = shape.slotNames;
  const { op } = shape;
  switch (shape.form) {
    case 'ask':
      return { form: 'ask', op, ctx, shape };
    case 'construct':
      return { form: 'construct', op, ctx, shape, quads: () => constructQuads(op, shape.template, shape.scope, ctx) };
    case 'describe':
      return { form: 'describe', op, ctx, shape, quads: () => describeQuads(op, shape.terms, shape.scope, ctx) };
    case 'select':
      return { form: 'select', op, ctx, shape, variables: shape.variables, slots: shape.slots };
  }
}

/** The operators of a parsed query (its FROM already resolved into the planner's context). */
function planShape(parsed: ParsedQuery, planner: Planner, services: ServiceResults = new Map()): PlanShape {
  let root = parsed.algebra;
  if (root.type === 'from') root = (root as Algebra.From).input;
  root = modifiersInsideForm(root);
  const allocator = new SlotAllocator();
  const scope = new Scope(allocator);
  planner.serviceHandler = (op, s, graph) => planService(op, s, graph, services, planner.ctx);
  const common = { scope, slotNames: allocator.names, prefixes: parsed.prefixes };
  switch (root.type) {
    case 'ask': {
      const op = planner.plan((root as Algebra.Ask).input, scope);
      return { form: 'ask', op, width: allocator.width, ...common };
    }
    case 'construct': {
      const c = root as Algebra.Construct;
      const op = planner.plan(c.input, scope);
      return { form: 'construct', op, width: allocator.width, template: c.template, ...common };
    }
    case 'describe': {
      const d = root as Algebra.Describe;
      const op = planner.plan(d.input, scope);
      return { form: 'describe', op, width: allocator.width, terms: d.terms as Term[], ...common };
    }
    default: {
      const variables = inQueryOrder(projectedVariables(root), parsed.variableOrder);
      const op = planner.plan(root, scope);
      return { form: 'select', op, width: allocator.width, variables, slots: variables.map((v) => scope.slot(v)), ...common };
    }
  }
}

/**
 * Traqula wraps a CONSTRUCT or DESCRIBE in its LIMIT/OFFSET; the spec applies them to the
 * solutions the template (or description) is built from, so they move inside the form.
 */
function modifiersInsideForm(root: Algebra.Operation): Algebra.Operation {
  const wrappers: Algebra.Operation[] = [];
  let node = root;
  while (node.type === 'slice' || node.type === 'distinct' || node.type === 'reduced') {
    wrappers.push(node);
    node = (node as Algebra.Slice).input;
  }
  if (wrappers.length === 0 || (node.type !== 'construct' && node.type !== 'describe')) return root;
  const form = node as Algebra.Construct | Algebra.Describe;
  let input = form.input;
  for (const wrapper of wrappers.reverse()) input = { ...wrapper, input } as Algebra.Operation;
  return { ...form, input } as Algebra.Operation;
}

/** Whether the operator has at least one solution (ASK): evaluation stops at the first. */
export function hasSolution(op: Operator, ctx: ExecContext): boolean {
  for (const batch of op.execute([unitBatch(ctx.width)], ctx)) if (batch.length > 0) return true;
  return false;
}

/** The variables of the outermost projection, in the query's order. */
function projectedVariables(root: Algebra.Operation): string[] {
  let node: Algebra.Operation | undefined = root;
  while (node) {
    if (node.type === 'project') return (node as Algebra.Project).variables.map((v) => v.value);
    node = (node as { input?: Algebra.Operation }).input;
  }
  return [];
}

/** The projection in the order the query names its variables (for SELECT *, where the algebra sorts them). */
function inQueryOrder(variables: string[], order: string[]): string[] {
  const rank = new Map(order.map((v, i) => [v, i]));
  if (!variables.every((v) => rank.has(v))) return variables;
  const isSorted = variables.every((v, i) => i === 0 || variables[i - 1] <= v);
  return isSorted ? [...variables].sort((a, b) => rank.get(a)! - rank.get(b)!) : variables;
}

function* solutionRows(op: Operator, slots: number[], ctx: ExecContext): Generator<SolutionRow[]> {
  const width = ctx.width;
  let rows: SolutionRow[] = [];
  // A column often repeats its value from row to row (the properties of one resource on each of its
  // rows): the previous row's term is reused without a look-up in the term cache.
  const lastIds = new Float64Array(slots.length);
  const lastTerms: SolutionRow = new Array(slots.length);
  for (const batch of op.execute([unitBatch(width)], ctx)) {
    const data = batch.data;
    for (let r = 0; r < batch.length; r++) {
      const offset = r * width;
      const row: SolutionRow = new Array(slots.length);
      for (let i = 0; i < slots.length; i++) {
        const id = data[offset + slots[i]];
        if (id === lastIds[i]) row[i] = lastTerms[i];
        else {
          const term = id === 0 ? undefined : ctx.termOf(id);
          row[i] = term;
          lastIds[i] = id;
          lastTerms[i] = term;
        }
      }
      rows.push(row);
      if (rows.length >= ROWS_PER_BATCH) {
        yield rows;
        rows = [];
      }
    }
  }
  if (rows.length > 0) yield rows;
}

/** Runs `done` exactly once, when the iteration ends, fails, or is abandoned. */
function guarded<T>(source: Iterable<T>, done: () => void): Iterable<T> {
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  return {
    [Symbol.iterator]() {
      const it = source[Symbol.iterator]();
      return {
        next() {
          try {
            const step = it.next();
            if (step.done) finish();
            return step;
          } catch (error) {
            finish();
            throw error;
          }
        },
        return(value?: unknown) {
          try {
            it.return?.(value as never);
          } finally {
            finish();
          }
          return { done: true, value: undefined as never };
        },
      };
    },
  };
}
