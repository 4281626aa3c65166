/**
 * Join order of a basic graph pattern: greedy, cheapest pattern first given what is already
 * bound, preferring patterns connected to the bound variables. Cardinalities come from the
 * store's statistics and from counts of the constants' index prefixes.
 */
import type { ExecContext } from '../exec-context.js';
import { DEFAULT_GRAPH_ID, QUERY_LOCAL_ID_BASE, UNION_GRAPH } from '../../store/index.js';
import type { PatternScan, PatternTerm } from '../operators/pattern-scan.js';
import { PatternCounts } from './pattern-counts.js';
import { addWithEqualPartners, type SlotEquality } from './variable-equalities.js';

export function orderPatterns(
  patterns: PatternScan[],
  bound: ReadonlySet<number>,
  ctx: ExecContext,
  /** The slots of each filter pushed into the pattern: a scan that completes one is worth more. */
  filters: ReadonlySet<number>[] = [],
  patternCounts: PatternCounts = new PatternCounts(ctx.reader),
  /** Filters equating two variables: binding one side binds the other (equality-bind.ts). */
  equalities: readonly SlotEquality[] = [],
): PatternScan[] {
  const counts = constantCounts(patterns, ctx, patternCounts);
  const estimates: number[] = [];
  const order = joinOrder(patterns, counts, bound, ctx, filters, estimates, equalities);
  return order.map((index, step) => {
    const chosen = patterns[index];
    chosen.estimate = estimates[step];
    chosen.constantMatches = counts[index];
    return chosen;
  });
}

/** Each pattern's count of quads matching its constants (what the join order starts from). */
export function constantCounts(patterns: readonly OrderedPattern[], ctx: ExecContext, patternCounts: PatternCounts): number[] {
  const counts: number[] = [];
  for (const p of patterns) counts.push(constantCount(p, ctx, patternCounts));
  return counts;
}

/** The parts of a pattern scan the join order reads. */
export type OrderedPattern = Pick<PatternScan, 's' | 'p' | 'o' | 'graph' | 'maybe'>;

/**
 * The greedy join order, as indexes into `patterns`: a function of the patterns' shapes, their
 * constant counts, the bound slots, the filters and the store statistics only (prepared plans
 * rely on that to check that a plan made for other constants is the one these would get).
 * `estimates` receives each chosen pattern's estimate, in the order chosen.
 */
export function joinOrder(
  patterns: readonly OrderedPattern[],
  counts: readonly number[],
  bound: ReadonlySet<number>,
  ctx: ExecContext,
  filters: readonly ReadonlySet<number>[] = [],
  estimates?: number[],
  equalities: readonly SlotEquality[] = [],
): number[] {
  // Planning runs once per query, and for cheap queries it costs as much as evaluating them: the
  // candidates' loop below allocates nothing, and each pattern's constant count is read once.
  const pendingFilters = [...filters];
  const remaining: number[] = [];
  for (let i = 0; i < patterns.length; i++) remaining.push(i);
  const order: number[] = [];
  const boundNow = new Set(bound);
  const domains: Domains = new Map();
  let cardinality = 1;
  while (remaining.length > 0) {
    let best = 0;
    let bestCost = Infinity;
    for (let i = 0; i < remaining.length; i++) {
      const p = patterns[remaining[i]];
      const est = estimateWithBindings(p, counts[remaining[i]], boundNow, ctx, domains);
      const connected = order.length === 0 || bindsAny(p.maybe, boundNow);
      // An unconnected pattern is a cross product with everything before it.
      const cost = (connected ? est : est * Math.max(1, cardinality) * 10) * filterFactor(countCompletedFilters(pendingFilters, boundNow, p));
      if (cost < bestCost) {
        bestCost = cost;
        best = i;
      }
    }
    const index = remaining.splice(best, 1)[0];
    const chosen = patterns[index];
    const estimate = estimateWithBindings(chosen, counts[index], boundNow, ctx, domains);
    estimates?.push(estimate);
    const completed = completedFilters(pendingFilters, boundNow, chosen);
    cardinality = Math.max(1, cardinality * Math.max(estimate, 0.01) * filterFactor(completed.length));
    recordDomains(chosen, counts[index], cardinality, boundNow, domains, ctx);
    for (const f of completed) pendingFilters.splice(pendingFilters.indexOf(f), 1);
    order.push(index);
    for (const s of chosen.maybe) addWithEqualPartners(boundNow, s, equalities);
  }
  return order;
}

