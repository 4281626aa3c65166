/**
 * Which formats exist, by name, media type and file extension, for each kind of query. The server
 * negotiates (Accept with q-values) over {@link mediaTypesFor}; everything else is a look-up here.
 * The `output` names and media types follow the Formats table of the HTTP spec, plus the names that
 * common clients send for the same formats (SPARQLWrapper's `n3`, `rdf`, `rdf+xml`, `json-ld`).
 */
import type { ParseableRdfFormat, RdfFormat, ResultsFormat } from './serializer.js';

/** `results`: SELECT and ASK. `rdf`: CONSTRUCT and DESCRIBE (and dumps). */
export type QueryKind = 'results' | 'rdf';

interface FormatEntry {
  /** The `output` parameter values that select this format (lower case). */
  readonly outputNames: readonly string[];
  /** The canonical media type first, then the aliases accepted for it. */
  readonly mediaTypes: readonly string[];
  /** The Content-Type to answer with (always with charset=utf-8). */
  readonly contentType: string;
  /** For `Content-Disposition: inline; filename="result.<extension>"`. */
  readonly extension: string;
}

export interface ResultsFormatInfo extends FormatEntry {
  readonly kind: 'results';
  readonly format: ResultsFormat;
}

export interface RdfFormatInfo extends FormatEntry {
  readonly kind: 'rdf';
  readonly format: RdfFormat;
}

export type FormatInfo = ResultsFormatInfo | RdfFormatInfo;

function entry<K extends QueryKind, F extends string>(
  kind: K,
  format: F,
  outputNames: string[],
  mediaTypes: string[],
  extension: string,
): { kind: K; format: F } & FormatEntry {
  return Object.freeze({ kind, format, outputNames, mediaTypes, contentType: mediaTypes[0] + '; charset=utf-8', extension });
}

/** In preference order: the first is the default, and wins ties in negotiation. */
export const RESULTS_FORMATS: readonly ResultsFormatInfo[] = [
  entry('results', 'json', ['json'], ['application/sparql-results+json', 'application/json'], 'json'),
  entry('results', 'xml', ['xml'], ['application/sparql-results+xml'], 'xml'),
  entry('results', 'csv', ['csv'], ['text/csv'], 'csv'),
  entry('results', 'tsv', ['tsv'], ['text/tab-separated-values'], 'tsv'),
  entry('results', 'html', ['html'], ['text/html', 'application/xhtml+xml'], 'html'),
];

/** In preference order: the first is the default, and wins ties in negotiation. */
export const RDF_FORMATS: readonly RdfFormatInfo[] = [
  // N3 is a superset of Turtle: a client asking for N3 reads Turtle.
  entry('rdf', 'turtle', ['turtle', 'ttl', 'n3'], ['text/turtle', 'application/x-turtle'], 'ttl'),
  entry('rdf', 'ntriples', ['ntriples', 'nt'], ['application/n-triples', 'text/plain'], 'nt'),
  entry('rdf', 'nquads', ['nquads', 'nq'], ['application/n-quads', 'text/x-nquads'], 'nq'),
  entry('rdf', 'trig', ['trig'], ['application/trig', 'application/x-trig'], 'trig'),
  entry('rdf', 'jsonld', ['jsonld', 'json', 'json-ld'], ['application/ld+json', 'application/json'], 'jsonld'),
  entry('rdf', 'rdfxml', ['rdfxml', 'xml', 'rdf', 'rdf+xml'], ['application/rdf+xml'], 'rdf'),
  entry('rdf', 'html', ['html'], ['text/html', 'application/xhtml+xml'], 'html'),
];

export function formatsFor(kind: 'results'): readonly ResultsFormatInfo[];
export function formatsFor(kind: 'rdf'): readonly RdfFormatInfo[];
export function formatsFor(kind: QueryKind): readonly FormatInfo[];
export function formatsFor(kind: QueryKind): readonly FormatInfo[] {
  return kind === 'results' ? RESULTS_FORMATS : RDF_FORMATS;
}

/** The format used when neither `output` nor `Accept` chooses: JSON for results, Turtle for RDF. */
export function defaultFormatFor(kind: 'results'): ResultsFormatInfo;
export function defaultFormatFor(kind: 'rdf'): RdfFormatInfo;
export function defaultFormatFor(kind: QueryKind): FormatInfo;
export function defaultFormatFor(kind: QueryKind): FormatInfo {
  return formatsFor(kind)[0]!;
}

/** Which kind of format a query result needs. */
export function queryKindOf(resultKind: 'bindings' | 'boolean' | 'quads'): QueryKind {
  return resultKind === 'quads' ? 'rdf' : 'results';
}

