/**
 * Readers for the four SPARQL 1.1 query result formats: XML (.srx), JSON (.srj), CSV and TSV.
 * The W3C conformance runner reads expected results with them, and remote mode reads the answers
 * of other endpoints. Each reader takes the whole document as a string and returns rows of RDF/JS
 * terms in the order of `variables`, the same shape the engine produces.
 *
 * CSV is lossy by design (the format keeps no term types): every CSV value comes back as a simple
 * literal, except `_:label` values, which come back as blank nodes so that callers can still match
 * blank nodes up to renaming. Callers that compare CSV with typed results must first reduce their
 * own terms with {@link csvValueOf}.
 */
import type { SolutionRow, Term } from '../rdf/index.js';
import type { Quad_Object } from '@rdfjs/types';
import { blankNode, directionalLiteral, literal, namedNode, tripleTerm, typedLiteral } from '../rdf/index.js';
import { xsd } from '../rdf/index.js';
import { resultsFormatOf } from './format-table.js';

export type ParsedResults =
  | { kind: 'bindings'; variables: string[]; rows: SolutionRow[] }
  | { kind: 'boolean'; value: boolean };


/** A results document that does not follow its format. */
export class ResultsFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResultsFormatError';
  }
}

/** Parses a complete results document in the format named by a media type or file extension. */
export function parseSparqlResults(text: string, mediaTypeOrExtension: string): ParsedResults {
  const format = resultsFormatOf(mediaTypeOrExtension);
  switch (format) {
    case 'xml':
      return parseXmlResults(text);
    case 'json':
      return parseJsonResults(text);
    case 'csv':
      return parseCsvResults(text);
    case 'tsv':
      return parseTsvResults(text);
    default:
      throw new ResultsFormatError(`not a SPARQL results format: ${mediaTypeOrExtension}`);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON

interface JsonTerm {
  type?: string;
  /** A string, or for a triple term (SPARQL 1.2) its subject, predicate and object. */
  value?: string | { subject?: JsonTerm; predicate?: JsonTerm; object?: JsonTerm };
  'xml:lang'?: string;
  /** The base direction of a language-tagged literal (SPARQL 1.2 results). */
  'its:dir'?: string;
  datatype?: string;
}

export function parseJsonResults(text: string): ParsedResults {
  let doc: any;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ResultsFormatError(`SPARQL JSON results: ${(error as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object') throw new ResultsFormatError('SPARQL JSON results: not an object');
  if (typeof doc.boolean === 'boolean') return { kind: 'boolean', value: doc.boolean };
  const variables: unknown = doc.head?.vars ?? [];
  if (!Array.isArray(variables) || !variables.every((v) => typeof v === 'string')) {
    throw new ResultsFormatError('SPARQL JSON results: head.vars is not a list of names');
  }
  const bindings: unknown = doc.results?.bindings;
  if (!Array.isArray(bindings)) throw new ResultsFormatError('SPARQL JSON results: no results.bindings list');
  const rows = bindings.map((binding: Record<string, JsonTerm>) => jsonRow(binding, variables));
  return { kind: 'bindings', variables: [...variables], rows };
}

function jsonRow(binding: Record<string, JsonTerm>, variables: string[]): SolutionRow {
  return variables.map((name) => (binding[name] === undefined ? undefined : jsonTerm(binding[name])));
}

function jsonTerm(term: JsonTerm): Term {
  const value = term.value;
  if (term.type === 'triple' && value !== null && typeof value === 'object') {
    const { subject, predicate, object } = value;
    if (!subject || !predicate || !object) throw new ResultsFormatError('SPARQL JSON results: a triple term without subject, predicate and object');
    return tripleTermOf(jsonTerm(subject), jsonTerm(predicate), jsonTerm(object), 'JSON');
  }
  if (typeof value !== 'string') throw new ResultsFormatError('SPARQL JSON results: a term without a string value');
  switch (term.type) {
    case 'uri':
      return namedNode(value);
    case 'bnode':
      return blankNode(value);
    // "typed-literal" is the pre-Recommendation spelling some endpoints still send.
    case 'literal':
    case 'typed-literal':
      return literalOf(value, term['xml:lang'], term.datatype, term['its:dir']);
    default:
      throw new ResultsFormatError(`SPARQL JSON results: unknown term type ${JSON.stringify(term.type)}`);
  }
}

function literalOf(value: string, language: string | undefined, datatype: string | undefined, direction?: string): Term {
  if (language && (direction === 'ltr' || direction === 'rtl')) return directionalLiteral(value, language, direction);
  if (language) return literal(value, language);
  if (datatype) return typedLiteral(value, datatype);
  return literal(value);
}

/** A triple term read from results: its subject must be an IRI or blank node, its predicate an IRI. */
function tripleTermOf(subject: Term, predicate: Term, object: Term, format: string): Term {
  if ((subject.termType !== 'NamedNode' && subject.termType !== 'BlankNode') || predicate.termType !== 'NamedNode') {
    throw new ResultsFormatError(`SPARQL ${format} results: a triple term needs an IRI or blank node subject and an IRI predicate`);
  }
  return tripleTerm(subject, predicate, object as Quad_Object);
}

// ---------------------------------------------------------------------------------------------
// XML

export function parseXmlResults(text: string): ParsedResults {
  const root = parseXml(text);
  if (root.name !== 'sparql') throw new ResultsFormatError(`SPARQL XML results: root element is <${root.name}>`);
  const head = childElement(root, 'head');
  const variables = head ? childElements(head, 'variable').map((v) => requiredAttribute(v, 'name')) : [];
  const booleanElement = childElement(root, 'boolean');
  if (booleanElement) return { kind: 'boolean', value: xmlBoolean(textOf(booleanElement)) };
  const results = childElement(root, 'results');
  if (!results) throw new ResultsFormatError('SPARQL XML results: neither <results> nor <boolean>');
  const columnOf = new Map(variables.map((name, index) => [name, index]));
  const rows = childElements(results, 'result').map((result) => xmlRow(result, columnOf));
  return { kind: 'bindings', variables, rows };
}

function xmlRow(result: XmlElement, columnOf: Map<string, number>): SolutionRow {
  const row: SolutionRow = new Array(columnOf.size).fill(undefined);
  for (const binding of childElements(result, 'binding')) {
    const name = requiredAttribute(binding, 'name');
    const column = columnOf.get(name);
    if (column === undefined) throw new ResultsFormatError(`SPARQL XML results: binding of undeclared ?${name}`);
    const termElement = binding.children.find(isElement);
    if (!termElement) throw new ResultsFormatError(`SPARQL XML results: empty binding of ?${name}`);
    row[column] = xmlTerm(termElement);
  }
  return row;
}

function xmlBoolean(text: string): boolean {
  const value = text.trim();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ResultsFormatError(`SPARQL XML results: ${JSON.stringify(value)} is not a boolean`);
}

function xmlTerm(element: XmlElement): Term {
  switch (element.name) {
    case 'uri':
      return namedNode(textOf(element).trim());
    case 'bnode':
      return blankNode(textOf(element).trim());
    case 'literal':
      return literalOf(textOf(element), element.attributes.get('xml:lang'), element.attributes.get('datatype'), element.attributes.get('its:dir'));
    case 'triple': {
      const part = (name: string) => {
        const term = childElement(element, name)?.children.find(isElement);
        if (!term) throw new ResultsFormatError(`SPARQL XML results: <triple> without <${name}>`);
        return xmlTerm(term);
      };
      return tripleTermOf(part('subject'), part('predicate'), part('object'), 'XML');
    }
    default:
      throw new ResultsFormatError(`SPARQL XML results: unknown term element <${element.name}>`);
  }
}

function requiredAttribute(element: XmlElement, name: string): string {
  const value = element.attributes.get(name);
  if (value === undefined) throw new ResultsFormatError(`SPARQL XML results: <${element.name}> without ${name}=`);
  return value;
}

/**
 * Just enough XML for results documents: elements, attributes, text, CDATA, character and the
 * five predefined entity references; comments, processing instructions and DOCTYPE are skipped.
 * Element names lose their namespace prefix (results never mix vocabularies); attribute names
 * keep theirs, so `xml:lang` stays `xml:lang`.
 */
interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: (XmlElement | string)[];
}

function isElement(node: XmlElement | string): node is XmlElement {
  return typeof node !== 'string';
}

function childElements(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c): c is XmlElement => isElement(c) && c.name === name);
}

function childElement(parent: XmlElement, name: string): XmlElement | undefined {
  return childElements(parent, name)[0];
}

function textOf(element: XmlElement): string {
  return element.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (match, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return String.fromCodePoint(code);
    }
    const decoded = ENTITIES[ref];
    if (decoded === undefined) throw new ResultsFormatError(`XML: unknown entity ${match}`);
    return decoded;
  });
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

const ATTRIBUTE = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

function parseXml(text: string): XmlElement {
  const document: XmlElement = { name: '#document', attributes: new Map(), children: [] };
  const open: XmlElement[] = [document];
  let at = 0;
  const skipPast = (marker: string) => {
    const end = text.indexOf(marker, at);
    if (end < 0) throw new ResultsFormatError(`XML: unterminated construct, ${marker} expected`);
    at = end + marker.length;
    return end;
  };
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    const textEnd = lt < 0 ? text.length : lt;
    if (textEnd > at) open[open.length - 1].children.push(decodeEntities(text.slice(at, textEnd)));
    if (lt < 0) break;
    at = lt;
    if (text.startsWith('<!--', at)) {
      skipPast('-->');
    } else if (text.startsWith('<![CDATA[', at)) {
      const start = at + 9;
      const end = skipPast(']]>');
      open[open.length - 1].children.push(text.slice(start, end));
    } else if (text.startsWith('<?', at)) {
      skipPast('?>');
    } else if (text.startsWith('<!', at)) {
      skipPast('>');
    } else if (text.startsWith('</', at)) {
      const start = at + 2;
      const end = skipPast('>');
      const name = localName(text.slice(start, end).trim());
      const element = open.pop();
      if (!element || element === document || element.name !== name) {
        throw new ResultsFormatError(`XML: unexpected </${name}>`);
      }
    } else {
      const start = at + 1;
      const end = skipPast('>');
      let tag = text.slice(start, end);
      const selfClosing = tag.endsWith('/');
      if (selfClosing) tag = tag.slice(0, -1);
      const nameMatch = /^[^\s/>]+/.exec(tag);
      if (!nameMatch) throw new ResultsFormatError('XML: element without a name');
      const attributes = new Map<string, string>();
      for (const m of tag.slice(nameMatch[0].length).matchAll(ATTRIBUTE)) {
        attributes.set(m[1], decodeEntities(m[3] ?? m[4]));
      }
      const element: XmlElement = { name: localName(nameMatch[0]), attributes, children: [] };
      open[open.length - 1].children.push(element);
      if (!selfClosing) open.push(element);
    }
  }
  if (open.length !== 1) throw new ResultsFormatError(`XML: <${open[open.length - 1].name}> is never closed`);
  const root = document.children.find(isElement);
  if (!root) throw new ResultsFormatError('XML: no root element');
  return root;
}

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180 fields, SPARQL 1.1 CSV conventions)

export function parseCsvResults(text: string): ParsedResults {
  const records = csvRecords(text);
  if (records.length === 0) throw new ResultsFormatError('CSV results: no header line');
  const variables = records[0].map((name) => name.trim());
  const rows = records.slice(1).map((fields) => {
    if (fields.length !== variables.length) {
      throw new ResultsFormatError(`CSV results: a row of ${fields.length} fields under ${variables.length} columns`);
    }
    return fields.map(csvTerm);
  });
  return { kind: 'bindings', variables, rows };
}

function csvTerm(field: string): Term | undefined {
  if (field === '') return undefined;
  if (field.startsWith('_:')) return blankNode(field.slice(2));
  return literal(field);
}

/**
 * What a term becomes after a CSV round trip: IRIs and literals reduce to their string (a simple
 * literal), blank nodes stay blank nodes. Compare this with {@link parseCsvResults} output.
 */
export function csvValueOf(term: Term | undefined): Term | undefined {
  if (term === undefined) return undefined;
  if (term.termType === 'BlankNode') return term;
  return literal(term.value);
}

function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let at = 0;
  let quoted = false;
  let sawAnything = false;
  const endRecord = () => {
    fields.push(field);
    records.push(fields);
    fields = [];
    field = '';
    sawAnything = false;
  };
  while (at < text.length) {
    const c = text[at];
    if (quoted) {
      if (c === '"') {
        if (text[at + 1] === '"') {
          field += '"';
          at += 2;
          continue;
        }
        quoted = false;
      } else {
        field += c;
      }
      at++;
      continue;
    }
    if (c === '"') {
      quoted = true;
      sawAnything = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      sawAnything = true;
    } else if (c === '\r' && text[at + 1] === '\n') {
      endRecord();
      at++;
    } else if (c === '\n' || c === '\r') {
      endRecord();
    } else {
      field += c;
      sawAnything = true;
    }
    at++;
  }
  if (quoted) throw new ResultsFormatError('CSV results: unterminated quoted field');
  if (sawAnything || fields.length > 0) endRecord();
  return records;
}

// ---------------------------------------------------------------------------------------------
// TSV (each field an RDF term in Turtle / SPARQL syntax)

export function parseTsvResults(text: string): ParsedResults {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new ResultsFormatError('TSV results: no header line');
  const variables = lines[0] === '' ? [] : lines[0].split('\t').map(tsvVariableName);
  const rows = lines.slice(1).map((line, index) => {
    const fields = variables.length === 0 && line === '' ? [] : line.split('\t');
    if (fields.length !== variables.length) {
      throw new ResultsFormatError(
        `TSV results: line ${index + 2} has ${fields.length} fields under ${variables.length} columns`,
      );
    }
    return tsvRow(fields);
  });
  return { kind: 'bindings', variables, rows };
}

function tsvRow(fields: string[]): SolutionRow {
  return fields.map((field) => (field === '' ? undefined : parseTsvTerm(field)));
}

function tsvVariableName(header: string): string {
  const name = header.trim();
  return name.startsWith('?') || name.startsWith('$') ? name.slice(1) : name;
}

const TSV_NUMBER: [RegExp, string][] = [
  [/^[+-]?[0-9]+$/, xsd.integer],
  [/^[+-]?[0-9]*\.[0-9]+$/, xsd.decimal],
  [/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+$/, xsd.double],
];

/** One TSV field: an IRI, blank node, literal (quoted or Turtle number/boolean shorthand). */
export function parseTsvTerm(field: string): Term {
  const text = field.trim();
  if (text.startsWith('<<(')) return tsvTripleTerm(text);
  if (text.startsWith('<') && text.endsWith('>')) return namedNode(unescapeIri(text.slice(1, -1)));
  if (text.startsWith('_:')) return blankNode(text.slice(2));
  if (text.startsWith('"') || text.startsWith("'")) return quotedLiteral(text);
  if (text === 'true' || text === 'false') return typedLiteral(text, xsd.boolean);
  for (const [pattern, datatype] of TSV_NUMBER) {
    if (pattern.test(text)) return typedLiteral(text, datatype);
  }
  throw new ResultsFormatError(`TSV results: cannot read the term ${JSON.stringify(field)}`);
}

/** A triple term as N-Triples 1.2 writes it, `<<( s p o )>>`, its object perhaps another one. */
function tsvTripleTerm(text: string): Term {
  if (!text.endsWith(')>>')) throw new ResultsFormatError(`TSV results: unterminated triple term ${text}`);
  const inner = text.slice(3, -3).trim();
  const subjectEnd = inner.search(/\s/);
  const afterSubject = inner.slice(subjectEnd).trimStart();
  const predicateEnd = afterSubject.search(/\s/);
  if (subjectEnd < 0 || predicateEnd < 0) throw new ResultsFormatError(`TSV results: cannot read the triple term ${text}`);
  const parts = [inner.slice(0, subjectEnd), afterSubject.slice(0, predicateEnd), afterSubject.slice(predicateEnd)];
  const [subject, predicate, object] = parts.map(parseTsvTerm);
  return tripleTermOf(subject, predicate, object, 'TSV');
}

function quotedLiteral(text: string): Term {
  const quote = text[0];
  let at = 1;
  let value = '';
  while (at < text.length && text[at] !== quote) {
    if (text[at] === '\\') {
      const [decoded, length] = unescapeAt(text, at);
      value += decoded;
      at += length;
    } else {
      value += text[at++];
    }
  }
  if (at >= text.length) throw new ResultsFormatError(`TSV results: unterminated literal ${text}`);
  const rest = text.slice(at + 1);
  if (rest === '') return literal(value);
  if (rest.startsWith('@')) {
    const [language, direction] = rest.slice(1).split('--');
    if (direction === 'ltr' || direction === 'rtl') return directionalLiteral(value, language, direction);
    return literal(value, rest.slice(1));
  }
  if (rest.startsWith('^^<') && rest.endsWith('>')) return typedLiteral(value, unescapeIri(rest.slice(3, -1)));
  throw new ResultsFormatError(`TSV results: cannot read the literal suffix ${JSON.stringify(rest)}`);
}

const STRING_ESCAPES: Record<string, string> = {
  t: '\t',
  b: '\b',
  n: '\n',
  r: '\r',
  f: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};

/** The character escaped at text[at] (a backslash) and the length of the escape. */
function unescapeAt(text: string, at: number): [string, number] {
  const c = text[at + 1];
  if (c === 'u' || c === 'U') {
    const digits = c === 'u' ? 4 : 8;
    const hex = text.slice(at + 2, at + 2 + digits);
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) {
      throw new ResultsFormatError(`TSV results: bad escape \\${c}${hex}`);
    }
    return [String.fromCodePoint(parseInt(hex, 16)), 2 + digits];
  }
  const decoded = STRING_ESCAPES[c];
  if (decoded === undefined) throw new ResultsFormatError(`TSV results: bad escape \\${c}`);
  return [decoded, 2];
}

function unescapeIri(iri: string): string {
  return iri.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_m, short: string, long: string) =>
    String.fromCodePoint(parseInt(short ?? long, 16)),
  );
}

// ---------------------------------------------------------------------------------------------
// Streaming: rows as they arrive, for answers of other endpoints that may be large

export type StreamedResults =
  | { kind: 'bindings'; variables: string[]; rows: AsyncIterable<SolutionRow[]> }
  | { kind: 'boolean'; value: boolean };

/** What a format's incremental reader finds in the text it has been given so far. */
type ResultsEvent = { type: 'head'; variables: string[] } | { type: 'boolean'; value: boolean } | { type: 'row'; row: SolutionRow };

interface IncrementalReader {
  push(text: string): ResultsEvent[];
  end(): ResultsEvent[];
}

/**
 * Reads a results document from a stream of chunks. Resolves once the variables (or the boolean)
 * are known; the rows then arrive in batches as the chunks do. Only one row batch is parsed
 * ahead of the consumer, and a consumer that stops early stops reading the stream.
 */
export async function streamSparqlResults(
  chunks: AsyncIterable<string | Uint8Array>,
  mediaTypeOrExtension: string,
): Promise<StreamedResults> {
  const reader = incrementalReaderFor(mediaTypeOrExtension);
  const decoder = new TextDecoder();
  const iterator = chunks[Symbol.asyncIterator]();
  let pending: ResultsEvent[] = [];
  let finished = false;
  const pull = async (): Promise<void> => {
    const next = await iterator.next();
    if (next.done) {
      pending.push(...reader.push(decoder.decode()), ...reader.end());
      finished = true;
    } else {
      const text = typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
      pending.push(...reader.push(text));
    }
  };
  while (!pending.some((e) => e.type !== 'row')) {
    if (finished) throw new ResultsFormatError('SPARQL results: the stream ended before the variables were known');
    await pull();
  }
  const first = pending.find((e) => e.type !== 'row')!;
  if (first.type === 'boolean') {
    await iterator.return?.();
    return { kind: 'boolean', value: first.value };
  }
  pending = pending.filter((e) => e !== first);
  async function* rows(): AsyncGenerator<SolutionRow[]> {
    try {
      while (true) {
        const batch = pending.flatMap((e) => (e.type === 'row' ? [e.row] : []));
        pending = [];
        if (batch.length > 0) yield batch;
        if (finished) return;
        await pull();
      }
    } finally {
      if (!finished) await iterator.return?.();
    }
  }
  return { kind: 'bindings', variables: first.type === 'head' ? first.variables : [], rows: rows() };
}

function incrementalReaderFor(mediaTypeOrExtension: string): IncrementalReader {
  switch (resultsFormatOf(mediaTypeOrExtension)) {
    case 'tsv':
      return new LineReader((line, isHeader) =>
        isHeader
          ? { type: 'head', variables: line === '' ? [] : line.split('\t').map(tsvVariableName) }
          : { type: 'row', row: tsvRow(line.split('\t')) },
      );
    case 'csv':
      return new CsvReader();
    case 'xml':
      return new XmlReader();
    case 'json':
      return new JsonReader();
    default:
      throw new ResultsFormatError(`not a SPARQL results format: ${mediaTypeOrExtension}`);
  }
}

class LineReader implements IncrementalReader {
  private buffer = '';
  private headerSeen = false;

  constructor(private readonly onLine: (line: string, isHeader: boolean) => ResultsEvent) {}

  push(text: string): ResultsEvent[] {
    this.buffer += text;
    const lastNewline = this.buffer.lastIndexOf('\n');
    if (lastNewline < 0) return [];
    const lines = this.buffer.slice(0, lastNewline).split('\n');
    this.buffer = this.buffer.slice(lastNewline + 1);
    return lines.map((line) => this.line(line.replace(/\r$/, '')));
  }

  end(): ResultsEvent[] {
    const rest = this.buffer.replace(/\r$/, '');
    this.buffer = '';
    return rest === '' && this.headerSeen ? [] : [this.line(rest)];
  }

  private line(line: string): ResultsEvent {
    const isHeader = !this.headerSeen;
    this.headerSeen = true;
    return this.onLine(line, isHeader);
  }
}

/** CSV records may hold quoted newlines: only text up to a newline outside quotes is complete. */
class CsvReader implements IncrementalReader {
  private buffer = '';
  private variables: string[] | undefined;

  push(text: string): ResultsEvent[] {
    this.buffer += text;
    let quoted = false;
    let lastBoundary = -1;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c === '"') quoted = !quoted;
      else if (c === '\n' && !quoted) lastBoundary = i;
    }
    if (lastBoundary < 0) return [];
    const complete = this.buffer.slice(0, lastBoundary + 1);
    this.buffer = this.buffer.slice(lastBoundary + 1);
    return this.records(complete);
  }

  end(): ResultsEvent[] {
    const rest = this.buffer;
    this.buffer = '';
    return rest === '' ? [] : this.records(rest);
  }

  private records(text: string): ResultsEvent[] {
    const events: ResultsEvent[] = [];
    for (const fields of csvRecords(text)) {
      if (!this.variables) {
        this.variables = fields.map((name) => name.trim());
        events.push({ type: 'head', variables: this.variables });
      } else if (fields.length !== this.variables.length) {
        throw new ResultsFormatError(`CSV results: a row of ${fields.length} fields under ${this.variables.length} columns`);
      } else {
        events.push({ type: 'row', row: fields.map(csvTerm) });
      }
    }
    return events;
  }
}

/**
 * XML results cut at element boundaries: the head once <results> or <boolean> starts, then each
 * complete <result> element on its own.
 */
class XmlReader implements IncrementalReader {
  private buffer = '';
  private columnOf: Map<string, number> | undefined;

  push(text: string): ResultsEvent[] {
    this.buffer += text;
    const events: ResultsEvent[] = [];
    if (!this.columnOf) {
      const booleanMatch = /<(?:[\w.-]+:)?boolean\s*>([^<]*)<\//.exec(this.buffer);
      if (booleanMatch) return [{ type: 'boolean', value: xmlBoolean(decodeEntities(booleanMatch[1])) }];
      const resultsStart = /<(?:[\w.-]+:)?results[\s/>]/.exec(this.buffer);
      if (!resultsStart) return [];
      const headText = /<(?:[\w.-]+:)?head\s*\/>|<(?:[\w.-]+:)?head[\s>][\s\S]*?<\/(?:[\w.-]+:)?head\s*>/.exec(
        this.buffer.slice(0, resultsStart.index),
      );
      const head = headText ? parseXml(headText[0]) : undefined;
      const variables = head ? childElements(head, 'variable').map((v) => requiredAttribute(v, 'name')) : [];
      this.columnOf = new Map(variables.map((name, index) => [name, index]));
      events.push({ type: 'head', variables });
      this.buffer = this.buffer.slice(resultsStart.index + resultsStart[0].length);
    }
    const resultElement = /<(?:[\w.-]+:)?result[\s>][\s\S]*?<\/(?:[\w.-]+:)?result\s*>|<(?:[\w.-]+:)?result\s*\/>/g;
    let consumed = 0;
    for (let m = resultElement.exec(this.buffer); m; m = resultElement.exec(this.buffer)) {
      events.push({ type: 'row', row: xmlRow(parseXml(m[0]), this.columnOf) });
      consumed = m.index + m[0].length;
    }
    this.buffer = this.buffer.slice(consumed);
    return events;
  }

  end(): ResultsEvent[] {
    if (!this.columnOf) throw new ResultsFormatError('SPARQL XML results: neither <results> nor <boolean>');
    return [];
  }
}

interface JsonFrame {
  kind: 'object' | 'array';
  /** The key whose value is being read (objects only). */
  key?: string;
  expectKey: boolean;
}

/**
 * JSON results read with a small scanner that tracks nesting: the value of "head", of "boolean"
 * and each object of "results"."bindings" are cut out and handed to JSON.parse one at a time.
 * Bindings that arrive before "head" (keys may come in any order) wait for it.
 */
class JsonReader implements IncrementalReader {
  private buffer = '';
  private at = 0;
  private frames: JsonFrame[] = [];
  private inString = false;
  private escaped = false;
  private stringStart = 0;
  private captureStart = -1;
  private lastString = '';
  private variables: string[] | undefined;
  private waiting: Record<string, JsonTerm>[] = [];
  private booleanValue: boolean | undefined;
  private headDeferred = false;

  push(text: string): ResultsEvent[] {
    this.buffer += text;
    const events: ResultsEvent[] = [];
    for (; this.at < this.buffer.length; this.at++) {
      const c = this.buffer[this.at];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.endString();
        continue;
      }
      const frame = this.frames[this.frames.length - 1];
      if (c === '"') {
        this.inString = true;
        this.stringStart = this.at;
      } else if (c === '{' || c === '[') {
        if (this.isBindingsArray() && c === '{') this.captureStart = this.at;
        if (this.path() === 'head' && this.frames.length === 1) this.captureStart = this.at;
        this.frames.push({ kind: c === '{' ? 'object' : 'array', expectKey: c === '{' });
      } else if (c === '}' || c === ']') {
        this.frames.pop();
        if (this.captureStart >= 0 && (this.isBindingsArray() || (this.frames.length === 1 && this.path() === 'head'))) {
          events.push(...this.captured(this.buffer.slice(this.captureStart, this.at + 1)));
          this.captureStart = -1;
        }
      } else if (c === ':' && frame) {
        frame.expectKey = false;
        frame.key = this.lastString;
      } else if (c === ',' && frame?.kind === 'object') {
        frame.expectKey = true;
      } else if ((c === 't' || c === 'f') && this.frames.length === 1 && this.path() === 'boolean') {
        this.booleanValue = c === 't';
        events.push({ type: 'boolean', value: this.booleanValue });
      }
    }
    this.compact();
    return events;
  }

  end(): ResultsEvent[] {
    if (this.booleanValue !== undefined) return [];
    if (!this.variables) throw new ResultsFormatError('SPARQL JSON results: no head');
    return this.deferredHead();
  }

  /** A head without "vars" may belong to a boolean answer: it is announced only once rows come. */
  private deferredHead(): ResultsEvent[] {
    if (!this.headDeferred) return [];
    this.headDeferred = false;
    return [{ type: 'head', variables: this.variables ?? [] }];
  }

  private endString(): void {
    this.inString = false;
    this.lastString = JSON.parse(this.buffer.slice(this.stringStart, this.at + 1)) as string;
  }

  /** The key of the top-level member being read. */
  private path(): string | undefined {
    return this.frames[0]?.key;
  }

  private isBindingsArray(): boolean {
    return (
      this.frames.length === 3 &&
      this.frames[0].key === 'results' &&
      this.frames[1].key === 'bindings' &&
      this.frames[2].kind === 'array'
    );
  }

  private captured(text: string): ResultsEvent[] {
    const value = JSON.parse(text);
    if (this.isBindingsArray()) {
      if (!this.variables) {
        this.waiting.push(value);
        return [];
      }
      return [...this.deferredHead(), { type: 'row', row: jsonRow(value, this.variables) }];
    }
    const vars: unknown = value?.vars ?? [];
    this.headDeferred = value?.vars === undefined;
    if (!Array.isArray(vars) || !vars.every((v) => typeof v === 'string')) {
      throw new ResultsFormatError('SPARQL JSON results: head.vars is not a list of names');
    }
    this.variables = vars;
    const rows = this.waiting.map((binding): ResultsEvent => ({ type: 'row', row: jsonRow(binding, vars) }));
    this.waiting = [];
    if (this.headDeferred && rows.length === 0) return [];
    this.headDeferred = false;
    return [{ type: 'head', variables: vars }, ...rows];
  }

  /** Drops the text already scanned that no capture still needs. */
  private compact(): void {
    const keepFrom = Math.min(this.captureStart >= 0 ? this.captureStart : this.at, this.inString ? this.stringStart : this.at);
    if (keepFrom === 0) return;
    this.buffer = this.buffer.slice(keepFrom);
    this.at -= keepFrom;
    if (this.captureStart >= 0) this.captureStart -= keepFrom;
    this.stringStart -= keepFrom;
  }
}
