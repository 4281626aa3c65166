/**
 * The RDF/JS `match`, `remove` and `removeMatches` arguments as the store's quad patterns. Terms go
 * as they are, stored blank nodes included: a blank node that `match` returned names that node when
 * it is passed back (store/term-pattern-scan.ts), which SPARQL text could not say.
 */
import type * as RDF from '@rdfjs/types';
import { ProtocolError } from '../errors.js';
import type { QuadPattern } from '../store/index.js';

export type TermPattern = RDF.Term | null | undefined;

/** The pattern of match(s, p, o, g): null, undefined and variables match anything. */
export function quadPattern(subject: TermPattern, predicate: TermPattern, object: TermPattern, graph: TermPattern): QuadPattern {
  return [subject, predicate, object, graph].map((term) => (isBound(term) ? term : undefined)) as QuadPattern;
}

/** The pattern that matches this one quad only. */
export function exactPattern(quad: RDF.Quad): QuadPattern {
  return [quad.subject, quad.predicate, quad.object, quad.graph];
}

/** The graph of deleteGraph as an IRI, or null for the default graph. */
export function graphName(graph: RDF.Quad_Graph | string): string | null {
  if (typeof graph === 'string') return graph;
  if (graph.termType === 'DefaultGraph') return null;
  if (graph.termType === 'NamedNode') return graph.value;
  throw new ProtocolError(`a graph to delete is an IRI or the default graph, not a ${graph.termType}`);
}

function isBound(term: TermPattern): term is RDF.Term {
  return term !== null && term !== undefined && term.termType !== 'Variable';
}
