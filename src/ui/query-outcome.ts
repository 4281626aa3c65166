/**
 * A query's answer as the page holds it: solutions, a boolean, or triples. SELECT and ASK arrive as
 * SPARQL JSON results, CONSTRUCT and DESCRIBE as N-Triples (one triple a line: easy to read here).
 */
import type { RdfTerm, Triple } from './rdf-terms.js';

export type QueryOutcome =
  { kind: 'bindings'; variables: string[]; rows: (RdfTerm | undefined)[][] } | { kind: 'boolean'; value: boolean } | { kind: 'triples'; triples: Triple[] };

/** One Accept for every kind of query: the server picks by the kind of result. */
export const RESULT_ACCEPT = 'application/sparql-results+json, application/n-triples;q=0.9';

/** The answer as it came (for the raw-response view) and as the page reads it. */
export interface RawResponse {
  contentType: string;
  text: string;
}

export async function readResponse(response: Response): Promise<RawResponse> {
  return { contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

export function outcomeOf(raw: RawResponse): QueryOutcome {
  if (raw.contentType.startsWith('application/n-triples')) return { kind: 'triples', triples: parseNTriples(raw.text) };
  return parseSparqlJson(raw.text);
}

interface SparqlJson {
  head: { vars?: string[] };
  boolean?: boolean;
  results?: { bindings: Record<string, RdfTerm>[] };
}

export function parseSparqlJson(text: string): QueryOutcome {
  const json = JSON.parse(text) as SparqlJson;
  if (typeof json.boolean === 'boolean') return { kind: 'boolean', value: json.boolean };
  const variables = json.head.vars ?? [];
  const rows = (json.results?.bindings ?? []).map((binding) => variables.map((v) => binding[v]));
  return { kind: 'bindings', variables, rows };
}

const IRI = String.raw`<((?:[^>\\]|\\.)*)>`;
const BNODE = String.raw`_:(\S*[^\s.])`;
const LITERAL = String.raw`"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<((?:[^>\\]|\\.)*)>)?`;
const TERM = `(?:${IRI}|${BNODE}|${LITERAL})`;
const TERM_AT_START = new RegExp(`^${TERM}\\s*`);

/** N-Triples as the server writes it; lines that do not parse are skipped. */
export function parseNTriples(text: string): Triple[] {
  const triples: Triple[] = [];
  for (const line of text.split('\n')) {
    let rest = line.trim();
    if (rest === '' || rest.startsWith('#')) continue;
    const terms: RdfTerm[] = [];
    while (terms.length < 3) {
      const match = TERM_AT_START.exec(rest);
      if (match === null) break;
      terms.push(termOf(match));
      rest = rest.slice(match[0].length);
    }
    if (terms.length === 3 && rest.startsWith('.')) triples.push(terms as Triple);
  }
  return triples;
}

function termOf(match: RegExpExecArray): RdfTerm {
  const [, iri, bnode, literal, language, datatype] = match;
  if (iri !== undefined) return { type: 'uri', value: unescape(iri) };
  if (bnode !== undefined) return { type: 'bnode', value: bnode };
  const term: RdfTerm = { type: 'literal', value: unescape(literal ?? '') };
  if (language !== undefined) term['xml:lang'] = language;
  if (datatype !== undefined) term.datatype = unescape(datatype);
  return term;
}

const ESCAPES: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

function unescape(text: string): string {
  return text.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g, (whole, u4?: string, u8?: string, c?: string) => {
    if (u4 !== undefined || u8 !== undefined) return String.fromCodePoint(parseInt((u4 ?? u8)!, 16));
    return ESCAPES[c!] ?? whole;
  });
}
