/**
 * The one reader of N-Triples and N-Quads: the bulk loader's (through term keys) and everything
 * else's (parseRdf, through RDF/JS terms). Written by hand because it is where a load spends its
 * time: a general parser (N3.js) tokenizes, then builds, every term through several layers of
 * objects; this reads a line left to right once and hands each term to a {@link TermBuilder}, which
 * makes either the store's canonical term key (termKey in rdf/terms.ts) without any object, or the
 * RDF/JS term. bench/nquads-reading.ts measures both against N3.js.
 *
 * Being line-based, it names the line and column of an error, and a caller can skip just the bad
 * line (`quiver load --lenient`). It reads N-Triples 1.2 and N-Quads 1.2: triple terms
 * `<<( s p o )>>` as objects (nested too), directional language tags `"abc"@ar--rtl`, and VERSION
 * directives. A carriage return ends a statement as a line feed does (EOL is [#xD#xA]+); a statement
 * split over lines, or two on one line, is refused, as the grammar says (N3.js accepted both).
 */
import { directionalLiteral, factory, iriSyntaxError, literal, rdf, tripleTerm, xsd, type Direction, type Quad, type Term } from '../rdf/index.js';
import type * as RDF from '@rdfjs/types';
import { RdfSyntaxError } from './rdf-syntax-error.js';

/** Makes the reader's terms: keys (TERM_KEYS) or RDF/JS terms (RdfTermBuilder). */
export interface TermBuilder<T> {
  /**
   * An IRI. `line[start, close)` is how it is written, `<` included, `>` not: the IRI itself
   * behind its `<` unless `escaped` (then only `iri` has it).
   */
  iri(iri: string, line: string, start: number, close: number, escaped: boolean): T;
  /** A blank node, the reader's document prefix already on its label. */
  blankNode(label: string): T;
  /** An xsd:string literal. */
  simpleLiteral(lexical: string): T;
  /** A language-tagged string, the tag lower-cased; with a base direction or not. */
  languageLiteral(lexical: string, language: string, direction: Direction | undefined): T;
  /** A literal of any other datatype. */
  typedLiteral(lexical: string, datatype: string): T;
  tripleTerm(subject: T, predicate: T, object: T): T;
}

/** Receives each statement; `g` is the reader's `defaultGraph` for a statement that names none. */
export type StatementSink<T> = (s: T, p: T, o: T, g: T) => void;

/** The store's canonical term keys (termKey in rdf/terms.ts), built as strings and never as objects. */
export const TERM_KEYS: TermBuilder<string> = {
  // Without escapes the key is a slice of the line, `<` included: no concatenated string that the
  // term map would have to flatten first.
  iri: (iri, line, start, close, escaped) => (escaped ? '<' + iri : line.slice(start, close)),
  blankNode: (label) => '_' + label,
  simpleLiteral: (lexical) => '"' + lexical,
  languageLiteral: (lexical, language, direction) =>
    direction === undefined ? '@' + language + '"' + lexical : '/' + language + '--' + direction + '"' + lexical,
  typedLiteral: (lexical, datatype) => '^' + datatype + '"' + lexical,
  tripleTerm: (s, p, o) => '[' + s.length + ':' + s + p.length + ':' + p + o,
};

/** The default graph's term key. */
export const DEFAULT_GRAPH_KEY = 'D';

/** RDF/JS terms from the rdf/ factory, as parseRdf gives them. */
export class RdfTermBuilder implements TermBuilder<Term> {
  // Most typed literals of a file share a few datatypes, often one after another: one NamedNode each.
  private datatype = '';
  private datatypeNode: RDF.NamedNode = factory.namedNode(xsd.string);

  iri(iri: string): Term {
    return factory.namedNode(iri);
  }
  blankNode(label: string): Term {
    return factory.blankNode(label);
  }
  simpleLiteral(lexical: string): Term {
    return literal(lexical);
  }
  languageLiteral(lexical: string, language: string, direction: Direction | undefined): Term {
    return direction === undefined ? literal(lexical, language) : directionalLiteral(lexical, language, direction);
  }
  typedLiteral(lexical: string, datatype: string): Term {
    if (datatype !== this.datatype) {
      this.datatype = datatype;
      this.datatypeNode = factory.namedNode(datatype);
    }
    return literal(lexical, this.datatypeNode);
  }
  tripleTerm(subject: Term, predicate: Term, object: Term): Term {
    return tripleTerm(subject as Quad['subject'], predicate as Quad['predicate'], object as Quad['object']);
  }
}

