/**
 * Queries that differ only in their constants share one parse. Clients (BSBM, applications with
 * query templates) send the same query shapes with different IRIs, strings and integers; parsing
 * costs far more than evaluating such a query. A light scan of the text replaces those constants by
 * numbered placeholders; the template is parsed once, and each query gets a copy of the template's
 * algebra with its own constants put back.
 *
 * Only constants whose token kind the placeholder keeps are replaced (absolute IRIs without dot
 * segments, short strings without escapes, unsigned integers outside LIMIT/OFFSET), never in the
 * prologue or as a datatype, so the template has the same grammar as the query. A template whose
 * placeholders do not all come back as terms of the algebra is not used (e.g. a GROUP_CONCAT
 * separator): such queries are parsed whole.
 */
import type { Algebra } from '@traqula/algebra-transformations-1-2';
import { isAbsoluteIri } from '../rdf/index.js';
import { factory, type Literal, type Term } from '../rdf/index.js';

const MARK = 'x-quiver-param';
const INTEGER_MARK = '97777777777';
const IRI_PREFIX = `urn:${MARK}:`;
const STRING_PREFIX = `${MARK}:`;

export interface Template {
  /** The query text with its constants replaced. */
  text: string;
  /** The constants, in placeholder order: an IRI, a string's content, or an integer's digits. */
  constants: string[];
}

/**
 * Texts longer than this have no template. Templates pay off for the short queries an application
 * sends again and again with other constants; a long text (a VALUES of thousands of rows) is a
 * one-off, whose scan would cost the main thread tens of milliseconds per 100 KB and whose template
 * and constants would be copies of the whole text, kept in caches.
 */
export const MAX_TEMPLATE_TEXT_LENGTH = 32 * 1024;

/** The last query scanned: the service asks for a query's shape just before the parser does. */
let lastScanned: { text: string; template: Template | undefined } | undefined;

/** The template of a query, or undefined when it has no replaceable constant, names our marks or is too long. */
export function templateOf(text: string): Template | undefined {
  if (text.length > MAX_TEMPLATE_TEXT_LENGTH) return undefined;
  if (lastScanned?.text === text) return lastScanned.template;
  const template = fromKnownLayout(text) ?? scanTemplate(text);
  lastScanned = { text, template };
  return template;
}

/** The template by a full scan of the text (templateOf tries the layouts of recent queries first). */
export function scanTemplate(text: string): Template | undefined {
  if (text.includes(MARK) || text.includes(INTEGER_MARK)) return undefined;
  const scan = new ConstantScan(text);
  scan.run();
  const template = scan.output();
  if (template === text) return undefined;
  rememberLayout(scan.layout(template));
  return { text: template, constants: scan.constants };
}

/**
 * Where a scanned query's constants and comments lie, and the template it gave. A later query
 * with the same text around its constants and comments (the next query of a client's template)
 * is matched against it piece by piece (native string comparisons) instead of scanned character
 * by character, and gets the very same template string (whose hash the parse cache then has).
 * Each region of the new text must be what the scan would have taken there: an IRI, string or
 * integer of the same kind that the scan would replace, or a comment; otherwise it is scanned.
 */
interface Layout {
  /** The text before the first region, between regions, and after the last. */
  pieces: string[];
  /** What each region is (REGION_*). */
  regions: number[];
  template: string;
}

const REGION_COMMENT = 0;
const REGION_IRI = 1;
const REGION_INTEGER = 2;
const REGION_STRING_DOUBLE = 3;
const REGION_STRING_SINGLE = 4;
/** Layouts kept, most recently matched first: a client's templates, and a few more. */
const MAX_LAYOUTS = 32;
const layouts: Layout[] = [];

function rememberLayout(layout: Layout): void {
  layouts.unshift(layout);
  if (layouts.length > MAX_LAYOUTS) layouts.pop();
}

function fromKnownLayout(text: string): Template | undefined {
  for (let i = 0; i < layouts.length; i++) {
    const layout = layouts[i];
    const constants = matchLayout(layout, text);
    if (constants === undefined) continue;
    if (i > 0) {
      layouts.splice(i, 1);
      layouts.unshift(layout);
    }
    return { text: layout.template, constants };
  }
  return undefined;
}

