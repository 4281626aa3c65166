/**
 * The common case of an N-Triples / N-Quads line, read straight from the file's bytes: each term's
 * canonical key (termKey in rdf/terms.ts) as UTF-8 bytes, mostly a slice of the line itself (an
 * IRI's key is `<iri`, a plain literal's `"lexical`), otherwise built in a small buffer. No strings
 * are made, which is where a string parser spends its time and the collector its effort.
 *
 * Anything out of the ordinary (an escape, invalid UTF-8, a non-ASCII blank node label, a directive,
 * a syntax error) answers NEEDS_STRING_PARSER and the caller hands the line to the reader every other
 * path uses (formats/nquads-reader.ts, as term keys), which resolves escapes and words the error
 * messages: both must produce the same keys for the same line (byte-line-parser.test.ts).
 */
import { isUtf8 } from 'node:buffer';
import { copyBytes, viewOf, type KeyBytes } from './byte-term-table.js';

/** parse(): nothing on the line (blank, or a comment). */
export const NO_STATEMENT = 0;
/** parse(): a statement; its keys are in the parser's key fields. */
export const STATEMENT = 1;
/** parse(): the line needs the string parser. */
export const NEEDS_STRING_PARSER = -1;

const LT = 0x3c;
const GT = 0x3e;
const QUOTE = 0x22;
const UNDERSCORE = 0x5f;
const COLON = 0x3a;
const SLASH = 0x2f;
const HASH = 0x23;
const DOT = 0x2e;
const AT = 0x40;
const CARET = 0x5e;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const DASH = 0x2d;
/** The longest subtag of a language tag (BCP 47). */
const MAX_SUBTAG = 8;

const XSD_STRING = Buffer.from('http://www.w3.org/2001/XMLSchema#string', 'latin1');
const RDF_LANG_STRING = Buffer.from('http://www.w3.org/1999/02/22-rdf-syntax-ns#langString', 'latin1');
const RDF_DIR_LANG_STRING = Buffer.from('http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString', 'latin1');

/** Thrown inside the parser to give the line to the string parser. */
const FALLBACK = new Error('needs the string parser');

/** A term's key: bytes[from, to); view is a DataView of bytes (for the term table). */
export class KeyBuffer implements KeyBytes {
  bytes: Uint8Array = new Uint8Array(256);
  view: DataView = viewOf(this.bytes);
  from = 0;
  to = 0;
  /**
   * An IRI key whose characters the parser has not checked (see ByteLineParser.isValidIri): checking
   * is left until the key turns out to be new, since most IRIs of a file are met many times.
   */
  unchecked = false;
  private own: Uint8Array = this.bytes;
  private ownView: DataView = this.view;

  /** The key is a slice of the line; lineView is its DataView. */
  slice(line: Uint8Array, lineView: DataView, from: number, to: number): void {
    this.bytes = line;
    this.view = lineView;
    this.from = from;
    this.to = to;
    this.unchecked = false;
  }

  /** Starts a key built from pieces. */
  build(): void {
    this.bytes = this.own;
    this.view = this.ownView;
    this.from = this.to = 0;
    this.unchecked = false;
  }

  push(byte: number): void {
    if (this.to === this.own.length) this.grow(this.to + 1);
    this.own[this.to++] = byte;
  }

  append(source: Uint8Array, from: number, to: number): void {
    const length = to - from;
    if (this.to + length > this.own.length) this.grow(this.to + length);
    copyBytes(source, from, to, this.own, this.to);
    this.to += length;
  }

  private grow(needed: number): void {
    const grown = new Uint8Array(Math.max(needed, this.own.length * 2));
    grown.set(this.own.subarray(0, this.to));
    this.own = this.bytes = grown;
    this.ownView = this.view = viewOf(grown);
  }
}

export class ByteLineParser {
  readonly subject = new KeyBuffer();
  readonly predicate = new KeyBuffer();
  readonly object = new KeyBuffer();
  /** Set when the statement names its graph (N-Quads); see hasGraph. */
  readonly graph = new KeyBuffer();
  hasGraph = false;
  private line: Uint8Array = new Uint8Array(0);
  /** A DataView of the buffer that `parse` was last given (most lines come from one read chunk). */
  private lineView = viewOf(this.line);
  private viewed: Uint8Array = this.line;
  private at = 0;
  private end = 0;
  private readonly blankPrefix: Uint8Array;