const candidateMediaTypes = {
  results: mediaTypesInPreferenceOrder(RESULTS_FORMATS),
  rdf: mediaTypesInPreferenceOrder(RDF_FORMATS),
};

/** Canonical types first (in format preference order), then the aliases. */
function mediaTypesInPreferenceOrder(formats: readonly FormatInfo[]): readonly string[] {
  return Object.freeze([...formats.map((f) => f.mediaTypes[0]!), ...formats.flatMap((f) => f.mediaTypes.slice(1))]);
}

/** Every media type the kind can answer, in preference order, for Accept negotiation. */
export function mediaTypesFor(kind: QueryKind): readonly string[] {
  return candidateMediaTypes[kind];
}

/** The `output` names of the kind, for the 400 that lists the allowed values. */
export function outputNamesFor(kind: QueryKind): readonly string[] {
  return formatsFor(kind).flatMap((f) => f.outputNames);
}

/** `application/JSON; charset=x` → `application/json`. */
export function bareMediaType(type: string): string {
  const semicolon = type.indexOf(';');
  return (semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase();
}

export function formatForMediaType(type: string, kind: 'results'): ResultsFormatInfo | undefined;
export function formatForMediaType(type: string, kind: 'rdf'): RdfFormatInfo | undefined;
export function formatForMediaType(type: string, kind: QueryKind): FormatInfo | undefined;
export function formatForMediaType(type: string, kind: QueryKind): FormatInfo | undefined {
  const bare = bareMediaType(type);
  return formatsFor(kind).find((f) => f.mediaTypes.includes(bare));
}

/** The format an `output` parameter asks for: a short name (`json`, `turtle`…) or a media type. */
export function formatForOutputName(name: string, kind: 'results'): ResultsFormatInfo | undefined;
export function formatForOutputName(name: string, kind: 'rdf'): RdfFormatInfo | undefined;
export function formatForOutputName(name: string, kind: QueryKind): FormatInfo | undefined;
export function formatForOutputName(name: string, kind: QueryKind): FormatInfo | undefined {
  const wanted = name.trim().toLowerCase();
  return formatsFor(kind).find((f) => f.outputNames.includes(wanted)) ?? formatForMediaType(wanted, kind);
}

// ---- formats we read ----

const PARSEABLE_MEDIA_TYPES: Readonly<Record<string, ParseableRdfFormat>> = {
  'text/turtle': 'turtle',
  'application/x-turtle': 'turtle',
  'application/n-triples': 'ntriples',
  'text/plain': 'ntriples',
  'application/n-quads': 'nquads',
  'text/x-nquads': 'nquads',
  'application/trig': 'trig',
  'application/x-trig': 'trig',
  'application/ld+json': 'jsonld',
  'application/json': 'jsonld',
  'application/rdf+xml': 'rdfxml',
  'application/xml': 'rdfxml',
  'text/xml': 'rdfxml',
};

const PARSEABLE_NAMES: ReadonlySet<string> = new Set(['turtle', 'ntriples', 'nquads', 'trig', 'jsonld', 'rdfxml']);

/** The RDF format of a request body or file, by media type (parameters ignored). */
export function rdfFormatForMediaType(type: string): ParseableRdfFormat | undefined {
  return PARSEABLE_MEDIA_TYPES[bareMediaType(type)];
}

/** A parseable format's own name, or the format of a media type. */
export function parseableRdfFormat(formatOrMediaType: string): ParseableRdfFormat | undefined {
  const lower = formatOrMediaType.trim().toLowerCase();
  return PARSEABLE_NAMES.has(lower) ? (lower as ParseableRdfFormat) : rdfFormatForMediaType(lower);
}

const EXTENSIONS: Readonly<Record<string, ParseableRdfFormat>> = {
  ttl: 'turtle',
  turtle: 'turtle',
  nt: 'ntriples',
  ntriples: 'ntriples',
  nq: 'nquads',
  nquads: 'nquads',
  trig: 'trig',
  jsonld: 'jsonld',
  json: 'jsonld',
  rdf: 'rdfxml',
  rdfxml: 'rdfxml',
  owl: 'rdfxml',
  xml: 'rdfxml',
};

/** The RDF format of a file by its extension; `gzip` tells whether it ends in `.gz` as well. */
export function rdfFormatForFileName(name: string): { format: ParseableRdfFormat; gzip: boolean } | undefined {
  let lower = name.toLowerCase();
  const gzip = lower.endsWith('.gz');
  if (gzip) lower = lower.slice(0, -3);
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return undefined;
  const format = EXTENSIONS[lower.slice(dot + 1)];
  return format === undefined ? undefined : { format, gzip };
}
