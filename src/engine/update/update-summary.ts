/**
 * What an update did: the quads it really inserted and deleted, in total and per graph. A change
 * counts only when the store changed: inserting a quad already present, or deleting one that is
 * absent, counts nothing. Figures add up over the request's operations, so a quad that one
 * operation deletes and the next inserts again counts once in each. CREATE changes no quad; DROP
 * and CLEAR count the quads they remove, MOVE and COPY those they remove from the destination and
 * the source besides the quads they add.
 */
import type { Term } from '../../rdf/index.js';
import { DEFAULT_GRAPH_ID, type TermId } from '../../store/index.js';

export interface GraphChanges {
  /** The graph's IRI; null for the default graph. */
  graph: string | null;
  inserted: number;
  deleted: number;
}

export interface UpdateSummary {
  inserted: number;
  deleted: number;
  /** The graphs where something changed, default graph first, then by IRI. */
  graphs: GraphChanges[];
}

/** Counts changes by graph ID as the executor makes them; named at the end, inside the transaction. */
export class UpdateTally {
  private readonly byGraph = new Map<TermId, { inserted: number; deleted: number }>();

  inserted(graph: TermId, count = 1): void {
    if (count > 0) this.entry(graph).inserted += count;
  }

  deleted(graph: TermId, count = 1): void {
    if (count > 0) this.entry(graph).deleted += count;
  }

  summary(termOf: (id: TermId) => Term): UpdateSummary {
    const graphs: GraphChanges[] = [...this.byGraph].map(([id, c]) => ({
      graph: id === DEFAULT_GRAPH_ID ? null : termOf(id).value,
      inserted: c.inserted,
      deleted: c.deleted,
    }));
    graphs.sort((a, b) => (a.graph === null ? -1 : b.graph === null ? 1 : a.graph < b.graph ? -1 : a.graph > b.graph ? 1 : 0));
    return {
      inserted: graphs.reduce((n, g) => n + g.inserted, 0),
      deleted: graphs.reduce((n, g) => n + g.deleted, 0),
      graphs,
    };
  }

  private entry(graph: TermId): { inserted: number; deleted: number } {
    let e = this.byGraph.get(graph);
    if (!e) this.byGraph.set(graph, (e = { inserted: 0, deleted: 0 }));
    return e;
  }
}