export interface NQuadsReaderOptions<T> {
  /** N-Quads (a fourth term may name the graph) or N-Triples. */
  quads: boolean;
  /** Prepended to blank node labels, so that two documents' `_:b1` stay distinct nodes. */
  blankPrefix: string;
  /** The graph of statements that name none (the default graph, or the load's target graph). */
  defaultGraph: T;
  /**
   * Given this, a statement with an IRI that is well-formed for the grammar but not a valid IRI
   * (RFC 3987, rdf/iri-syntax.ts) is left out and reported here, as parseRdf's `skipInvalid` does
   * for every format (with the line only, as the others report it); other errors still throw.
   */
  skipInvalidIri?: (error: RdfSyntaxError) => void;
}

const XSD_STRING = xsd.string;
const RDF_LANG_STRING = rdf.langString;
const RDF_DIR_LANG_STRING = rdf.dirLangString;
/** A language tag (subtags of at most 8 letters or digits, as BCP 47 has them), then an RDF 1.2 base direction. */
const LANGUAGE_TAG = /^([a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*)(?:--(ltr|rtl))?$/;
/** What a VERSION directive may name: N3.js's list, which the server accepted before this reader. */
const SUPPORTED_VERSIONS = new Set(['1.2', '1.2-basic', '1.1']);
/** N-Triples' BLANK_NODE_LABEL after `_:` (PN_CHARS_U has `:` in N-Triples, unlike Turtle). */
const BLANK_NODE_LABEL = blankNodeLabelPattern();
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
const UPPER_V = 86;

class LineError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

export class NQuadsReader<T> {
  /** Lines read so far; the next line parsed is line + 1. */
  line = 0;
  private text = '';
  private at = 0;
  private readonly quads: boolean;
  private readonly blankPrefix: string;
  private readonly defaultGraph: T;
  private readonly skipInvalidIri: ((error: RdfSyntaxError) => void) | undefined;
  /** The first invalid IRI of the statement being read, when such statements are skipped. */
  private invalidIri: RdfSyntaxError | undefined;

  constructor(
    private readonly terms: TermBuilder<T>,
    options: NQuadsReaderOptions<T>,
  ) {
    this.quads = options.quads;
    this.blankPrefix = options.blankPrefix;
    this.defaultGraph = options.defaultGraph;
    this.skipInvalidIri = options.skipInvalidIri;
  }

  /**
   * Parses one line (without its line feed). Throws an RdfSyntaxError with the line and column for
   * a bad statement; the line still counts, so the next one is numbered right.
   */
  parseLine(text: string, sink: StatementSink<T>): void {
    this.line++;
    this.text = text;
    this.at = 0;
    try {
      this.statements(sink);
    } catch (error) {
      if (error instanceof LineError) throw new RdfSyntaxError(error.message, this.line, error.at + 1);
      throw error;
    }
  }

  /** The line's statement, if any; more than one only where a carriage return ends the one before. */
  private statements(sink: StatementSink<T>): void {
    this.skipSpace();
    while (!this.atEnd() && this.peek() !== HASH) {
      if (this.peek() === UPPER_V) this.version();
      else this.statement(sink);
      const end = this.at;
      this.skipSpace();
      if (this.atEnd() || this.peek() === HASH) return;
      if (this.text.lastIndexOf('\r', this.at) < end) this.fail('unexpected text after the statement');
    }
  }

  private statement(sink: StatementSink<T>): void {
    this.invalidIri = undefined;
    const s = this.subjectOrGraph('subject');
    this.skipSpace();
    if (this.peek() !== LT) this.fail('expected an IRI as predicate');
    const p = this.iriTerm();
    this.skipSpace();
    const o = this.object();
    this.skipSpace();
    let g = this.defaultGraph;
    if (this.quads && this.peek() !== DOT) {
      g = this.subjectOrGraph('graph label');
      this.skipSpace();
    }
    if (this.peek() !== DOT) this.fail(`expected '.' to end the statement`);
    this.at++;
    if (this.invalidIri === undefined) sink(s, p, o, g);
    else this.skipInvalidIri!(this.invalidIri);
  }

  /** `VERSION "1.2"`: N-Triples 1.2's one directive. The version must be one this reader knows. */
  private version(): void {
    if (!this.text.startsWith('VERSION', this.at)) this.fail('expected an IRI or a blank node as subject');
    this.at += 7;
    this.skipSpace();
    if (this.peek() !== QUOTE) this.fail('expected a version string after VERSION');
    const start = this.at;
    const version = this.quotedString();
    if (!SUPPORTED_VERSIONS.has(version)) {
      this.at = start;
      this.fail(`unsupported version "${version}"`);
    }
  }

  private subjectOrGraph(what: string): T {
    const c = this.peek();
    if (c === LT && this.text.charCodeAt(this.at + 1) === LT) this.fail(`a triple term cannot be the ${what}`);
    if (c === LT) return this.iriTerm();
    if (c === UNDERSCORE) return this.blankNode();
    this.fail(`expected an IRI or a blank node as ${what}`);
  }

  private object(): T {
    const c = this.peek();
    if (c === LT && this.text.charCodeAt(this.at + 1) === LT) return this.tripleTerm();
    if (c === LT) return this.iriTerm();
    if (c === UNDERSCORE) return this.blankNode();
    if (c === QUOTE) return this.literal();
    this.fail('expected an IRI, a blank node or a literal as object');
  }

  /** Reads `<<( s p o )>>`. */
  private tripleTerm(): T {
    if (!this.text.startsWith('<<(', this.at)) this.fail(`expected '<<(' to start a triple term`);
    this.at += 3;
    this.skipSpace();
    const s = this.subjectOrGraph('triple term subject');
    this.skipSpace();
    if (this.peek() !== LT || this.text.charCodeAt(this.at + 1) === LT) this.fail('expected an IRI as predicate');
    const p = this.iriTerm();
    this.skipSpace();
    const o = this.object();
    this.skipSpace();
    if (!this.text.startsWith(')>>', this.at)) this.fail(`expected ')>>' to end the triple term`);
    this.at += 3;
    return this.terms.tripleTerm(s, p, o);
  }

  /** Reads `<...>` as a term. */
  private iriTerm(): T {
    const start = this.at;
    const value = this.iri();
    const close = this.at - 1;
    return this.terms.iri(value, this.text, start, close, close - start - 1 !== value.length);
  }

  /** Reads `<...>` and returns the IRI. */
  private iri(): string {
    const text = this.text;
    const start = ++this.at;
    const end = text.indexOf('>', start);
    if (end < 0) this.fail('unterminated IRI');
    let value = text.slice(start, end);
    // Most IRIs pass the full check at once (it refuses what the grammar does, `\` too): only the
    // others are looked at character by character, for their escapes or the error's wording.
    if (iriSyntaxError(value) !== undefined) value = this.unusualIri(value, start);
    this.at = end + 1;
    return value;
  }

  /** An IRI that is not valid as written: its escapes resolved, or the error it holds. */
  private unusualIri(written: string, start: number): string {
    let value = written;
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
      const message = `invalid IRI <${value}>: ${invalid}`;
      if (this.skipInvalidIri === undefined) this.fail(message);
      this.invalidIri ??= new RdfSyntaxError(message, this.line);
    }
    return value;
  }

  private blankNode(): T {
    const text = this.text;
    if (text.charCodeAt(this.at + 1) !== COLON) this.fail(`expected '_:' to start a blank node`);
    BLANK_NODE_LABEL.lastIndex = this.at + 2;
    const label = BLANK_NODE_LABEL.exec(text);
    if (label === null) {
      this.at += 2;
      this.fail('invalid blank node label');
    }
    this.at = BLANK_NODE_LABEL.lastIndex;
    return this.terms.blankNode(this.blankPrefix + label[0]);
  }

  private literal(): T {
    const text = this.text;
    const lexical = this.quotedString();
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
      return this.terms.languageLiteral(lexical, tag[1].toLowerCase(), tag[2] as Direction | undefined);
    }
    if (next === CARET) {
      if (text.charCodeAt(this.at + 1) !== CARET) this.fail(`expected '^^<datatype>'`);
      this.at += 2;
      this.skipSpace();
      if (this.peek() !== LT) this.fail(`expected '^^<datatype>'`);
      const datatype = this.iri();
      if (datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) this.fail(`<${datatype}> needs a language tag, not a datatype`);
      return datatype === XSD_STRING ? this.terms.simpleLiteral(lexical) : this.terms.typedLiteral(lexical, datatype);
    }
    return this.terms.simpleLiteral(lexical);
  }

  /** Reads `"..."` and returns the string, escapes resolved. */
  private quotedString(): string {
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
    return lexical;
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

/**
 * BLANK_NODE_LABEL ::= (PN_CHARS_U | [0-9]) ((PN_CHARS | '.')* PN_CHARS)?, sticky: a label may hold
 * dots but not end with one (the dot then ends the statement).
 */
function blankNodeLabelPattern(): RegExp {
  const base =
    'A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
  const first = `${base}_:0-9`;
  const rest = `${first}\\-\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
  // The grammar's ranges of combining marks, on purpose: each is a character of its own in a label.
  // eslint-disable-next-line no-misleading-character-class
  return new RegExp(`[${first}](?:[${rest}.]*[${rest}])?`, 'uy');
}

function isLangChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45;
}