// The characters an IRIREF may hold (see IRIREF).
// eslint-disable-next-line no-control-regex
const IRIREF_CHARS = /^[^<>"{}|^`\\\u0000-\u0020]*$/;

/** The constants of a text laid out as `layout`, or undefined when it is not (or its regions are not what the scan would take). */
function matchLayout(layout: Layout, text: string): string[] | undefined {
  const { pieces, regions } = layout;
  const last = pieces[pieces.length - 1];
  // The text after the last region tells most layouts apart at once, wherever it starts.
  // (Comparisons by slice: V8's startsWith and endsWith compare character by character, ~2 ns a
  // character; string equality compares memory.)
  if (last.length > text.length || text.slice(text.length - last.length) !== last) return undefined;
  const constants: string[] = [];
  // A query often repeats a constant (BSBM Q2 its product, 15 times): checked once.
  let lastChecked: string | undefined;
  let pos = 0;
  for (let i = 0; i < regions.length; i++) {
    const piece = pieces[i];
    if (text.slice(pos, pos + piece.length) !== piece) return undefined;
    pos += piece.length;
    const region = regions[i];
    let end: number;
    if (region === REGION_COMMENT) {
      if (text.charCodeAt(pos) !== 35 /* # */) return undefined;
      end = text.indexOf('\n', pos);
      if (end < 0) end = text.length;
    } else if (region === REGION_IRI) {
      end = text.indexOf('>', pos);
      if (end < 0) return undefined;
    } else if (region === REGION_INTEGER) {
      end = pos;
      while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
      if (end === pos) return undefined;
    } else {
      end = text.indexOf(region === REGION_STRING_DOUBLE ? '"' : "'", pos);
      if (end < 0) return undefined;
    }
    const content = text.slice(pos, end);
    if (region === REGION_IRI && content === lastChecked) {
      constants.push(content);
      pos = end;
      continue;
    }
    if (content.includes(MARK) || content.includes(INTEGER_MARK)) return undefined;
    if (region === REGION_IRI) {
      if (!IRIREF_CHARS.test(content) || !isAbsoluteIri(content) || DOT_SEGMENT.test(content)) return undefined;
      lastChecked = content;
    } else if (region === REGION_STRING_DOUBLE || region === REGION_STRING_SINGLE) {
      // The scan replaces only strings without escapes on one line, and takes an empty string
      // followed by its quote for the start of a long string.
      if (content.includes('\\') || content.includes('\n')) return undefined;
      if (end === pos && pieces[i + 1].charAt(1) === text.charAt(end)) return undefined;
    }
    if (region !== REGION_COMMENT) constants.push(content);
    pos = end;
  }
  return pos + last.length === text.length ? constants : undefined;
}

function iriPlaceholder(n: number): string {
  return `${IRI_PREFIX}${n}`;
}

function stringPlaceholder(n: number): string {
  return `${STRING_PREFIX}${n}`;
}

function integerPlaceholder(n: number): string {
  return `${INTEGER_MARK}${String(n).padStart(4, '0')}`;
}

// The IRIREF token of the grammar: no space or control character (U+0000 to U+0020) inside.
// eslint-disable-next-line no-control-regex
const IRIREF = /<([^<>"{}|^`\\\u0000-\u0020]*)>/y;
const DOT_SEGMENT = /\/\.\.?(\/|$)/;
/** Characters of names, prefixed names, variables and keywords (as far as this scan cares). */
function isWordChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 58) ||
    code === 95 ||
    code === 45 ||
    code === 46 ||
    code === 37 ||
    code >= 0xb7
  );
}
/** isWordChar for ASCII, as a table (1: a word character). */
const WORD_CHARS = Uint8Array.from({ length: 128 }, (_, code) => (isWordChar(code) ? 1 : 0));
/** What an ASCII character starts, for the scan's dispatch. */
const OTHER = 0;
const WORD = 1;
const COMMENT = 2;
const IRI_START = 3;
const QUOTE = 4;
const DIGIT = 5;
const CHAR_KINDS = Uint8Array.from({ length: 128 }, (_, code) => {
  if (code === 35 /* # */) return COMMENT;
  if (code === 60 /* < */) return IRI_START;
  if (code === 34 /* " */ || code === 39 /* ' */) return QUOTE;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 63 /* ? */ || code === 36 /* $ */ || code === 64 /* @ */ || isWordChar(code)) return WORD;
  return OTHER;
});
/** First letters of the keywords the scan looks for: SELECT, CONSTRUCT, DESCRIBE, ASK, LIMIT, OFFSET (either case). */
const KEYWORD_INITIALS = Uint8Array.from({ length: 128 }, (_, code) => ('SCDALOscdalo'.includes(String.fromCharCode(code)) ? 1 : 0));
const QUERY_FORMS = new Set(['SELECT', 'CONSTRUCT', 'DESCRIBE', 'ASK']);
/** The longest keyword the scan looks for (CONSTRUCT); upper-casing never makes a word shorter. */
const MAX_KEYWORD_LENGTH = 9;
const BOUNDARY_BEFORE_NUMBER = new Set([' ', '\t', '\n', '\r', '(', ')', '{', '}', '[', ']', ',', ';', '=', '<', '>', '!', '*', '/', '|', '&']);

