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
import type { Term } from '../rdf/terms.js';
import { blankNode, literal, namedNode, typedLiteral } from '../rdf/terms.js';
import { xsd } from '../rdf/vocabulary.js';
import type { SolutionRow } from '../service/sparql-service.js';

export type ParsedResults =
  | { kind: 'bindings'; variables: string[]; rows: SolutionRow[] }
  | { kind: 'boolean'; value: boolean };

export type ResultsFormat = 'xml' | 'json' | 'csv' | 'tsv';

/** A results document that does not follow its format. */
export class ResultsFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResultsFormatError';
  }
}

const FORMAT_NAMES: Record<string, ResultsFormat> = {
  srx: 'xml',
  xml: 'xml',
  'application/sparql-results+xml': 'xml',
  'application/xml': 'xml',
  'text/xml': 'xml',
  srj: 'json',
  json: 'json',
  'application/sparql-results+json': 'json',
  'application/json': 'json',
  csv: 'csv',
  'text/csv': 'csv',
  tsv: 'tsv',
  'text/tab-separated-values': 'tsv',
};

/**
 * The results format named by a media type (parameters allowed, e.g. `text/csv; charset=utf-8`)
 * or a file extension (with or without the dot), or undefined when it names none of the four.
 */
export function resultsFormatOf(mediaTypeOrExtension: string): ResultsFormat | undefined {
  const name = mediaTypeOrExtension.split(';')[0].trim().toLowerCase().replace(/^\./, '');
  return FORMAT_NAMES[name];
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
  value?: string;
  'xml:lang'?: string;
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
  const rows = bindings.map((binding: Record<string, JsonTerm>) =>
    variables.map((name: string) => (binding[name] === undefined ? undefined : jsonTerm(binding[name]))),
  );
  return { kind: 'bindings', variables: [...variables], rows };
}

function jsonTerm(term: JsonTerm): Term {
  const value = term.value;
  if (typeof value !== 'string') throw new ResultsFormatError('SPARQL JSON results: a term without a string value');
  switch (term.type) {
    case 'uri':
      return namedNode(value);
    case 'bnode':
      return blankNode(value);
    // "typed-literal" is the pre-Recommendation spelling some endpoints still send.
    case 'literal':
    case 'typed-literal':
      return literalOf(value, term['xml:lang'], term.datatype);
    default:
      throw new ResultsFormatError(`SPARQL JSON results: unknown term type ${JSON.stringify(term.type)}`);
  }
}

function literalOf(value: string, language: string | undefined, datatype: string | undefined): Term {
  if (language) return literal(value, language);
  if (datatype) return typedLiteral(value, datatype);
  return literal(value);
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
  const rows = childElements(results, 'result').map((result) => {
    const row: SolutionRow = new Array(variables.length).fill(undefined);
    for (const binding of childElements(result, 'binding')) {
      const name = requiredAttribute(binding, 'name');
      const column = columnOf.get(name);
      if (column === undefined) throw new ResultsFormatError(`SPARQL XML results: binding of undeclared ?${name}`);
      const termElement = binding.children.find(isElement);
      if (!termElement) throw new ResultsFormatError(`SPARQL XML results: empty binding of ?${name}`);
      row[column] = xmlTerm(termElement);
    }
    return row;
  });
  return { kind: 'bindings', variables, rows };
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
      return literalOf(textOf(element), element.attributes.get('xml:lang'), element.attributes.get('datatype'));
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
    return fields.map((field) => (field === '' ? undefined : parseTsvTerm(field)));
  });
  return { kind: 'bindings', variables, rows };
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
  if (text.startsWith('<') && text.endsWith('>')) return namedNode(unescapeIri(text.slice(1, -1)));
  if (text.startsWith('_:')) return blankNode(text.slice(2));
  if (text.startsWith('"') || text.startsWith("'")) return quotedLiteral(text);
  if (text === 'true' || text === 'false') return typedLiteral(text, xsd.boolean);
  for (const [pattern, datatype] of TSV_NUMBER) {
    if (pattern.test(text)) return typedLiteral(text, datatype);
  }
  throw new ResultsFormatError(`TSV results: cannot read the term ${JSON.stringify(field)}`);
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
  if (rest.startsWith('@')) return literal(value, rest.slice(1));
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
