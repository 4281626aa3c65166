/**
 * The SPARQL 1.1 Service Description (https://www.w3.org/TR/sparql11-service-description/) of the
 * three endpoints, as RDF quads for the formats layer. It states only what is true of this server.
 */
import type { Quad, Term } from '../rdf/index.js';
import { blankNode, defaultGraph, factory, literal, namedNode } from '../rdf/index.js';
import { rdf, xsd } from '../rdf/index.js';
import type { ServiceDescriptionData } from '../service/index.js';
import { w3cFormatIris } from '../formats/index.js';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const VOID = 'http://rdfs.org/ns/void#';
const FORMATS = 'http://www.w3.org/ns/formats/';

/** W3C format IRIs of the result formats the server writes (the formats layer's table). */
export const RESULT_FORMAT_IRIS = w3cFormatIris();

export const SD_PREFIXES = { sd: SD, void: VOID, formats: FORMATS, xsd: 'http://www.w3.org/2001/XMLSchema#' };

export interface DescribedEndpoints {
  /** Absolute URLs. */
  single: string;
  select: string;
  update: string;
}

export function describeService(endpoints: DescribedEndpoints, data: ServiceDescriptionData): Quad[] {
  const quads: Quad[] = [];
  const add = (s: Term, p: string, o: Term): void => {
    quads.push(factory.quad(s as never, namedNode(p), o as never, defaultGraph()));
  };
  const dataset = blankNode();
  for (const [endpoint, languages] of servicesInOrder(endpoints)) {
    // Named by its endpoint, not a blank node: a client that reads the description of the URL it
    // dereferenced (Comunica keeps only that resource's and blank nodes' sd:endpoint, the last one
    // it meets) cannot take another endpoint's sd:endpoint for the one it asked.
    const service = namedNode(endpoint);
    add(service, rdf.type, namedNode(SD + 'Service'));
    add(service, SD + 'endpoint', namedNode(endpoint));
    for (const language of languages) add(service, SD + 'supportedLanguage', namedNode(SD + language));
    if (languages.includes('SPARQL11Query')) {
      for (const iri of RESULT_FORMAT_IRIS) add(service, SD + 'resultFormat', namedNode(iri));
      // SERVICE is evaluated; empty named graphs exist after CREATE GRAPH.
      add(service, SD + 'feature', namedNode(SD + 'BasicFederatedQuery'));
      if (data.unionDefaultGraph) add(service, SD + 'feature', namedNode(SD + 'UnionDefaultGraph'));
    }
    add(service, SD + 'feature', namedNode(SD + 'EmptyGraphs'));
    add(service, SD + 'defaultDataset', dataset);
  }
  describeDataset(dataset, add, data);
  return quads;
}

/**
 * The query endpoint first and the single endpoint last, the update-only one between them: a client
 * that keeps the first or the last sd:endpoint it reads sends its queries where they are answered.
 */
function servicesInOrder(endpoints: DescribedEndpoints): [string, string[]][] {
  return [
    [endpoints.select, ['SPARQL11Query']],
    [endpoints.update, ['SPARQL11Update']],
    [endpoints.single, ['SPARQL11Query', 'SPARQL11Update']],
  ];
}

function describeDataset(dataset: Term, add: (s: Term, p: string, o: Term) => void, data: ServiceDescriptionData): void {
  add(dataset, rdf.type, namedNode(SD + 'Dataset'));
  const defaultGraphNode = blankNode();
  add(dataset, SD + 'defaultGraph', defaultGraphNode);
  add(defaultGraphNode, rdf.type, namedNode(SD + 'Graph'));
  if (data.defaultGraphTriples !== undefined) add(defaultGraphNode, VOID + 'triples', integer(data.defaultGraphTriples));
  for (const graph of data.namedGraphs ?? []) {
    const named = blankNode();
    add(dataset, SD + 'namedGraph', named);
    add(named, rdf.type, namedNode(SD + 'NamedGraph'));
    add(named, SD + 'name', graph.name.startsWith('_:') ? blankNode(graph.name.slice(2)) : namedNode(graph.name));
    const description = blankNode();
    add(named, SD + 'graph', description);
    add(description, rdf.type, namedNode(SD + 'Graph'));
    add(description, VOID + 'triples', integer(graph.triples));
  }
}

function integer(n: number): Term {
  return literal(String(n), namedNode(xsd.integer));
}