  /**
   * @param quads N-Quads (a fourth term names the graph) or N-Triples
   * @param blankPrefix prepended to blank node labels, as NQuadsReader does
   */
  constructor(
    private readonly quads: boolean,
    blankPrefix: string,
  ) {
    this.blankPrefix = Buffer.from(blankPrefix, 'utf8');
  }

  /** Parses bytes[start, end), one line without its line break. */
  parse(bytes: Uint8Array, start: number, end: number): number {
    this.line = bytes;
    if (bytes !== this.viewed) {
      this.viewed = bytes;
      this.lineView = viewOf(bytes);
    }
    this.at = start;
    this.end = end;
    try {
      return this.statement();
    } catch (error) {
      if (error === FALLBACK) return NEEDS_STRING_PARSER;
      throw error;
    }
  }

  private statement(): number {
    this.skipSpace();
    if (this.at >= this.end || this.line[this.at] === HASH) return NO_STATEMENT;
    this.subjectOrGraph(this.subject);
    this.skipSpace();
    if (this.peek() !== LT) throw FALLBACK;
    this.iri(this.predicate);
    this.skipSpace();
    this.objectTerm();
    this.skipSpace();
    this.hasGraph = false;
    if (this.quads && this.peek() !== DOT) {
      this.subjectOrGraph(this.graph);
      this.hasGraph = true;
      this.skipSpace();
    }
    if (this.peek() !== DOT) throw FALLBACK;
    this.at++;
    this.skipSpace();
    if (this.at < this.end && this.line[this.at] !== HASH) throw FALLBACK;
    return STATEMENT;
  }

  private subjectOrGraph(key: KeyBuffer): void {
    const c = this.peek();
    if (c === LT && this.line[this.at + 1] === LT) throw FALLBACK;
    if (c === LT) this.iri(key);
    else if (c === UNDERSCORE) this.blankNode(key);
    else throw FALLBACK;
  }

  private objectTerm(): void {
    const c = this.peek();
    // An RDF 1.2 triple term `<<( … )>>` is the string parser's.
    if (c === LT && this.line[this.at + 1] === LT) throw FALLBACK;
    if (c === LT) this.iri(this.object);
    else if (c === UNDERSCORE) this.blankNode(this.object);
    else if (c === QUOTE) this.literal(this.object);
    else throw FALLBACK;
  }

  /**
   * `<iri>`: its key is `<iri`, a slice of the line, left unchecked (the caller checks new keys with
   * isValidIri). Any character but `>` may be in it then, up to the line's end.
   */
  private iri(key: KeyBuffer): void {
    const start = this.at;
    const close = this.line.indexOf(GT, start + 1);
    if (close < 0 || close >= this.end) throw FALLBACK;
    key.slice(this.line, this.lineView, start, close);
    key.unchecked = true;
    this.at = close + 1;
  }

  /**
   * Whether an unchecked IRI key is one the string parser would read as it is: no escape, no
   * character IRIs exclude, absolute, valid UTF-8. If not, the line is the string parser's.
   */
  isValidIri(key: KeyBuffer): boolean {
    this.line = key.bytes;
    return this.checkedIri(key.from, key.to);
  }

  /** The position of the `>` closing the IRI that starts at `start`; checks the IRI. */
  private iriEnd(start: number): number {
    const close = this.line.indexOf(GT, start + 1);
    if (close < 0 || close >= this.end || !this.checkedIri(start, close)) throw FALLBACK;
    return close;
  }

  /**
   * Checks the IRI of line[start, close), `<` included. What the full IRI check (src/rdf/iri-syntax.ts)
   * would have more to say about is left to the string parser, which makes it: `%` escapes, brackets,
   * a second `#`, a port or user in the authority.
   */
  private checkedIri(start: number, close: number): boolean {
    const line = this.line;
    let ascii = true;
    let hashes = 0;
    for (let i = start + 1; i < close; i++) {
      const c = line[i];
      if (c <= SPACE || c === LT || c === QUOTE || c === 0x7b || c === 0x7d || c === 0x7c || c === CARET || c === 0x60 || c === BACKSLASH) return false;
      if (c === 0x25 || c === 0x5b || c === 0x5d) return false;
      if (c === 0x23) hashes++;
      if (c >= 0x80) ascii = false;
    }
    return hashes <= 1 && this.hasScheme(start + 1, close) && this.plainAuthority(start + 1, close) && (ascii || isUtf8(line.subarray(start + 1, close)));
  }

