/**
 * SPARQL 1.1 Query Results CSV and TSV: a whole document, or incrementally as it arrives.
 *
 * CSV is lossy by design (the format keeps no term types): every CSV value comes back as a simple
 * literal, except `_:label` values, which come back as blank nodes so that callers can still match
 * blank nodes up to renaming. Callers that compare CSV with typed results must first reduce their
 * own terms with {@link csvValueOf}.
 */
import type { SolutionRow, Term } from '../rdf/index.js';
import { blankNode, directionalLiteral, literal, namedNode, typedLiteral } from '../rdf/index.js';
import { xsd } from '../rdf/index.js';
import { ResultsFormatError, tripleTermOf, type IncrementalReader, type ParsedResults, type ResultsEvent } from './results-reading.js';

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
      throw new ResultsFormatError(`TSV results: line ${index + 2} has ${fields.length} fields under ${variables.length} columns`);
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
  return iri.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_m, short: string, long: string) => String.fromCodePoint(parseInt(short ?? long, 16)));
}

/** The incremental TSV reader: a header line, then a row per line. */
export function tsvReader(): IncrementalReader {
  return new LineReader((line, isHeader) =>
    isHeader ? { type: 'head', variables: line === '' ? [] : line.split('\t').map(tsvVariableName) } : { type: 'row', row: tsvRow(line.split('\t')) },
  );
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
export class CsvReader implements IncrementalReader {
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
