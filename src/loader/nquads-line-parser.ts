/**
 * A fast N-Triples / N-Quads reader for bulk loads: it turns each line straight into the store's
 * canonical term keys (see termKey in rdf/terms.ts) without building RDF/JS term objects, which is
 * where a general parser spends most of its time on line-based data. Being line-based, it can name
 * the line and column of an error and, in lenient mode, skip just the bad line.
 *
 * It reads N-Triples 1.2 and N-Quads 1.2: triple terms `<<( s p o )>>` as objects (nested too) and
 * directional language tags `"abc"@ar--rtl`, with the keys termKey gives them.
 */
import { iriSyntaxError } from '../rdf/index.js';
import { rdf, xsd } from '../rdf/index.js';

/** The default graph's term key. */
export const DEFAULT_GRAPH_KEY = 'D';

export class LineSyntaxError extends Error {
  /** The message without the position. */
  readonly reason: string;

  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} (line ${line}, column ${column})`);
    this.name = 'LineSyntaxError';
    this.reason = message;
  }
}

/** Receives each statement as four term keys (graph DEFAULT_GRAPH_KEY for the default graph). */
export type StatementSink = (s: string, p: string, o: string, g: string) => void;

const XSD_STRING = xsd.string;
const RDF_LANG_STRING = rdf.langString;
const RDF_DIR_LANG_STRING = rdf.dirLangString;
/** A language tag (the primary subtag at most 8 letters), then an RDF 1.2 base direction. */
const LANGUAGE_TAG = /^([a-zA-Z]{1,8}(?:-[a-zA-Z0-9]+)*)(?:--(ltr|rtl))?$/;
const LT = 60;
const QUOTE = 34;
const UNDERSCORE = 95;
const COLON = 58;
const HASH = 35;
const DOT = 46;
const AT = 64;
const CARET = 94;
const BACKSLASH = 92;
const SPACE = 32;
const TAB = 9;
const CR = 13;

class LineError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

export class NQuadsLineParser {
  /** Lines read so far; the next line parsed is line + 1. */
  line = 0;
  private text = '';
  private at = 0;

  /**
   * @param quads N-Quads (a fourth term names the graph) or N-Triples
   * @param blankPrefix prepended to blank node labels so that two files' `_:b1` stay distinct
   * @param graphKey the graph of statements that name none (the default graph, or --graph)
   */
  constructor(
    private readonly quads: boolean,
    private readonly blankPrefix: string,
    private readonly graphKey: string = DEFAULT_GRAPH_KEY,
  ) {}

  /**
   * Parses one line (without its line break). Throws a LineSyntaxError for a bad statement; the
   * line still counts, so the next one is numbered right.
   */
  parseLine(text: string, sink: StatementSink): void {
    this.line++;
    this.text = text;
    this.at = 0;
    try {
      this.statement(sink);
    } catch (error) {
      if (error instanceof LineError) throw new LineSyntaxError(error.message, this.line, error.at + 1);
      throw error;
    }
  }

  private statement(sink: StatementSink): void {
    this.skipSpace();
    if (this.atEnd() || this.peek() === HASH) return;
    const s = this.subjectOrGraph('subject');
    this.skipSpace();
    if (this.peek() !== LT) this.fail('expected an IRI as predicate');
    const p = this.iriKey();
    this.skipSpace();
    const o = this.object();
    this.skipSpace();
    let g = this.graphKey;
    if (this.quads && this.peek() !== DOT) {
      g = this.subjectOrGraph('graph label');
      this.skipSpace();
    }
    if (this.peek() !== DOT) this.fail(`expected '.' to end the statement`);
    this.at++;
    this.skipSpace();
    if (!this.atEnd() && this.peek() !== HASH) this.fail('unexpected text after the statement');
    sink(s, p, o, g);
  }

  private subjectOrGraph(what: string): string {
    const c = this.peek();
    if (c === LT && this.text.charCodeAt(this.at + 1) === LT) this.fail(`a triple term cannot be the ${what}`);
    if (c === LT) return this.iriKey();
    if (c === UNDERSCORE) return this.blankNode();
    this.fail(`expected an IRI or a blank node as ${what}`);
  }

  private object(): string {
    const c = this.peek();
    if (c === LT && this.text.charCodeAt(this.at + 1) === LT) return this.tripleTerm();
    if (c === LT) return this.iriKey();
    if (c === UNDERSCORE) return this.blankNode();
    if (c === QUOTE) return this.literal();
    this.fail('expected an IRI, a blank node or a literal as object');
  }

  /** Reads `<<( s p o )>>` and returns its key, as termKey writes it: `[`, length-prefixed s and p, then o. */
  private tripleTerm(): string {
    if (!this.text.startsWith('<<(', this.at)) this.fail(`expected '<<(' to start a triple term`);
    this.at += 3;
    this.skipSpace();
    const s = this.subjectOrGraph('triple term subject');
    this.skipSpace();
    if (this.peek() !== LT || this.text.charCodeAt(this.at + 1) === LT) this.fail('expected an IRI as predicate');
    const p = this.iriKey();
    this.skipSpace();
    const o = this.object();
    this.skipSpace();
    if (!this.text.startsWith(')>>', this.at)) this.fail(`expected ')>>' to end the triple term`);
    this.at += 3;
    return '[' + s.length + ':' + s + p.length + ':' + p + o;
  }

  /**
   * Reads `<...>` and returns the IRI's term key. Without escapes that is a slice of the line,
   * `<` included: no concatenated string that the term map would have to flatten first.
   */
  private iriKey(): string {
    const start = this.at;
    const value = this.iri();
    const end = this.at - 1;
    return end - start - 1 === value.length ? this.text.slice(start, end) : '<' + value;
  }

  /** Reads `<...>` and returns the IRI. */
  private iri(): string {
    const text = this.text;
    const start = ++this.at;
    const end = text.indexOf('>', start);
    if (end < 0) this.fail('unterminated IRI');
    let value = text.slice(start, end);
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c <= SPACE || c === LT || c === QUOTE || c === 123 || c === 125 || c === 124 || c === CARET || c === 96) {
        this.at = start + i;
        this.fail('invalid character in IRI');
      }
      if (c === BACKSLASH) {
        value = this.unescape(value, start, true);
        break;
      }
    }
    if (!hasScheme(value)) {
      this.at = start;
      this.fail('relative IRI (N-Triples and N-Quads need absolute IRIs)');
    }
    const invalid = iriSyntaxError(value);
    if (invalid !== undefined) {
      this.at = start;
      this.fail(`invalid IRI <${value}>: ${invalid}`);
    }
    this.at = end + 1;
    return value;
  }

  private blankNode(): string {
    const text = this.text;
    if (text.charCodeAt(this.at + 1) !== COLON) this.fail(`expected '_:' to start a blank node`);
    const start = this.at + 2;
    let end = start;
    while (end < text.length && isLabelChar(text.charCodeAt(end))) end++;
    // A label may contain dots but not end with one.
    while (end > start && text.charCodeAt(end - 1) === DOT) end--;
    if (end === start) this.fail('empty blank node label');
    this.at = end;
    return '_' + this.blankPrefix + text.slice(start, end);
  }

  private literal(): string {
    const text = this.text;
    const start = ++this.at;
    let end = start;
    let escaped = false;
    for (;;) {
      end = text.indexOf('"', end);
      if (end < 0) this.fail('unterminated literal');
      // The quote is escaped when an odd number of backslashes precedes it.
      let slashes = 0;
      while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
      if (slashes % 2 === 0) break;
      escaped = true;
      end++;
    }
    let lexical = text.slice(start, end);
    if (escaped || lexical.indexOf('\\') >= 0) lexical = this.unescape(lexical, start, false);
    this.at = end + 1;
    // Whitespace may separate the string from its tag or datatype (they are tokens of their own).
    const afterString = this.at;
    this.skipSpace();
    const next = this.peek();
    if (next !== AT && next !== CARET) this.at = afterString;
    if (next === AT) {
      const tagStart = this.at + 1;
      let tagEnd = tagStart;
      while (tagEnd < text.length && isLangChar(text.charCodeAt(tagEnd))) tagEnd++;
      const tag = LANGUAGE_TAG.exec(text.slice(tagStart, tagEnd));
      if (tag === null) this.fail('invalid language tag');
      this.at = tagEnd;
      const language = tag[1].toLowerCase();
      return tag[2] === undefined ? '@' + language + '"' + lexical : '/' + language + '--' + tag[2] + '"' + lexical;
    }
    if (next === CARET) {
      if (text.charCodeAt(this.at + 1) !== CARET) this.fail(`expected '^^<datatype>'`);
      this.at += 2;
      this.skipSpace();
      if (this.peek() !== LT) this.fail(`expected '^^<datatype>'`);
      const datatype = this.iri();
      if (datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) this.fail(`<${datatype}> needs a language tag, not a datatype`);
      return datatype === XSD_STRING ? '"' + lexical : '^' + datatype + '"' + lexical;
    }
    return '"' + lexical;
  }

  /** Resolves \-escapes: UCHAR everywhere, ECHAR in literals only. */
  private unescape(value: string, offset: number, inIri: boolean): string {
    return value.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.)|$)/g, (match, u4: string, u8: string, c: string, at: number) => {
      if (u4 !== undefined || u8 !== undefined) {
        const code = parseInt(u4 ?? u8, 16);
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
          this.at = offset + at;
          this.fail('invalid code point in escape');
        }
        return String.fromCodePoint(code);
      }
      const unescaped = inIri ? undefined : ECHARS[c];
      if (unescaped === undefined) {
        this.at = offset + at;
        this.fail(`invalid escape ${match}`);
      }
      return unescaped;
    });
  }

  private skipSpace(): void {
    const text = this.text;
    let at = this.at;
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c !== SPACE && c !== TAB && c !== CR) break;
      at++;
    }
    this.at = at;
  }

  private peek(): number {
    return this.text.charCodeAt(this.at);
  }

  private atEnd(): boolean {
    return this.at >= this.text.length;
  }

  private fail(message: string): never {
    throw new LineError(message, this.at);
  }
}

const ECHARS: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

function hasScheme(iri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(iri);
}

function isLabelChar(c: number): boolean {
  // PN_CHARS plus '.', loosely: anything but whitespace and the few delimiters that can follow.
  return c > SPACE && c !== LT && c !== QUOTE && c !== 44 && c !== 59 && c !== 40 && c !== 41 && c !== 91 && c !== 93 && c !== 123 && c !== 125 && c !== HASH;
}

function isLangChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45;
}