  /** Whether the authority, if the IRI has one, is a host alone (no `:port`, no `user@`). */
  private plainAuthority(start: number, end: number): boolean {
    const line = this.line;
    let at = line.indexOf(COLON, start);
    if (at < 0 || at + 2 >= end || line[at + 1] !== SLASH || line[at + 2] !== SLASH) return true;
    for (at += 3; at < end; at++) {
      const c = line[at];
      if (c === SLASH || c === 0x3f || c === 0x23) return true;
      if (c === COLON || c === 0x40) return false;
    }
    return true;
  }

  /** /^[A-Za-z][A-Za-z0-9+.-]*:/, as NQuadsReader checks for an absolute IRI. */
  private hasScheme(start: number, end: number): boolean {
    const line = this.line;
    if (start >= end || !isLetter(line[start])) return false;
    for (let i = start + 1; i < end; i++) {
      const c = line[i];
      if (c === COLON) return true;
      if (!isLetter(c) && !(c >= 0x30 && c <= 0x39) && c !== 0x2b && c !== DOT && c !== DASH) return false;
    }
    return false;
  }

  private blankNode(key: KeyBuffer): void {
    const line = this.line;
    if (line[this.at + 1] !== COLON) throw FALLBACK;
    const start = this.at + 2;
    // NQuadsReader's BLANK_NODE_LABEL on bytes: it starts with neither '-' nor '.' (nor the few other
    // characters only a label's rest may hold) and does not end with '.'.
    if (line[start] === DASH || line[start] === DOT) throw FALLBACK;
    let end = start;
    while (end < this.end) {
      const c = line[end];
      if (c < 0x80) {
        if (!isLabelByte(c)) break;
        end++;
        continue;
      }
      const length = this.labelCharLength(end, end === start);
      if (length === 0) break;
      end += length;
    }
    while (end > start && line[end - 1] === DOT) end--;
    if (end === start) throw FALLBACK;
    key.build();
    key.push(UNDERSCORE);
    key.append(this.blankPrefix, 0, this.blankPrefix.length);
    key.append(line, start, end);
    this.at = end;
  }

  /**
   * The length in bytes of the non-ASCII character at `at` when it may be in a blank node label
   * (PN_CHARS; PN_CHARS_U for the first), else 0. Invalid UTF-8 is the reader's (its decoder turns
   * it into U+FFFD).
   */
  private labelCharLength(at: number, first: boolean): number {
    const line = this.line;
    const c = line[at];
    let length: number;
    let code: number;
    if (c >= 0xc2 && c <= 0xdf) [length, code] = [2, c & 0x1f];
    else if (c >= 0xe0 && c <= 0xef) [length, code] = [3, c & 0x0f];
    else if (c >= 0xf0 && c <= 0xf4) [length, code] = [4, c & 0x07];
    else throw FALLBACK;
    if (at + length > this.end) throw FALLBACK;
    for (let i = 1; i < length; i++) {
      const next = line[at + i];
      if ((next & 0xc0) !== 0x80) throw FALLBACK;
      code = (code << 6) | (next & 0x3f);
    }
    if ((length === 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) || (length === 4 && (code < 0x10000 || code > 0x10ffff))) throw FALLBACK;
    if (isLabelStart(code)) return length;
    return !first && (code === 0xb7 || (code >= 0x300 && code <= 0x36f) || code === 0x203f || code === 0x2040) ? length : 0;
  }

  private literal(key: KeyBuffer): void {
    const line = this.line;
    const view = this.lineView;
    const end = this.end;
    const open = this.at;
    let close = open + 1;
    let ascii = true;
    // Four bytes at a time while none is a quote, a backslash or (until one was met) non-ASCII; then
    // one byte at a time past what stopped the words. Literals are most of a file's bytes.
    let highBits = 0x80808080 | 0;
    for (;;) {
      while (close + 4 <= end) {
        const word = view.getInt32(close, true);
        if ((hasZeroByte(word ^ 0x22222222) | hasZeroByte(word ^ 0x5c5c5c5c) | (word & highBits)) !== 0) break;
        close += 4;
      }
      if (close >= end) throw FALLBACK;
      const c = line[close];
      if (c === QUOTE) break;
      if (c === BACKSLASH) throw FALLBACK;
      if (c >= 0x80) {
        ascii = false;
        highBits = 0;
      }
      close++;
    }
    if (!ascii) this.checkUtf8(open + 1, close);
    this.at = close + 1;
    const next = this.peek();
    if (next === AT) {
      this.languageTagged(key, open, close);
    } else if (next === CARET) {
      if (line[this.at + 1] !== CARET || line[this.at + 2] !== LT) throw FALLBACK;
      const iriStart = this.at + 2;
      const iriClose = this.iriEnd(iriStart);
      this.at = iriClose + 1;
      // rdf:langString and rdf:dirLangString as datatypes are errors: the string parser words them.
      if (this.isLanguageDatatype(iriStart + 1, iriClose)) throw FALLBACK;
      if (this.isXsdString(iriStart + 1, iriClose)) {
        key.slice(line, this.lineView, open, close);
      } else {
        // ^datatype"lexical
        key.build();
        key.push(CARET);
        key.append(line, iriStart + 1, iriClose);
        key.append(line, open, close);
      }
    } else {
      key.slice(line, this.lineView, open, close);
    }
  }

