/**
 * Join order of a basic graph pattern: greedy, cheapest pattern first given what is already
 * bound, preferring patterns connected to the bound variables. Cardinalities come from the
 * store's statistics and from counts of the constants' index prefixes.
 */
import type { ExecContext } from '../context.js';
import { DEFAULT_GRAPH_ID, QUERY_LOCAL_ID_BASE } from '../../store/quad-store.js';
import type { PatternScan, PatternTerm } from '../operators/pattern-scan.js';
import { PatternCounts } from './pattern-counts.js';

export function orderPatterns(
  patterns: PatternScan[],
  bound: ReadonlySet<number>,
  ctx: ExecContext,
  /** The slots of each filter pushed into the pattern: a scan that completes one is worth more. */
  filters: ReadonlySet<number>[] = [],
  patternCounts: PatternCounts = new PatternCounts(ctx.reader),
): PatternScan[] {
  // Planning runs once per query, and for cheap queries it costs as much as evaluating them: the
  // candidates' loop below allocates nothing, and each pattern's constant count is read once.
  const pendingFilters = [...filters];
  const remaining = [...patterns];
  const counts = patterns.map((p) => constantCount(p, ctx, patternCounts));
  const ordered: PatternScan[] = [];
  const boundNow = new Set(bound);
  let cardinality = 1;
  while (remaining.length > 0) {
    let best = 0;
    let bestCost = Infinity;
    for (let i = 0; i < remaining.length; i++) {
      const p = remaining[i];
      const est = estimateWithBindings(p, counts[i], boundNow, ctx);
      const connected = ordered.length === 0 || bindsAny(p.maybe, boundNow);
      // An unconnected pattern is a cross product with everything before it.
      const cost = (connected ? est : est * Math.max(1, cardinality) * 10) * filterFactor(countCompletedFilters(pendingFilters, boundNow, p));
      if (cost < bestCost) {
        bestCost = cost;
        best = i;
      }
    }
    const chosen = remaining.splice(best, 1)[0];
    const count = counts.splice(best, 1)[0];
    chosen.estimate = estimateWithBindings(chosen, count, boundNow, ctx);
    chosen.constantMatches = count;
    const completed = completedFilters(pendingFilters, boundNow, chosen);
    cardinality = Math.max(1, cardinality * Math.max(chosen.estimate, 0.01) * filterFactor(completed.length));
    for (const f of completed) pendingFilters.splice(pendingFilters.indexOf(f), 1);
    ordered.push(chosen);
    for (const s of chosen.maybe) boundNow.add(s);
  }
  return ordered;
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
  for (const p of patterns) {
    p.estimate = estimateWithBindings(p, constantCount(p, ctx, patternCounts), boundNow, ctx);
    for (const s of p.maybe) boundNow.add(s);
  }
  return patterns;
}

/** The filters whose last missing slot the pattern binds. */
function completedFilters(filters: ReadonlySet<number>[], bound: ReadonlySet<number>, p: PatternScan): ReadonlySet<number>[] {
  return filters.filter((f) => isCompletedBy(f, bound, p));
}

function countCompletedFilters(filters: readonly ReadonlySet<number>[], bound: ReadonlySet<number>, p: PatternScan): number {
  let n = 0;
  for (const f of filters) if (isCompletedBy(f, bound, p)) n++;
  return n;
}

function isCompletedBy(filter: ReadonlySet<number>, bound: ReadonlySet<number>, p: PatternScan): boolean {
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
function constantCount(p: PatternScan, ctx: ExecContext, counts: PatternCounts): number {
  const s = constId(p.s);
  const pr = constId(p.p);
  const o = constId(p.o);
  if (s >= QUERY_LOCAL_ID_BASE || pr >= QUERY_LOCAL_ID_BASE || o >= QUERY_LOCAL_ID_BASE) return 0;
  const stats = ctx.statistics();
  const g = p.graph.kind === 'id' ? p.graph.id : p.graph.kind === 'default' && ctx.dataset.defaultGraphs.length === 1 ? ctx.dataset.defaultGraphs[0] : -1;
  if (s === 0 && o === 0) {
    if (pr === 0) return g === -1 ? stats.quadCount : stats.graphCounts.get(g) ?? 0;
    const perPredicate = stats.predicateCounts.get(pr) ?? 0;
    // Statistics are per predicate over all graphs; scale to the graph's share.
    if (g === DEFAULT_GRAPH_ID && stats.quadCount > 0) return Math.ceil((perPredicate * stats.defaultGraphCount) / stats.quadCount);
    return perPredicate;
  }
  if (g === -1) return counts.count(s, pr, o, 0) + counts.count(s, pr, o, DEFAULT_GRAPH_ID);
  return counts.count(s, pr, o, g);
}

function estimateWithBindings(p: PatternScan, base: number, bound: ReadonlySet<number>, ctx: ExecContext): number {
  const sVar = isBoundVariable(p.s, bound);
  const pVar = isBoundVariable(p.p, bound);
  const oVar = isBoundVariable(p.o, bound);
  if ((sVar || p.s.kind === 'id') && (pVar || p.p.kind === 'id') && (oVar || p.o.kind === 'id')) return Math.min(base, 0.5);
  if (!sVar && !oVar && !pVar) return base;
  const stats = ctx.statistics();
  let est = base;
  if (sVar) est /= Math.max(1, Math.min(est, stats.distinctSubjects));
  if (oVar) est /= Math.max(1, Math.min(est, stats.distinctObjects));
  if (pVar) est /= Math.max(1, stats.predicateCounts.size);
  return est;
}

function isBoundVariable(t: PatternTerm, bound: ReadonlySet<number>): boolean {
  return t.kind === 'slot' && bound.has(t.slot);
}