/** One pass over the text, token kinds only as far as needed to find the constants. */
class ConstantScan {
  readonly constants: string[] = [];
  private readonly parts: string[] = [];
  /** The text between regions (constants and comments), and what each region is. */
  private readonly pieces: string[] = [];
  private readonly regions: number[] = [];
  private copiedUpTo = 0;
  private pos = 0;
  private inBody = false;
  private afterSliceKeyword = false;

  constructor(private readonly text: string) {}

  run(): void {
    const text = this.text;
    const length = text.length;
    while (this.pos < length) {
      const code = text.charCodeAt(this.pos);
      const kind = code < 128 ? CHAR_KINDS[code] : code >= 0xb7 ? WORD : OTHER;
      if (kind === OTHER) this.pos++;
      else if (kind === WORD) this.word();
      else if (kind === COMMENT) this.skipComment();
      else if (kind === IRI_START) this.iri();
      else if (kind === QUOTE) this.string(text[this.pos]);
      else this.number();
    }
  }

  output(): string {
    return this.parts.join('') + this.text.slice(this.copiedUpTo);
  }

  layout(template: string): Layout {
    return { pieces: [...this.pieces, this.text.slice(this.copiedUpTo)], regions: this.regions, template };
  }

  private replace(start: number, end: number, placeholder: string, constant: string, region: number): void {
    const piece = this.text.slice(this.copiedUpTo, start);
    this.parts.push(piece, placeholder);
    this.pieces.push(piece);
    this.regions.push(region);
    this.copiedUpTo = end;
    this.constants.push(constant);
  }

  /** Comments are left out of the template: clients number or date their queries in them. */
  private skipComment(): void {
    const start = this.pos;
    const end = this.text.indexOf('\n', start);
    this.pos = end < 0 ? this.text.length : end;
    const piece = this.text.slice(this.copiedUpTo, start);
    this.parts.push(piece);
    this.pieces.push(piece);
    this.regions.push(REGION_COMMENT);
    this.copiedUpTo = this.pos;
  }

  private iri(): void {
    IRIREF.lastIndex = this.pos;
    const match = IRIREF.exec(this.text);
    if (!match) {
      this.pos++;
      return;
    }
    const start = this.pos;
    this.pos += match[0].length;
    const iri = match[1];
    const isDatatype = this.text.startsWith('^^', start - 2);
    // Only valid IRIs become constants: an invalid one stays in the text, for the parse to refuse.
    if (this.inBody && !isDatatype && isAbsoluteIri(iri) && !DOT_SEGMENT.test(iri)) {
      this.replace(start + 1, this.pos - 1, iriPlaceholder(this.constants.length), iri, REGION_IRI);
    }
  }