function bindsAny(slots: ReadonlySet<number>, bound: ReadonlySet<number>): boolean {
  for (const s of slots) if (bound.has(s)) return true;
  return false;
}

/** The patterns in the query's own order (no optimizer), each with its estimate given what precedes it. */
export function keepTextualOrder(
  patterns: PatternScan[],
  bound: ReadonlySet<number>,
  ctx: ExecContext,
  patternCounts: PatternCounts = new PatternCounts(ctx.reader),
): PatternScan[] {
  const boundNow = new Set(bound);
  const domains: Domains = new Map();
  let rows = 1;
  for (const p of patterns) {
    const base = constantCount(p, ctx, patternCounts);
    p.estimate = estimateWithBindings(p, base, boundNow, ctx, domains);
    rows = Math.max(1, rows * Math.max(p.estimate, 0.01));
    recordDomains(p, base, rows, boundNow, domains, ctx);
    for (const s of p.maybe) boundNow.add(s);
  }
  return patterns;
}

/** The filters whose last missing slot the pattern binds. */
function completedFilters(filters: ReadonlySet<number>[], bound: ReadonlySet<number>, p: OrderedPattern): ReadonlySet<number>[] {
  return filters.filter((f) => isCompletedBy(f, bound, p));
}

function countCompletedFilters(filters: readonly ReadonlySet<number>[], bound: ReadonlySet<number>, p: OrderedPattern): number {
  let n = 0;
  for (const f of filters) if (isCompletedBy(f, bound, p)) n++;
  return n;
}

function isCompletedBy(filter: ReadonlySet<number>, bound: ReadonlySet<number>, p: OrderedPattern): boolean {
  for (const s of filter) if (!bound.has(s) && !p.maybe.has(s)) return false;
  return true;
}

/** Each filter is assumed to keep half of the solutions. */
function filterFactor(filters: number): number {
  return 0.5 ** filters;
}

function constId(t: PatternTerm): number {
  return t.kind === 'id' ? t.id : 0;
}

/** Quads matching the pattern's constants, variables left open. */
export function constantCount(p: OrderedPattern, ctx: ExecContext, counts: PatternCounts): number {
  const s = constId(p.s);
  const pr = constId(p.p);
  const o = constId(p.o);
  if (s >= QUERY_LOCAL_ID_BASE || pr >= QUERY_LOCAL_ID_BASE || o >= QUERY_LOCAL_ID_BASE) return 0;
  const stats = ctx.statistics();
  const g = p.graph.kind === 'id' ? p.graph.id : p.graph.kind === 'default' && ctx.dataset.defaultGraphs.length === 1 ? ctx.dataset.defaultGraphs[0] : -1;
  if (s === 0 && o === 0) {
    if (pr === 0) return g === -1 || g === UNION_GRAPH ? stats.quadCount : (stats.graphCounts.get(g) ?? 0);
    const perPredicate = stats.predicateCounts.get(pr) ?? 0;
    // Statistics are per predicate over all graphs; scale to the graph's share.
    if (g === DEFAULT_GRAPH_ID && stats.quadCount > 0) return Math.ceil((perPredicate * stats.defaultGraphCount) / stats.quadCount);
    return perPredicate;
  }
  if (g === -1) return counts.count(s, pr, o, 0) + counts.count(s, pr, o, DEFAULT_GRAPH_ID);
  return counts.count(s, pr, o, g);
}

