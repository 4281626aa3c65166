/**
 * Store IDs of the IRIs queries name, shared by the queries on snapshots of one content version
 * (StoreReader.contentVersion). Templates name the same predicates and classes in every query, and
 * the store's own look-up builds and hashes a fresh canonical key each time; here the key is the
 * IRI's text, whose hash the planner's per-query map has already computed. Only IDs the store holds
 * are kept (a query-local ID belongs to one query), and the table starts afresh with each version.
 */
import { BoundedMap } from '../../bounded-map.js';
import { QUERY_LOCAL_ID_BASE, type TermId } from '../../store/index.js';

const MAX_ENTRIES = 16384;

let tableVersion: number | undefined;
const table = new BoundedMap<string, TermId>(MAX_ENTRIES);

/** The stored ID of an IRI under this content version, if a query has looked it up before. */
export function knownIriId(version: number, iri: string): TermId | undefined {
  return tableVersion === version ? table.get(iri) : undefined;
}

/** Remembers the ID the store gave an IRI under this version (query-local IDs are not kept). */
export function rememberIriId(version: number, iri: string, id: TermId): void {
  if (id >= QUERY_LOCAL_ID_BASE) return;
  if (tableVersion !== version) {
    tableVersion = version;
    table.clear();
  }
  table.set(iri, id);
}
