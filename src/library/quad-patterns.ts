/**
 * The RDF/JS `match` and `removeMatches` patterns, and quads to add or remove, as SPARQL text for
 * the service. A stored blank node cannot be named in SPARQL (its label is the store's, and blank
 * nodes in a query are variables), so a pattern or a removal that names one is refused clearly.
 */
import type * as RDF from '@rdfjs/types';
import { ProtocolError } from '../errors.js';
import { ntriplesTerm } from '../formats/index.js';
import { factory } from '../rdf/index.js';

export type TermPattern = RDF.Term | null | undefined;

const POSITIONS = ['s', 'p', 'o', 'g'] as const;

/**
 * SELECT * over the quads that match: the unbound positions are the variables ?s ?p ?o ?g (see
 * quadOfSolution). An absent graph term matches every graph, the default one included.
 */
export function matchQuery(subject: TermPattern, predicate: TermPattern, object: TermPattern, graph: TermPattern): string {
  const [s, p, o] = [subject, predicate, object].map((term, i) => patternTerm(term, POSITIONS[i]!));
  const triple = `${s} ${p} ${o} .`;
  if (isBound(graph) && graph.termType === 'DefaultGraph') return `SELECT * WHERE { ${triple} }`;
  if (isBound(graph)) return `SELECT * WHERE { GRAPH ${patternTerm(graph, 'g')} { ${triple} } }`;
  return `SELECT * WHERE { { ${triple} } UNION { GRAPH ?g { ${triple} } } }`;
}

/** A solution of matchQuery as the quad it stands for. */
export function quadOfSolution(solution: Record<string, RDF.Term>, pattern: TermPattern[]): RDF.Quad {
  const [subject, predicate, object, graph] = POSITIONS.map((name, i) => {
    const term = pattern[i];
    return isBound(term) ? term : solution[name];
  });
  return factory.quad(subject as RDF.Quad_Subject, predicate as RDF.Quad_Predicate, object as RDF.Quad_Object, (graph ?? factory.defaultGraph()) as RDF.Quad_Graph);
}

/** DELETE WHERE for the quads that match (the default graph is one graph among the others). */
export function removeMatchesUpdate(subject: TermPattern, predicate: TermPattern, object: TermPattern, graph: TermPattern): string {
  const [s, p, o] = [subject, predicate, object].map((term, i) => patternTerm(term, POSITIONS[i]!));
  const triple = `${s} ${p} ${o} .`;
  if (isBound(graph) && graph.termType === 'DefaultGraph') return `DELETE WHERE { ${triple} }`;
  if (isBound(graph)) return `DELETE WHERE { GRAPH ${patternTerm(graph, 'g')} { ${triple} } }`;
  return `DELETE WHERE { ${triple} } ; DELETE WHERE { GRAPH ?g { ${triple} } }`;
}

/** DELETE DATA for these quads; INSERT DATA would name blank nodes afresh, so inserts go as N-Quads. */
export function deleteDataUpdate(quads: RDF.Quad[]): string {
  const lines = quads.map((quad) => {
    for (const term of [quad.subject, quad.object, quad.graph]) refuseBlankNode(term);
    const triple = `${ntriplesTerm(quad.subject)} ${ntriplesTerm(quad.predicate)} ${ntriplesTerm(quad.object)} .`;
    return quad.graph.termType === 'DefaultGraph' ? triple : `GRAPH ${ntriplesTerm(quad.graph)} { ${triple} }`;
  });
  return `DELETE DATA {\n${lines.join('\n')}\n}`;
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

function patternTerm(term: TermPattern, variable: string): string {
  if (!isBound(term)) return `?${variable}`;
  refuseBlankNode(term);
  return ntriplesTerm(term);
}

function refuseBlankNode(term: RDF.Term): void {
  if (term.termType === 'BlankNode') {
    throw new ProtocolError('a stored blank node cannot be named in a pattern or a removal; match it through the triples around it, with a SPARQL update');
  }
}
