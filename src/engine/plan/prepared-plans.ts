/**
 * Plans made once per query template and reused by its later queries. Clients send the same query
 * shapes with other constants (BSBM: a product, a type, a date); parsing already goes through the
 * template (sparql/query-template.ts), and planning such a query cost as much as evaluating it.
 *
 * A plan is made by planning the template's algebra for one query of it: each placeholder gets
 * that query's constant, and the planner records where each one went — the ID in a pattern
 * position, the term behind an expression's constant (planner.ts PlanParameters). A later query of
 * the template sets its own constants in those places instead of planning again.
 *
 * Answers never depend on which plan runs, but a reused plan must also be the very plan that
 * planning this query would have made (same join orders, same rows in the same order). The only
 * choices planning makes from the constants are the join orders of basic graph patterns, taken
 * from the counts of the constants' quads (bgp-order.ts). So each query recomputes those orders
 * from its own counts (cached per content version, pattern-counts.ts) on a copy of the patterns
 * kept for that purpose, and takes a plan made with the same orders; if there is none, it is
 * planned, and kept beside the others. The counts also become the scans' `constantMatches`, as
 * planning would have set them.
 *
 * A plan is valid for one content version of the store (the IDs of the template's own constants,
 * and an ID's absence, hold within it) and runs one query at a time: a plan still in use when the
 * next query of its template comes (a consumer that has not finished reading) is not shared;
 * the query is planned as before.
 *
 * Templates whose placeholders sit anywhere but in a pattern's subject, predicate or object, a
 * constant of an expression, a CONSTRUCT template or DESCRIBE's resources (a function's name,
 * VALUES, a property path, GRAPH's name), or that have FROM or SERVICE, are planned per query.
 */
import type { Algebra, ParsedQuery } from '../../sparql/index.js';
import { placeholderNumber, substituteTerm } from '../../sparql/index.js';
import type { Term } from '../../rdf/index.js';
import type { ExecContext } from '../exec-context.js';
import type { ConstantRef } from '../expression/compile-expression.js';
import type { PatternScan, PatternTerm } from '../operators/pattern-scan.js';
import { constantCount, constantCounts, joinOrder, type OrderedPattern } from './bgp-order.js';
import type { SlotEquality } from './variable-equalities.js';
import { PatternCounts } from './pattern-counts.js';
import { knownIriId, rememberIriId } from './iri-ids.js';
import type { JoinOrderProblem, PlanParameters } from './planner.js';

/** A pattern position holding a constant. */
type ConstantTerm = Extract<PatternTerm, { kind: 'id' }>;

/** Plans kept per template: one per combination of join orders its queries have needed. */
const MAX_PLANS_PER_TEMPLATE = 8;

/** The constants of one query of a template: their terms and IDs, each worked out when first needed. */
export class QueryConstants {
  private readonly terms: (Term | undefined)[] = [];
  private readonly ids: (number | undefined)[] = [];
  private lastIri: string | undefined;
  private lastIriId = 0;

  constructor(
    private readonly templateTerms: readonly Term[],
    readonly constants: readonly string[],
    private readonly ctx: ExecContext,
    private readonly version: number,
  ) {}

  term(n: number): Term {
    let term = this.terms[n];
    if (term === undefined) {
      term = substituteTerm(this.templateTerms[n], n, this.constants);
      this.terms[n] = term;
    }
    return term;
  }

  /** The ID planning gives the constant (planner.ts idOf): the store's, else a query-local one. */
  id(n: number): number {
    let id = this.ids[n];
    if (id === undefined) {
      if (this.templateTerms[n].termType === 'NamedNode') {
        // A template often names one resource many times (BSBM Q2: its product 15 times).
        const iri = this.constants[n];
        if (iri === this.lastIri) id = this.lastIriId;
        else {
          id = knownIriId(this.version, iri);
          if (id === undefined) {
            id = this.ctx.idOf(this.term(n));
            rememberIriId(this.version, iri, id);
          }
          this.lastIri = iri;
          this.lastIriId = id;
        }
      } else id = this.ctx.idOf(this.term(n));
      this.ids[n] = id;
    }
    return id;
  }
}

/** One plan of a template, and where each query's constants go in it. */
interface PreparedPlan<P> {
  plan: P;
  patternTerms: { n: number; term: ConstantTerm }[];
  constantRefs: { n: number; ref: ConstantRef }[];
  /** The scans of each basic graph pattern in the query's order, and the join order the plan has. */
  orders: { scans: PatternScan[]; order: number[] }[];
  inUse: boolean;
}

/** A basic graph pattern's join-order problem, on copies of its patterns that take each query's constants. */
interface OrderProblem {
  patterns: OrderedPattern[];
  bound: ReadonlySet<number>;
  filters: ReadonlySet<number>[];
  equalities: readonly SlotEquality[];
  /**
   * Join orders by the counts they were chosen from: the order is a function of the counts (the
   * rest of its inputs are fixed for the template and content version), and queries of a template
   * meet the same counts again and again (a product with so many features).
   */
  ordersByCounts: Map<string, number[]>;
  /** Per pattern: whether it holds a query's constant (its count is read per query). */
  perQuery: boolean[];
  /** The counts of the patterns without a query's constant, read once (per content version, as the problems are). */
  fixedCounts: number[] | undefined;
}

