/** RDF terms as the SPARQL 1.1 JSON results format writes them, and how the pages show them. */

export interface RdfTerm {
  type: 'uri' | 'literal' | 'bnode' | 'triple';
  value: string;
  'xml:lang'?: string;
  datatype?: string;
}

export type Triple = [RdfTerm, RdfTerm, RdfTerm];

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const NUMERIC_TYPES = new Set(
  [
    'integer',
    'decimal',
    'double',
    'float',
    'int',
    'long',
    'short',
    'byte',
    'nonNegativeInteger',
    'positiveInteger',
    'negativeInteger',
    'nonPositiveInteger',
    'unsignedInt',
    'unsignedLong',
    'unsignedShort',
    'unsignedByte',
  ].map((t) => XSD + t),
);

/** The number a numeric literal stands for; undefined for anything else. */
export function numericValue(term: RdfTerm | undefined): number | undefined {
  if (term?.type !== 'literal' || term.datatype === undefined || !NUMERIC_TYPES.has(term.datatype)) return undefined;
  const value = Number(term.value);
  return Number.isNaN(value) ? undefined : value;
}

/** Shortens IRIs with the known prefixes (longest namespace first). */
export class PrefixShortener {
  private readonly entries: [string, string][];

  constructor(prefixes: Record<string, string>) {
    this.entries = Object.entries(prefixes).sort((a, b) => b[1].length - a[1].length);
  }

  /** prefix:local when the rest is a plain local name, otherwise the IRI in angle brackets. */
  shorten(iri: string): string {
    for (const [prefix, namespace] of this.entries) {
      if (iri.startsWith(namespace) && /^[\w-]*$/.test(iri.slice(namespace.length))) {
        return `${prefix}:${iri.slice(namespace.length)}`;
      }
    }
    return `<${iri}>`;
  }
}

/** The term as one line of text: what a table cell, a chart label or a graph node shows. */
export function termText(term: RdfTerm | undefined, names: PrefixShortener): string {
  if (term === undefined) return '';
  switch (term.type) {
    case 'uri':
      return names.shorten(term.value);
    case 'bnode':
      return `_:${term.value}`;
    case 'literal':
      if (term['xml:lang']) return `"${term.value}"@${term['xml:lang']}`;
      if (term.datatype === undefined || term.datatype === XSD + 'string') return term.value;
      if (numericValue(term) !== undefined || term.datatype === XSD + 'boolean') return term.value;
      return `"${term.value}"^^${names.shorten(term.datatype)}`;
    default:
      return term.value;
  }
}

/** Prefix declarations of a query text: added to the shortener for its results. */
export function declaredPrefixes(query: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of query.matchAll(/PREFIX\s+([\w-]*):\s*<([^>\s]*)>/gi)) found[match[1]!] = match[2]!;
  return found;
}
