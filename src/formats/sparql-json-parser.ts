/** SPARQL 1.1 (and 1.2) Query Results JSON: a whole document, or incrementally as it arrives. */
import type { SolutionRow, Term } from '../rdf/index.js';
import { blankNode, namedNode } from '../rdf/index.js';
import { ResultsFormatError, literalOf, tripleTermOf, type IncrementalReader, type ParsedResults, type ResultsEvent } from './results-reading.js';

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
export class JsonReader implements IncrementalReader {
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
    return this.frames.length === 3 && this.frames[0].key === 'results' && this.frames[1].key === 'bindings' && this.frames[2].kind === 'array';
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