/** Join orders remembered per basic graph pattern of a template. */
const MAX_ORDERS_BY_COUNTS = 256;

/** A plan lent to one query; `release` when the query is done with it. */
export interface PlanLoan<P> {
  plan: P;
  release(): void;
}

export class TemplatePlans<P> {
  private version: number | undefined;
  private readonly plans: PreparedPlan<P>[] = [];
  /** Recorded from the first plan made: the same for every plan of the template. */
  private problems: OrderProblem[] | undefined;
  /** The pattern positions of `problems` that hold a query's constant. */
  private problemTerms: { n: number; term: ConstantTerm }[] = [];

  constructor(
    /** The template's term of each placeholder. */
    readonly terms: readonly Term[],
  ) {}

  /** Plans kept (for tests). */
  get size(): number {
    return this.plans.length;
  }

  /**
   * A plan for the query whose constants these are, evaluated in ctx: a kept one with its constants
   * set, or one made by `plan` (given the parameters to plan with). Undefined when the snapshot has
   * no content version (a writer's view): plan the query as usual.
   */
  lend(constants: readonly string[], ctx: ExecContext, plan: (parameters: PlanParameters) => { plan: P; localConstants: boolean }): PlanLoan<P> | undefined {
    const version = ctx.reader.contentVersion?.();
    if (version === undefined) return undefined;
    if (version !== this.version) {
      this.version = version;
      this.plans.length = 0;
      this.problems = undefined;
      this.problemTerms = [];
    }
    const values = new QueryConstants(this.terms, constants, ctx, version);
    if (this.problems) {
      const counts = new PatternCounts(ctx.reader);
      for (const { n, term } of this.problemTerms) term.id = values.id(n);
      const problemCounts = this.problems.map((p) => countsOf(p, ctx, counts));
      const orders = this.problems.map((p, i) => orderFor(p, problemCounts[i], ctx));
      for (const prepared of this.plans) {
        if (prepared.inUse || !sameOrders(prepared, orders)) continue;
        for (const { n, term } of prepared.patternTerms) term.id = values.id(n);
        for (const { n, ref } of prepared.constantRefs) ref.term = values.term(n);
        prepared.orders.forEach(({ scans }, i) => scans.forEach((scan, j) => (scan.constantMatches = problemCounts[i][j])));
        return this.loan(prepared);
      }
    }
    const prepared = this.prepare(values, plan);
    return prepared ? this.loan(prepared) : undefined;
  }

  private loan(prepared: PreparedPlan<P>): PlanLoan<P> {
    prepared.inUse = true;
    return { plan: prepared.plan, release: () => (prepared.inUse = false) };
  }

  /** Plans the template for this query, recording where its constants went; keeps the plan when it can serve others. */
  private prepare(values: QueryConstants, plan: (parameters: PlanParameters) => { plan: P; localConstants: boolean }): PreparedPlan<P> | undefined {
    const patternTerms: { n: number; term: ConstantTerm }[] = [];
    const constantRefs: { n: number; ref: ConstantRef }[] = [];
    const problems: (JoinOrderProblem & { terms: Map<PatternTerm, number> })[] = [];
    const termsOfScans = new Map<PatternTerm, number>();
    const parameters: PlanParameters = {
      placeholder: (term) => placeholderNumber(term),
      patternTerm: (n, label) => {
        const term: ConstantTerm = { kind: 'id', id: values.id(n), label };
        patternTerms.push({ n, term });
        termsOfScans.set(term, n);
        return term;
      },
      expressionConstant: (n) => {
        const ref = { term: values.term(n) };
        constantRefs.push({ n, ref });
        return ref;
      },
      joinOrdered: (problem) => problems.push({ ...problem, terms: termsOfScans }),
    };
    const made = plan(parameters);
    const prepared: PreparedPlan<P> = {
      plan: made.plan,
      patternTerms,
      constantRefs,
      orders: problems.map((p) => ({ scans: p.scans, order: p.order })),
      inUse: false,
    };
    if (!this.problems) this.recordProblems(problems);
    // A constant of the template the store does not hold has an ID of this query only; a plan
    // whose join-order problems do not line up with the recorded ones is not understood: neither is kept.
    const keep = !made.localConstants && this.plans.length < MAX_PLANS_PER_TEMPLATE && this.linesUp(problems);
    if (keep) this.plans.push(prepared);
    return prepared;
  }