  /**
   * @tag"lexical, the tag lower-cased; the tag must match /^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/
   * (a base direction, `--ltr`, is the reader's).
   */
  private languageTagged(key: KeyBuffer, open: number, close: number): void {
    const line = this.line;
    const tagStart = this.at + 1;
    let tagEnd = tagStart;
    while (tagEnd < this.end && isLetter(line[tagEnd])) tagEnd++;
    if (tagEnd === tagStart || tagEnd - tagStart > MAX_SUBTAG) throw FALLBACK;
    while (tagEnd < this.end && line[tagEnd] === DASH) {
      const partStart = ++tagEnd;
      while (tagEnd < this.end && (isLetter(line[tagEnd]) || (line[tagEnd] >= 0x30 && line[tagEnd] <= 0x39))) tagEnd++;
      if (tagEnd === partStart || tagEnd - partStart > MAX_SUBTAG) throw FALLBACK;
    }
    key.build();
    key.push(AT);
    for (let i = tagStart; i < tagEnd; i++) {
      const c = line[i];
      key.push(c >= 0x41 && c <= 0x5a ? c + 32 : c);
    }
    key.append(line, open, close);
    this.at = tagEnd;
  }

  private isXsdString(start: number, end: number): boolean {
    return this.isBytes(start, end, XSD_STRING);
  }

  private isLanguageDatatype(start: number, end: number): boolean {
    return this.isBytes(start, end, RDF_LANG_STRING) || this.isBytes(start, end, RDF_DIR_LANG_STRING);
  }

  private isBytes(start: number, end: number, bytes: Buffer): boolean {
    if (end - start !== bytes.length) return false;
    for (let i = 0; i < bytes.length; i++) if (this.line[start + i] !== bytes[i]) return false;
    return true;
  }

  /** Invalid UTF-8 is the string parser's (its decoder turns it into U+FFFD). */
  private checkUtf8(start: number, end: number): void {
    if (!isUtf8(this.line.subarray(start, end))) throw FALLBACK;
  }

  private skipSpace(): void {
    const line = this.line;
    let at = this.at;
    while (at < this.end) {
      const c = line[at];
      if (c !== SPACE && c !== TAB && c !== CR) break;
      at++;
    }
    this.at = at;
  }

  private peek(): number {
    return this.at < this.end ? this.line[this.at] : -1;
  }
}

/** Whether one of the four bytes of the word is zero (exact for "any"; which one may be misreported). */
function hasZeroByte(word: number): number {
  return (word - 0x01010101) & ~word & 0x80808080;
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** A non-ASCII character of PN_CHARS_BASE (N-Triples' grammar). */
function isLabelStart(code: number): boolean {
  return (
    (code >= 0xc0 && code <= 0xd6) ||
    (code >= 0xd8 && code <= 0xf6) ||
    (code >= 0xf8 && code <= 0x2ff) ||
    (code >= 0x370 && code <= 0x37d) ||
    (code >= 0x37f && code <= 0x1fff) ||
    (code >= 0x200c && code <= 0x200d) ||
    (code >= 0x2070 && code <= 0x218f) ||
    (code >= 0x2c00 && code <= 0x2fef) ||
    (code >= 0x3001 && code <= 0xd7ff) ||
    (code >= 0xf900 && code <= 0xfdcf) ||
    (code >= 0xfdf0 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0xeffff)
  );
}

/** An ASCII character of a blank node label: a letter, a digit, `_`, `:`, `-` or `.`. */
function isLabelByte(c: number): boolean {
  return isLetter(c) || (c >= 0x30 && c <= 0x39) || c === UNDERSCORE || c === COLON || c === DASH || c === DOT;
}