  private string(quote: string): void {
    const text = this.text;
    const start = this.pos;
    if (text.startsWith(quote.repeat(3), start)) {
      const end = text.indexOf(quote.repeat(3), start + 3);
      this.pos = end < 0 ? text.length : end + 3;
      return;
    }
    let i = start + 1;
    let escaped = false;
    while (i < text.length && text[i] !== quote && text[i] !== '\n') {
      if (text[i] === '\\') {
        escaped = true;
        i++;
      }
      i++;
    }
    this.pos = i + 1;
    if (i >= text.length || text[i] !== quote) return;
    if (this.inBody && !escaped) {
      this.replace(
        start + 1,
        i,
        stringPlaceholder(this.constants.length),
        text.slice(start + 1, i),
        quote === '"' ? REGION_STRING_DOUBLE : REGION_STRING_SINGLE,
      );
    }
  }

  private number(): void {
    const text = this.text;
    const start = this.pos;
    let i = start;
    while (i < text.length && text[i] >= '0' && text[i] <= '9') i++;
    this.pos = i;
    const next = text[i];
    const isDecimalOrDouble = next === 'e' || next === 'E' || (next === '.' && text[i + 1] >= '0' && text[i + 1] <= '9');
    if (isDecimalOrDouble) {
      // Skip the rest of the number: its digits must not be taken for an integer.
      i++;
      while (i < text.length && /[0-9eE+-.]/.test(text[i])) i++;
      this.pos = i;
      return;
    }
    const slice = this.afterSliceKeyword;
    this.afterSliceKeyword = false;
    if (!this.inBody || slice || !this.boundaryBefore(start)) return;
    this.replace(start, i, integerPlaceholder(this.constants.length), text.slice(start, i), REGION_INTEGER);
  }

  /** A number starts a token only after a delimiter (or a sign that itself follows one). */
  private boundaryBefore(start: number): boolean {
    let before = this.text[start - 1];
    if (before === '+' || before === '-') before = this.text[start - 2];
    return before === undefined || BOUNDARY_BEFORE_NUMBER.has(before);
  }

  private word(): void {
    const text = this.text;
    const length = text.length;
    const start = this.pos;
    let i = start + 1;
    for (; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code < 128 ? WORD_CHARS[code] === 0 : code < 0xb7) break;
    }
    this.pos = i;
    // Only the keywords this scan cares about are compared (and upper-cased): most words are
    // names and variables. Every such keyword starts with one of these letters; a word starting
    // outside ASCII is compared too, as upper-casing may turn its first letter into one of them.
    const first = text.charCodeAt(start);
    const word = i - start <= MAX_KEYWORD_LENGTH && (first >= 128 || KEYWORD_INITIALS[first] === 1) ? text.slice(start, i).toUpperCase() : '';
    if (QUERY_FORMS.has(word)) this.inBody = true;
    this.afterSliceKeyword = word === 'LIMIT' || word === 'OFFSET';
  }
}

/**
 * Checks a template's algebra: every placeholder must appear only as a whole term (an IRI, a
 * literal's value), or substitution could not restore the query. Returns whether the template is usable.
 */