  private recordProblems(problems: (JoinOrderProblem & { terms: Map<PatternTerm, number> })[]): void {
    this.problemTerms = [];
    this.problems = problems.map((problem) => ({
      ordersByCounts: new Map(),
      bound: problem.bound,
      filters: problem.filters,
      equalities: problem.equalities,
      patterns: problem.scans.map((scan) => ({
        s: this.problemTerm(scan.s, problem.terms),
        p: this.problemTerm(scan.p, problem.terms),
        o: this.problemTerm(scan.o, problem.terms),
        graph: scan.graph,
        maybe: scan.maybe,
      })),
      perQuery: problem.scans.map((scan) => problem.terms.has(scan.s) || problem.terms.has(scan.p) || problem.terms.has(scan.o)),
      fixedCounts: undefined,
    }));
  }

  /** A copy of a pattern position holding a query's constant (set per query); other positions are shared. */
  private problemTerm(term: PatternTerm, parameterTerms: Map<PatternTerm, number>): PatternTerm {
    const n = parameterTerms.get(term);
    if (n === undefined || term.kind !== 'id') return term;
    const copy: ConstantTerm = { ...term };
    this.problemTerms.push({ n, term: copy });
    return copy;
  }

  private linesUp(problems: readonly JoinOrderProblem[]): boolean {
    const recorded = this.problems!;
    if (recorded.length !== problems.length) return false;
    return problems.every(
      (p, i) =>
        p.scans.length === recorded[i].patterns.length &&
        sameSet(p.bound, recorded[i].bound) &&
        p.filters.length === recorded[i].filters.length &&
        p.equalities.length === recorded[i].equalities.length,
    );
  }
}

/** The constant counts of a problem's patterns for this query: read for the patterns holding its constants, once for the others. */
function countsOf(problem: OrderProblem, ctx: ExecContext, patternCounts: PatternCounts): number[] {
  problem.fixedCounts ??= constantCounts(problem.patterns, ctx, patternCounts);
  const counts = problem.fixedCounts.slice();
  for (let i = 0; i < counts.length; i++) if (problem.perQuery[i]) counts[i] = constantCount(problem.patterns[i], ctx, patternCounts);
  return counts;
}

function orderFor(problem: OrderProblem, counts: number[], ctx: ExecContext): number[] {
  // The other counts are the same for every query (for the template's content version).
  let key = '';
  for (let i = 0; i < counts.length; i++) if (problem.perQuery[i]) key += `${counts[i]} `;
  let order = problem.ordersByCounts.get(key);
  if (order === undefined) {
    order = joinOrder(problem.patterns, counts, problem.bound, ctx, problem.filters, undefined, problem.equalities);
    if (problem.ordersByCounts.size >= MAX_ORDERS_BY_COUNTS) problem.ordersByCounts.clear();
    problem.ordersByCounts.set(key, order);
  }
  return order;
}

function sameOrders(prepared: PreparedPlan<unknown>, orders: readonly number[][]): boolean {
  for (let i = 0; i < orders.length; i++) {
    const a = prepared.orders[i].order;
    const b = orders[i];
    for (let j = 0; j < b.length; j++) if (a[j] !== b[j]) return false;
  }
  return true;
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** Per template parse (the template cache's own object): its plans, or null when it cannot have any. */
const byTemplate = new WeakMap<ParsedQuery, TemplatePlans<unknown> | null>();

/** The plans of a template, or undefined when its placeholders sit where a plan cannot take a query's constants. */
export function templatePlansOf<P>(template: ParsedQuery): TemplatePlans<P> | undefined {
  let plans = byTemplate.get(template);
  if (plans === undefined) {
    const terms = placeholderTerms(template.algebra);
    plans = terms ? new TemplatePlans<unknown>(terms) : null;
    byTemplate.set(template, plans);
  }
  return (plans ?? undefined) as TemplatePlans<P> | undefined;
}

/** The template term of each placeholder, or undefined when one sits where a plan cannot take a query's constant. */
export function placeholderTerms(algebra: Algebra.Operation): Term[] | undefined {
  const terms: Term[] = [];
  let usable = true;
  const visit = (node: unknown, allowed: boolean): void => {
    if (!usable || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, allowed);
      return;
    }
    const record = node as Record<string, unknown>;
    const termType = record.termType;
    if (termType === 'NamedNode' || termType === 'Literal') {
      const n = placeholderNumber(node as Term);
      if (n === undefined) return;
      if (allowed) terms[n] = node as Term;
      else usable = false;
      return;
    }
    if (termType === 'Variable' || termType === 'BlankNode' || termType === 'DefaultGraph') return;
    if (termType === 'Quad') {
      // A pattern (of a basic graph pattern, or of a CONSTRUCT template, which is instantiated per query).
      visit(record.subject, true);
      visit(record.predicate, true);
      visit(record.object, true);
      visit(record.graph, false);
      return;
    }
    switch (record.type) {
      case 'from':
      case 'service':
        usable = false;
        return;
      case 'expression':
        if (record.subType === 'term') {
          visit(record.term, true);
          return;
        }
        break;
      case 'describe':
        visit(record.input, false);
        visit(record.terms, true);
        return;
    }
    for (const key of Object.keys(record)) visit(record[key], false);
  };
  visit(algebra, false);
  if (!usable) return undefined;
  for (let n = 0; n < terms.length; n++) if (terms[n] === undefined) return undefined;
  return terms;
}
