/**
 * Join order of a basic graph pattern: greedy, cheapest pattern first given what is already
 * bound, preferring patterns connected to the bound variables. Cardinalities come from the
 * store's statistics and from counts of the constants' index prefixes.
 */
import type { ExecContext } from '../context.js';
import { DEFAULT_GRAPH_ID, QUERY_LOCAL_ID_BASE } from '../../store/quad-store.js';
import type { PatternScan, PatternTerm } from '../operators/pattern-scan.js';

export function orderPatterns(
  patterns: PatternScan[],
  bound: ReadonlySet<number>,
  ctx: ExecContext,
  /** The slots of each filter pushed into the pattern: a scan that completes one is worth more. */
  filters: ReadonlySet<number>[] = [],
): PatternScan[] {
  const pendingFilters = [...filters];
  const remaining = [...patterns];
  const ordered: PatternScan[] = [];
  const boundNow = new Set(bound);
  const counts = new Map<PatternScan, number>();
  const baseCount = (p: PatternScan) => {
    let c = counts.get(p);
    if (c === undefined) {
      c = constantCount(p, ctx);
      counts.set(p, c);
    }
    return c;
  };
  let cardinality = 1;
  while (remaining.length > 0) {
    let best = 0;
    let bestCost = Infinity;
    remaining.forEach((p, i) => {
      const est = estimateWithBindings(p, baseCount(p), boundNow, ctx);
      const connected = ordered.length === 0 || [...p.maybe].some((s) => boundNow.has(s));
      // An unconnected pattern is a cross product with everything before it.
      const cost = (connected ? est : est * Math.max(1, cardinality) * 10) * filterFactor(completedFilters(pendingFilters, boundNow, p).length);
      if (cost < bestCost) {
        bestCost = cost;
        best = i;
      }
    });
    const chosen = remaining.splice(best, 1)[0];
    chosen.estimate = estimateWithBindings(chosen, baseCount(chosen), boundNow, ctx);
    chosen.constantMatches = baseCount(chosen);
    const completed = completedFilters(pendingFilters, boundNow, chosen);
    cardinality = Math.max(1, cardinality * Math.max(chosen.estimate, 0.01) * filterFactor(completed.length));
    for (const f of completed) pendingFilters.splice(pendingFilters.indexOf(f), 1);
    ordered.push(chosen);
    for (const s of chosen.maybe) boundNow.add(s);
  }
  return ordered;
}

/** The patterns in the query's own order (no optimizer), each with its estimate given what precedes it. */
export function keepTextualOrder(patterns: PatternScan[], bound: ReadonlySet<number>, ctx: ExecContext): PatternScan[] {
  const boundNow = new Set(bound);
  for (const p of patterns) {
    p.estimate = estimateWithBindings(p, constantCount(p, ctx), boundNow, ctx);
    for (const s of p.maybe) boundNow.add(s);
  }
  return patterns;
}

/** The filters whose last missing slot the pattern binds. */
function completedFilters(filters: ReadonlySet<number>[], bound: ReadonlySet<number>, p: PatternScan): ReadonlySet<number>[] {
  return filters.filter((f) => [...f].every((s) => bound.has(s) || p.maybe.has(s)));
}

/** Each filter is assumed to keep half of the solutions. */
function filterFactor(filters: number): number {
  return 0.5 ** filters;
}

function constId(t: PatternTerm): number {
  return t.kind === 'id' ? t.id : 0;
}

/** Quads matching the pattern's constants, variables left open. */
function constantCount(p: PatternScan, ctx: ExecContext): number {
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
  if (g === -1) return ctx.reader.count(s, pr, o, 0) + ctx.reader.count(s, pr, o, DEFAULT_GRAPH_ID);
  return ctx.reader.count(s, pr, o, g);
}

function estimateWithBindings(p: PatternScan, base: number, bound: ReadonlySet<number>, ctx: ExecContext): number {
  const stats = ctx.statistics();
  const isBoundVar = (t: PatternTerm) => t.kind === 'slot' && bound.has(t.slot);
  const sBound = p.s.kind === 'id' || isBoundVar(p.s);
  const pBound = p.p.kind === 'id' || isBoundVar(p.p);
  const oBound = p.o.kind === 'id' || isBoundVar(p.o);
  if (sBound && pBound && oBound) return Math.min(base, 0.5);
  let est = base;
  if (isBoundVar(p.s)) est /= Math.max(1, Math.min(est, stats.distinctSubjects));
  if (isBoundVar(p.o)) est /= Math.max(1, Math.min(est, stats.distinctObjects));
  if (isBoundVar(p.p)) est /= Math.max(1, stats.predicateCounts.size);
  return est;
}