export function placeholdersAreTerms(algebra: Algebra.Operation, count: number): boolean {
  const seen = new Set<number>();
  let stray = false;
  const visit = (node: unknown): void => {
    if (stray || node === null || typeof node !== 'object') {
      if (typeof node === 'string' && (node.includes(MARK) || node.includes(INTEGER_MARK))) stray = true;
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const term = node as Partial<Term> & Record<string, unknown>;
    // Plans made per template (engine/plan/prepared-plans.ts) put constants back only where a whole
    // term stands: a placeholder inside a triple term would be looked up as written.
    if (term.termType === 'Quad' && term['type'] === undefined) {
      const text = JSON.stringify(term);
      if (text.includes(MARK) || text.includes(INTEGER_MARK)) stray = true;
      return;
    }
    if (term.termType === 'NamedNode' || term.termType === 'Literal') {
      const n = placeholderNumber(term as Term);
      if (n !== undefined) seen.add(n);
      else if (term.value!.includes(MARK) || term.value!.includes(INTEGER_MARK)) stray = true;
      return;
    }
    for (const key of Object.keys(term)) visit(term[key]);
  };
  visit(algebra);
  return !stray && seen.size === count;
}

/** The algebra of the query: the template's, with the query's constants in place of the placeholders. */
export function withConstants<T>(node: T, constants: readonly string[]): T {
  if (node === null || typeof node !== 'object') return node;
  let substitution = substitutions.get(node);
  if (substitution === undefined) {
    substitution = compileSubstitution(node) ?? (() => node);
    substitutions.set(node, substitution);
  }
  return substitution(constants) as T;
}

/**
 * Rebuilds a template's algebra with a query's constants: copies exactly the nodes on the way to a
 * placeholder and shares the rest. Compiled once per template from a walk of its algebra, so each
 * query pays for the copies only (a walk of every node and key cost as much again).
 */
type Substitution = (constants: readonly string[]) => unknown;

/** Per template algebra (held by the template cache, so they go together). */
const substitutions = new WeakMap<object, Substitution>();

/** The substitution of a node, or undefined when nothing under it is a placeholder. */
function compileSubstitution(node: unknown): Substitution | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) return compileArray(node);
  const record = node as Record<string, unknown>;
  const termType = record.termType;
  if (termType === 'NamedNode' || termType === 'Literal') {
    const term = node as Term;
    const n = placeholderNumber(term);
    return n === undefined ? undefined : (constants) => substituteTerm(term, n, constants);
  }
  if (termType === 'Variable' || termType === 'BlankNode' || termType === 'DefaultGraph') return undefined;
  // A pattern (Quad) keeps its own class and extra fields (the algebra's type tag): only the terms change.
  const keys = termType === 'Quad' ? ['subject', 'predicate', 'object', 'graph'] : Object.keys(record);
  const fields: { key: string; substitution: Substitution }[] = [];
  for (const key of keys) {
    const substitution = compileSubstitution(record[key]);
    if (substitution) fields.push({ key, substitution });
  }
  if (fields.length === 0) return undefined;
  const prototype = Object.getPrototypeOf(record) as object | null;
  return (constants) => {
    const copy = Object.assign(Object.create(prototype) as Record<string, unknown>, record);
    for (const { key, substitution } of fields) copy[key] = substitution(constants);
    return copy;
  };
}

function compileArray(items: readonly unknown[]): Substitution | undefined {
  const slots: { index: number; substitution: Substitution }[] = [];
  items.forEach((item, index) => {
    const substitution = compileSubstitution(item);
    if (substitution) slots.push({ index, substitution });
  });
  if (slots.length === 0) return undefined;
  return (constants) => {
    const copy = items.slice();
    for (const { index, substitution } of slots) copy[index] = substitution(constants);
    return copy;
  };
}

/** The term a query puts where its template has the placeholder term `term` (number n). */
export function substituteTerm(term: Term, n: number, constants: readonly string[]): Term {
  if (term.termType === 'NamedNode') return factory.namedNode(constants[n]);
  const lit = term as Literal;
  const value = lit.value.startsWith(STRING_PREFIX) ? constants[n] : lit.value.replace(integerPlaceholder(n), constants[n]);
  if (!lit.language) return factory.literal(value, lit.datatype);
  // A directional language tag ("…"@ar--rtl) keeps its direction.
  return lit.direction ? factory.literal(value, { language: lit.language, direction: lit.direction }) : factory.literal(value, lit.language);
}

/** The number of the placeholder a template term is, or undefined for any other term. */
export function placeholderNumber(term: Term): number | undefined {
  const value = term.value;
  if (term.termType === 'NamedNode') return value.startsWith(IRI_PREFIX) ? Number(value.slice(IRI_PREFIX.length)) : undefined;
  if (term.termType !== 'Literal') return undefined;
  if (value.startsWith(STRING_PREFIX)) return Number(value.slice(STRING_PREFIX.length));
  const at = value.indexOf(INTEGER_MARK);
  if (at < 0 || at > 1) return undefined;
  const digits = value.slice(at + INTEGER_MARK.length);
  return /^\d{4}$/.test(digits) ? Number(digits) : undefined;
}
