/**
 * Where a pattern looks for its quads: the dataset's default graph, one named graph, or the named
 * graph a variable binds (GRAPH ?g). Resolving it per solution gives the graph IDs to scan.
 */
import { ANY, QUERY_LOCAL_ID_BASE, UNBOUND, type TermId } from '../../store/index.js';
import type { ExecContext } from '../exec-context.js';

/** A constant graph keeps its IRI as `label` (`<iri>`) for the plan's details. */
export type GraphRef = { kind: 'default' } | { kind: 'id'; id: TermId; label?: string } | { kind: 'slot'; slot: number };

export const DEFAULT_GRAPH_REF: GraphRef = { kind: 'default' };

const NONE: TermId[] = [];

/**
 * Graph IDs to scan for one solution. ANY stands for "every named graph" when the dataset has all
 * of them (one scan of the graph-first indexes instead of one per graph).
 */
export function graphsToScan(ref: GraphRef, row: Float64Array, offset: number, ctx: ExecContext): TermId[] {
  switch (ref.kind) {
    case 'default':
      return ctx.dataset.defaultGraphs;
    case 'id':
      return ctx.isNamedGraph(ref.id) ? [ref.id] : NONE;
    case 'slot': {
      const bound = row[offset + ref.slot];
      if (bound !== UNBOUND) return bound < QUERY_LOCAL_ID_BASE && ctx.isNamedGraph(bound) ? [bound] : NONE;
      return ctx.allNamedGraphs ? [ANY] : ctx.namedGraphIds();
    }
  }
}

/** Whether scanning these graphs may give the same triple twice (a default graph merged from several). */
export function needsDedupe(ref: GraphRef, ctx: ExecContext): boolean {
  return ref.kind === 'default' && ctx.dataset.defaultGraphs.length > 1;
}