/**
 * How many distinct values each variable bound by the patterns ordered so far is estimated to have
 * (slot -> count): what a later pattern that reads the variable is looked up with. A variable bound
 * before the basic graph pattern (by the steps before it) has none.
 */
type Domains = Map<number, number>;

/**
 * Rows the pattern gives per solution of what precedes it. A subject bound by an earlier pattern is
 * one of the predicate's distinct subjects when it is a subject of the predicate at all: joining
 * the variable's `domain` distinct values with the predicate's distinct subjects, the smaller set
 * taken to be within the larger, gives count / max(distinct subjects, domain) per binding (the
 * object likewise; with the other position a constant, the pattern's matches are its distinct
 * values). The distinct subjects and objects come from the store's per-predicate figures; the
 * store-wide ones, far off for a predicate whose subjects are few (issue 23), are the fall-back for
 * a predicate without figures, a variable predicate, and stores written before the figures.
 */
function estimateWithBindings(p: OrderedPattern, base: number, bound: ReadonlySet<number>, ctx: ExecContext, domains?: ReadonlyMap<number, number>): number {
  const sVar = isBoundVariable(p.s, bound);
  const pVar = isBoundVariable(p.p, bound);
  const oVar = isBoundVariable(p.o, bound);
  if ((sVar || p.s.kind === 'id') && (pVar || p.p.kind === 'id') && (oVar || p.o.kind === 'id')) return Math.min(base, 0.5);
  if (!sVar && !oVar && !pVar) return base;
  const stats = ctx.statistics();
  let est = base;
  if (sVar) est = perBinding(est, distinctAt(p, 's', base, ctx), domainOf(p.s, domains), stats.distinctSubjects);
  if (oVar) est = perBinding(est, distinctAt(p, 'o', base, ctx), domainOf(p.o, domains), stats.distinctObjects);
  if (pVar) est /= Math.max(1, stats.predicateCounts.size);
  return est;
}

/** Rows per binding of one bound position: by the pattern's distinct values there where known, else the store-wide ones. */
function perBinding(est: number, distinct: number | undefined, domain: number | undefined, storeWide: number): number {
  if (distinct === undefined) return est / Math.max(1, Math.min(est, storeWide));
  return est / Math.max(1, distinct, domain ?? 0);
}

/**
 * The pattern's distinct values at its subject (object) position, from its predicate's figures:
 * with the other position a constant, at most its `base` matches. Undefined without figures.
 */
function distinctAt(p: OrderedPattern, position: 's' | 'o', base: number, ctx: ExecContext): number | undefined {
  if (p.p.kind !== 'id') return undefined;
  const stats = ctx.statistics();
  const figures = position === 's' ? stats.predicateSubjects : stats.predicateObjects;
  const distinct = figures?.get(p.p.id);
  if (distinct === undefined) return undefined;
  const other = position === 's' ? p.o : p.s;
  return other.kind === 'id' ? Math.min(distinct, base) : distinct;
}

function domainOf(t: PatternTerm, domains: ReadonlyMap<number, number> | undefined): number | undefined {
  return t.kind === 'slot' ? domains?.get(t.slot) : undefined;
}

/** The domains of the variables the chosen pattern binds first: its distinct values there, at most the rows so far. */
function recordDomains(p: OrderedPattern, base: number, rows: number, bound: ReadonlySet<number>, domains: Domains, ctx: ExecContext): void {
  for (const position of ['s', 'o'] as const) {
    const t = p[position];
    if (t.kind !== 'slot' || bound.has(t.slot) || domains.has(t.slot)) continue;
    domains.set(t.slot, Math.min(distinctAt(p, position, base, ctx) ?? Infinity, rows));
  }
}

function isBoundVariable(t: PatternTerm, bound: ReadonlySet<number>): boolean {
  return t.kind === 'slot' && bound.has(t.slot);
}
