/**
 * The Graph Store Protocol in remote mode, spoken to the remote in SPARQL: the remote need not
 * offer the Graph Store Protocol itself. Documents are parsed here (any format we read) and sent as
 * one update request; whether that request is atomic is up to the remote (Virtuoso: per request).
 *
 * Graph existence is asked with ASK { GRAPH <g> {…} }: a remote that keeps empty graphs (as ours
 * does) sees them as absent, and the default graph always exists (on Virtuoso it is the union of
 * all graphs, so GET ?default shows every triple).
 */
import { parseRdf } from '../formats/index.js';
import { ntriplesTerm } from '../formats/index.js';
import { namedNode, type Quad } from '../rdf/index.js';
import type { GraphDocument, GraphName, GraphWriteResult, QueryResult, RequestLimits, SparqlService } from './sparql-service.js';

export class RemoteGraphStore {
  constructor(private readonly service: Pick<SparqlService, 'query' | 'update'>) {}

  async get(graph: GraphName, limits: RequestLimits = {}): Promise<QueryResult | undefined> {
    if (graph !== null && !(await this.exists(graph, limits))) return undefined;
    const pattern = graph === null ? '?s ?p ?o' : `GRAPH ${iri(graph)} { ?s ?p ?o }`;
    return this.service.query({ query: `CONSTRUCT { ?s ?p ?o } WHERE { ${pattern} }`, ...limits });
  }

  async write(operation: 'put' | 'post', graph: GraphName, documents: GraphDocument[], limits: RequestLimits = {}): Promise<GraphWriteResult> {
    const triples = await triplesOf(documents);
    const existed = graph === null || (await this.exists(graph, limits));
    const operations: string[] = [];
    if (operation === 'put') operations.push(graph === null ? 'CLEAR SILENT DEFAULT' : `DROP SILENT GRAPH ${iri(graph)}`);
    operations.push(...insertOperations(graph, triples));
    if (operations.length > 0) await this.service.update({ update: operations.join(' ;\n'), ...limits });
    return { created: !existed };
  }

  async delete(graph: GraphName, limits: RequestLimits = {}): Promise<boolean> {
    if (graph !== null && !(await this.exists(graph, limits))) return false;
    await this.service.update({ update: graph === null ? 'CLEAR SILENT DEFAULT' : `DROP SILENT GRAPH ${iri(graph)}`, ...limits });
    return true;
  }

  private async exists(graph: string, limits: RequestLimits): Promise<boolean> {
    const result = await this.service.query({ query: `ASK { GRAPH ${iri(graph)} { ?s ?p ?o } }`, ...limits });
    return result.kind === 'boolean' && result.value;
  }
}

async function triplesOf(documents: GraphDocument[]): Promise<string[]> {
  const triples: string[] = [];
  for (const document of documents) {
    for await (const batch of parseRdf(document.text, document.contentType, { baseIri: document.baseIri })) {
      for (const quad of batch as Quad[]) triples.push(`${ntriplesTerm(quad.subject)} ${ntriplesTerm(quad.predicate)} ${ntriplesTerm(quad.object)} .`);
    }
  }
  return triples;
}

/**
 * INSERT {…} WHERE {} rather than INSERT DATA: Virtuoso refuses blank nodes in INSERT DATA, and
 * a template's blank nodes are new nodes, which is what adding a document means anyway. One
 * template for all triples, so that a blank node is one node throughout its document.
 */
function insertOperations(graph: GraphName, triples: string[]): string[] {
  if (triples.length === 0) return [];
  const body = triples.join('\n');
  return [graph === null ? `INSERT {\n${body}\n} WHERE {}` : `INSERT { GRAPH ${iri(graph)} {\n${body}\n} } WHERE {}`];
}

function iri(value: string): string {
  return ntriplesTerm(namedNode(value));
}
