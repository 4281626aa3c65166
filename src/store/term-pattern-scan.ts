/**
 * Quad patterns of terms (the RDF/JS `match` and `removeMatches` kind) over the store's IDs. A
 * pattern names terms as the store holds them, stored blank nodes included: a blank node read from
 * the store finds the same node again, which SPARQL text cannot say (its blank nodes are variables).
 */
import { factory, termFromKey, termKey, type Quad, type Term } from '../rdf/index.js';
import { ANY, DEFAULT_GRAPH_ID, type StoreReader, type StoreWriter, type TermId } from './quad-store.js';

/**
 * Subject, predicate, object, graph; undefined matches anything. An undefined graph matches the
 * default graph and every named graph; the DefaultGraph term only the default graph.
 */
export type QuadPattern = [Term | undefined, Term | undefined, Term | undefined, Term | undefined];

/** A pattern as term keys (null: anything), to send to another thread. */
export type KeyedPattern = (string | null)[];

export function keyedPattern(pattern: QuadPattern): KeyedPattern {
  return pattern.map((term) => (term === undefined ? null : termKey(term)));
}

export function patternOfKeys(keys: KeyedPattern): QuadPattern {
  return keys.map((key) => (key === null ? undefined : termFromKey(key))) as QuadPattern;
}

/** The matching quads as IDs, each graph scan in turn; nothing when a named term is not in the store. */
export function* scanPattern(reader: StoreReader, pattern: QuadPattern): Generator<[TermId, TermId, TermId, TermId]> {
  const ids: TermId[] = [];
  for (const term of pattern.slice(0, 3)) {
    const id = term === undefined ? ANY : reader.idOf(term);
    if (id === undefined) return;
    ids.push(id);
  }
  const graph = pattern[3];
  let graphs: TermId[];
  if (graph === undefined) graphs = [DEFAULT_GRAPH_ID, ANY];
  else if (graph.termType === 'DefaultGraph') graphs = [DEFAULT_GRAPH_ID];
  else {
    const id = reader.idOf(graph);
    if (id === undefined || id === DEFAULT_GRAPH_ID) return;
    graphs = [id];
  }
  for (const g of graphs) {
    // The scan may hand out one array for every quad: copy its values.
    for (const quad of reader.scan(ids[0]!, ids[1]!, ids[2]!, g)) yield [quad[0]!, quad[1]!, quad[2]!, quad[3]!];
  }
}

/** The matching quads as terms, in batches of up to `batchSize`. */
export function* matchingQuads(reader: StoreReader, pattern: QuadPattern, batchSize = 1024): Generator<Quad[]> {
  let batch: Quad[] = [];
  for (const [s, p, o, g] of scanPattern(reader, pattern)) {
    const graph = g === DEFAULT_GRAPH_ID ? factory.defaultGraph() : reader.termOf(g);
    batch.push(
      factory.quad(reader.termOf(s) as Quad['subject'], reader.termOf(p) as Quad['predicate'], reader.termOf(o) as Quad['object'], graph as Quad['graph']),
    );
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Removes every quad that matches one of the patterns; returns how many were removed. */
export function removeMatching(writer: StoreWriter, patterns: QuadPattern[]): number {
  let removed = 0;
  for (const pattern of patterns) {
    // Collected first: a scan does not survive the removals it would see.
    const quads = [...scanPattern(writer, pattern)];
    for (const [s, p, o, g] of quads) if (writer.remove(s, p, o, g)) removed++;
  }
  return removed;
}
