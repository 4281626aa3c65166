/**
 * The one table of formats: for each, its names (the `output` parameter, the CLI's --format), media
 * types, file extensions, label and W3C format IRI, for each kind of query. Everything else reads it:
 * the server negotiates (Accept with q-values) over {@link mediaTypesFor}, the Graph Store, LOAD, the
 * library and the CLI find the format of a body or file here, the query page lists its outputs and
 * the Service Description its result formats from it. The `output` names and media types follow the
 * Formats table of the HTTP spec, plus the names that common clients send for the same formats
 * (SPARQLWrapper's `n3`, `rdf`, `rdf+xml`, `json-ld`).
 */
import type { ParseableRdfFormat, RdfFormat, ResultsFormat } from './serializer.js';

/** `results`: SELECT and ASK. `rdf`: CONSTRUCT and DESCRIBE (and dumps). */
export type QueryKind = 'results' | 'rdf';

interface FormatEntry {
  /** What people call it, for pages and help texts. */
  readonly label: string;
  /** The label where the kind goes without saying, such as a download button under a result. */
  readonly shortLabel: string;
  /** The `output` parameter values that select this format (lower case); the first is its name. */
  readonly outputNames: readonly string[];
  /** The canonical media type first, then the aliases accepted for it. */
  readonly mediaTypes: readonly string[];
  /** Media types read as this format (a body, a LOAD answer) beyond `mediaTypes`, never answered with. */
  readonly alsoReads: readonly string[];
  /** The Content-Type to answer with (always with charset=utf-8). */
  readonly contentType: string;
  /** File extensions, the one we write first (`Content-Disposition: inline; filename="result.<extension>"`). */
  readonly fileExtensions: readonly string[];
  readonly extension: string;
  /** Its IRI under http://www.w3.org/ns/formats/ (the Service Description's sd:resultFormat), if it has one. */
  readonly w3cIri?: string;
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

const W3C_FORMATS = 'http://www.w3.org/ns/formats/';

interface EntryFields {
  label: string;
  short?: string;
  names: string[];
  mediaTypes: string[];
  extensions: string[];
  w3c?: string;
  alsoReads?: string[];
}

function entry<K extends QueryKind, F extends string>(kind: K, format: F, fields: EntryFields): { kind: K; format: F } & FormatEntry {
  return Object.freeze({
    kind,
    format,
    label: fields.label,
    shortLabel: fields.short ?? fields.label,
    outputNames: fields.names,
    mediaTypes: fields.mediaTypes,
    alsoReads: fields.alsoReads ?? [],
    contentType: fields.mediaTypes[0] + '; charset=utf-8',
    fileExtensions: fields.extensions,
    extension: fields.extensions[0]!,
    w3cIri: fields.w3c === undefined ? undefined : W3C_FORMATS + fields.w3c,
  });
}

const HTML_MEDIA_TYPES = ['text/html', 'application/xhtml+xml'];

/** In preference order: the first is the default, and wins ties in negotiation. */
export const RESULTS_FORMATS: readonly ResultsFormatInfo[] = [
  entry('results', 'json', {
    label: 'SPARQL JSON',
    short: 'JSON',
    names: ['json'],
    mediaTypes: ['application/sparql-results+json', 'application/json'],
    extensions: ['json', 'srj'],
    w3c: 'SPARQL_Results_JSON',
  }),
  entry('results', 'xml', {
    label: 'SPARQL XML',
    short: 'XML',
    names: ['xml'],
    mediaTypes: ['application/sparql-results+xml'],
    alsoReads: ['application/xml', 'text/xml'],
    extensions: ['xml', 'srx'],
    w3c: 'SPARQL_Results_XML',
  }),
  entry('results', 'csv', { label: 'CSV', names: ['csv'], mediaTypes: ['text/csv'], extensions: ['csv'], w3c: 'SPARQL_Results_CSV' }),
  entry('results', 'tsv', { label: 'TSV', names: ['tsv'], mediaTypes: ['text/tab-separated-values'], extensions: ['tsv'], w3c: 'SPARQL_Results_TSV' }),
  entry('results', 'html', { label: 'HTML table', names: ['html'], mediaTypes: HTML_MEDIA_TYPES, extensions: ['html'] }),
];

/** In preference order: the first is the default, and wins ties in negotiation. */
export const RDF_FORMATS: readonly RdfFormatInfo[] = [
  // N3 is a superset of Turtle: a client asking for N3 reads Turtle.
  entry('rdf', 'turtle', {
    label: 'Turtle',
    names: ['turtle', 'ttl', 'n3'],
    mediaTypes: ['text/turtle', 'application/x-turtle'],
    extensions: ['ttl', 'turtle'],
    w3c: 'Turtle',
  }),
  entry('rdf', 'ntriples', {
    label: 'N-Triples',
    names: ['ntriples', 'nt'],
    mediaTypes: ['application/n-triples', 'text/plain'],
    extensions: ['nt', 'ntriples'],
    w3c: 'N-Triples',
  }),
  entry('rdf', 'nquads', {
    label: 'N-Quads',
    names: ['nquads', 'nq'],
    mediaTypes: ['application/n-quads', 'text/x-nquads'],
    extensions: ['nq', 'nquads'],
    w3c: 'N-Quads',
  }),
  entry('rdf', 'trig', { label: 'TriG', names: ['trig'], mediaTypes: ['application/trig', 'application/x-trig'], extensions: ['trig'], w3c: 'TriG' }),
  entry('rdf', 'jsonld', {
    label: 'JSON-LD',
    names: ['jsonld', 'json', 'json-ld'],
    mediaTypes: ['application/ld+json', 'application/json'],
    extensions: ['jsonld', 'json'],
    w3c: 'JSON-LD',
  }),
  entry('rdf', 'rdfxml', {
    label: 'RDF/XML',
    names: ['rdfxml', 'xml', 'rdf', 'rdf+xml'],
    mediaTypes: ['application/rdf+xml'],
    alsoReads: ['application/xml', 'text/xml'],
    extensions: ['rdf', 'rdfxml', 'owl', 'xml'],
    w3c: 'RDF_XML',
  }),
  entry('rdf', 'html', { label: 'HTML table', names: ['html'], mediaTypes: HTML_MEDIA_TYPES, extensions: ['html'] }),
];

/** The RDF formats Quiver reads (every one it writes but HTML), by name. */
export const PARSEABLE_RDF_FORMATS: readonly ParseableRdfFormat[] = RDF_FORMATS.filter((f) => f.format !== 'html').map((f) => f.format as ParseableRdfFormat);

/** The results formats that can be read back (every one written but HTML). */
export type ParseableResultsFormat = Exclude<ResultsFormat, 'html'>;

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

/** What a media type (or a file extension) is read as, per kind: every format but HTML. */
function readableBy<F extends string>(formats: readonly (FormatEntry & { format: F })[], key: (f: FormatEntry) => readonly string[]): ReadonlyMap<string, F> {
  const map = new Map<string, F>();
  for (const f of formats) {
    if (f.format === 'html') continue;
    for (const k of key(f)) if (!map.has(k)) map.set(k, f.format);
  }
  return map;
}

const RDF_BY_MEDIA_TYPE = readableBy(RDF_FORMATS, (f) => [...f.mediaTypes, ...f.alsoReads]) as ReadonlyMap<string, ParseableRdfFormat>;
const RDF_BY_EXTENSION = readableBy(RDF_FORMATS, (f) => f.fileExtensions) as ReadonlyMap<string, ParseableRdfFormat>;
const RESULTS_BY_NAME = readableBy(RESULTS_FORMATS, (f) => [...f.mediaTypes, ...f.alsoReads, ...f.fileExtensions]) as ReadonlyMap<
  string,
  ParseableResultsFormat
>;

/** The RDF format of a request body or file, by media type (parameters ignored). */
export function rdfFormatForMediaType(type: string): ParseableRdfFormat | undefined {
  return RDF_BY_MEDIA_TYPE.get(bareMediaType(type));
}

/** A parseable format's own name, or the format of a media type. */
export function parseableRdfFormat(formatOrMediaType: string): ParseableRdfFormat | undefined {
  const lower = formatOrMediaType.trim().toLowerCase();
  return (PARSEABLE_RDF_FORMATS as readonly string[]).includes(lower) ? (lower as ParseableRdfFormat) : rdfFormatForMediaType(lower);
}

/** The RDF format of a file by its extension; `gzip` tells whether it ends in `.gz` as well. */
export function rdfFormatForFileName(name: string): { format: ParseableRdfFormat; gzip: boolean } | undefined {
  let lower = name.toLowerCase();
  const gzip = lower.endsWith('.gz');
  if (gzip) lower = lower.slice(0, -3);
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return undefined;
  const format = RDF_BY_EXTENSION.get(lower.slice(dot + 1));
  return format === undefined ? undefined : { format, gzip };
}

/**
 * The results format named by a media type (parameters allowed, e.g. `text/csv; charset=utf-8`)
 * or a file extension (with or without the dot), or undefined when it names none that is read.
 */
export function resultsFormatOf(mediaTypeOrExtension: string): ParseableResultsFormat | undefined {
  return RESULTS_BY_NAME.get(bareMediaType(mediaTypeOrExtension).replace(/^\./, ''));
}

// ---- what pages and descriptions list ----

/** The W3C format IRIs of every format the server answers queries in, results first. */
export function w3cFormatIris(): string[] {
  return [...RESULTS_FORMATS, ...RDF_FORMATS].flatMap((f) => (f.w3cIri === undefined ? [] : [f.w3cIri]));
}

/**
 * The choices of a form's `output` field, which serves both kinds of query: each format's name, with
 * a label that says which format it gives for which kind (`json`: SPARQL JSON, or JSON-LD for
 * CONSTRUCT and DESCRIBE). HTML first.
 */
export function outputChoices(): { name: string; label: string }[] {
  const names = [...new Set(['html', ...RESULTS_FORMATS.map((f) => f.outputNames[0]!), ...RDF_FORMATS.map((f) => f.outputNames[0]!)])];
  return names.map((name) => ({ name, label: outputLabel(name) }));
}

/** A format a page offers to save a result in: its button's label, `output` value and file extension. */
export interface DownloadChoice {
  label: string;
  output: string;
  extension: string;
}

/** What a result page offers to download, by the result's kind: every format written but HTML. */
export function downloadChoices(): Record<QueryKind, DownloadChoice[]> {
  const choices = (formats: readonly FormatInfo[]): DownloadChoice[] =>
    formats.filter((f) => f.format !== 'html').map((f) => ({ label: f.shortLabel, output: f.outputNames[0]!, extension: f.extension }));
  return { results: choices(RESULTS_FORMATS), rdf: choices(RDF_FORMATS) };
}

function outputLabel(name: string): string {
  const results = formatForOutputName(name, 'results');
  const rdf = formatForOutputName(name, 'rdf');
  if (results && rdf) return results.label === rdf.label ? results.label : `${results.label} / ${rdf.label} (CONSTRUCT, DESCRIBE)`;
  if (results) return `${results.label} (SELECT, ASK)`;
  return `${rdf!.label} (CONSTRUCT, DESCRIBE)`;
}
