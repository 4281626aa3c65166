/** Resolves FROM / FROM NAMED (or the protocol's dataset parameters) to store graph IDs. */
import type { NamedNode } from '../rdf/index.js';
import { namedNode } from '../rdf/index.js';
import type { StoreReader } from '../store/index.js';
import { type Dataset, storeDataset } from './exec-context.js';

export interface DatasetClauses {
  default: NamedNode[];
  named: NamedNode[];
  /** An update's WITH <g> (no USING): <g> is the default graph, every named graph stays visible. */
  namedGraphsOfStore?: boolean;
}

/**
 * With neither clauses nor parameters, the store's dataset: its default graph (or, with
 * `unionDefaultGraph`, the union of all its graphs) and every named graph. Otherwise exactly the
 * graphs named; graphs the store does not hold are empty.
 */
export function resolveDataset(
  reader: StoreReader,
  clauses: DatasetClauses | undefined,
  defaultUris?: string[],
  namedUris?: string[],
  unionDefaultGraph?: boolean,
): Dataset {
  const fromProtocol = (defaultUris?.length ?? 0) > 0 || (namedUris?.length ?? 0) > 0;
  const chosen: DatasetClauses | undefined = fromProtocol ? { default: (defaultUris ?? []).map(namedNode), named: (namedUris ?? []).map(namedNode) } : clauses;
  if (!chosen || (chosen.default.length === 0 && chosen.named.length === 0)) return storeDataset(unionDefaultGraph);
  const ids = (graphs: NamedNode[]) => graphs.map((g) => reader.idOf(g)).filter((id): id is number => id !== undefined);
  return { defaultGraphs: ids(chosen.default), namedGraphs: chosen.namedGraphsOfStore ? null : ids(chosen.named) };
}
