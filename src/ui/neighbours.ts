/**
 * SELECT queries the resource and graph views send to the query endpoint on their own: what a
 * resource says, what points to it, and the labels of IRIs. Each is one bounded request.
 */
import { postForm, type Credentials } from './endpoint.js';
import { parseSparqlJson } from './query-outcome.js';
import type { RdfTerm, Triple } from './rdf-terms.js';

export type Solution = Record<string, RdfTerm | undefined>;

/** An IRI written into a query: the characters an IRI may not hold percent-encoded, so none can end it. */
export function iriRef(iri: string): string {
  return `<${iri.replace(/[\s<>"{}|^`\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}>`;
}

export async function selectSolutions(endpoint: string, query: string, credentials: Credentials | undefined): Promise<Solution[]> {
  const response = await postForm(endpoint, { query }, 'application/sparql-results+json', credentials);
  const outcome = parseSparqlJson(await response.text());
  if (outcome.kind !== 'bindings') return [];
  return outcome.rows.map((row) => Object.fromEntries(outcome.variables.map((v, i) => [v, row[i]])));
}

/**
 * `pattern` in the default graph or in any named graph (?g bound to it). With a union default
 * graph the default graph holds every named graph's triples too, and the store's own default graph
 * cannot be named: its matches are those in no named graph, so that none is listed twice.
 */
export function anyGraph(pattern: string, unionDefaultGraph = false): string {
  const inNamedGraph = `GRAPH ?g { ${pattern} }`;
  const inDefaultGraph = unionDefaultGraph ? `${pattern} MINUS { ${inNamedGraph} }` : pattern;
  return `{ ${inDefaultGraph} } UNION { ${inNamedGraph} }`;
}

/** Triples from and to an IRI in the store, at most `limit` each way. */
export async function neighbourTriples(endpoint: string, iri: string, limit: number, credentials: Credentials | undefined): Promise<Triple[]> {
  const x = iriRef(iri);
  // DISTINCT over the triple: a triple in several graphs is one edge, whatever the default graph is.
  const [outgoing, incoming] = await Promise.all([
    selectSolutions(endpoint, `SELECT DISTINCT ?p ?o WHERE { ${anyGraph(`${x} ?p ?o`)} } LIMIT ${limit}`, credentials),
    selectSolutions(endpoint, `SELECT DISTINCT ?s ?p WHERE { ${anyGraph(`?s ?p ${x}`)} } LIMIT ${limit}`, credentials),
  ]);
  const self: RdfTerm = { type: 'uri', value: iri };
  return [
    ...outgoing.filter((r) => r['p'] && r['o']).map((r): Triple => [self, r['p']!, r['o']!]),
    ...incoming.filter((r) => r['s'] && r['p']).map((r): Triple => [r['s']!, r['p']!, self]),
  ];
}

/** Properties whose value names a resource for people, best first. */
export const LABEL_PROPERTIES = [
  'http://www.w3.org/2000/01/rdf-schema#label',
  'http://www.w3.org/2004/02/skos/core#prefLabel',
  'http://schema.org/name',
  'https://schema.org/name',
  'http://xmlns.com/foaf/0.1/name',
  'http://purl.org/dc/terms/title',
  'http://purl.org/dc/elements/1.1/title',
];

/** IRIs asked about in one label request, at most. */
const LABEL_BATCH = 200;

/** A label for each IRI that has one: in the browser's language, else English, else without language, else any. */
export async function labelsOf(endpoint: string, iris: string[], credentials: Credentials | undefined): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const asked = [...new Set(iris)].slice(0, LABEL_BATCH);
  if (asked.length === 0) return labels;
  const path = LABEL_PROPERTIES.map(iriRef).join('|');
  const query = `SELECT ?x ?l WHERE { VALUES ?x { ${asked.map(iriRef).join(' ')} } ${anyGraph(`?x ${path} ?l`)} FILTER(isLiteral(?l)) }`;
  const scores = new Map<string, number>();
  const wanted = (navigator.language || 'en').slice(0, 2).toLowerCase();
  for (const row of await selectSolutions(endpoint, query, credentials)) {
    const x = row['x']?.value;
    const l = row['l'];
    if (x === undefined || l === undefined) continue;
    const lang = (l['xml:lang'] ?? '').toLowerCase().slice(0, 2);
    const score = lang === wanted ? 3 : lang === 'en' ? 2 : lang === '' ? 1 : 0;
    if (score > (scores.get(x) ?? -1)) {
      scores.set(x, score);
      labels.set(x, l.value);
    }
  }
  return labels;
}
