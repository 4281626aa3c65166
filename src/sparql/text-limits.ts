/**
 * Limits on the shape of SPARQL text, checked before the parser sees it. The parser (Chevrotain
 * rules, one call per grammar level) and the algebra translation recurse on nesting, and the
 * lexer's regular expressions backtrack once per character of a literal: past some depth or length
 * they run out of stack and V8 answers "Maximum call stack size exceeded", which tells the client
 * nothing. Here the same requests get a 400 that names the limit they broke.
 *
 * The scan follows the lexer just enough to know what is a bracket: it skips comments, string
 * literals (short and long, with escapes) and IRIs, whose lengths it measures. Anything it cannot
 * classify it leaves to the parser, which reports it properly.
 */
import { SparqlSyntaxError } from '../errors.js';

/**
 * Brackets — `{` `(` `[` of any kind, nested in each other — open at once. A parenthesised
 * expression costs the most stack: about 90 levels exhaust the main thread's stack on their own
 * when the parser's code is not yet optimised (query workers have four times the stack, but remote
 * mode parses on the main thread). 64 leaves room for the frames below the parser and is far beyond
 * what written or generated queries use.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Characters of one literal or IRI in the text. The lexer's pattern for a long ("""…""") literal
 * exhausts V8's backtracking stack at about 1.1 million characters. Larger values are loaded as
 * RDF documents (the Graph Store Protocol, `quiver load`), whose parsers have no such limit.
 */
export const MAX_TERM_LENGTH = 1024 * 1024;

/** Throws a SparqlSyntaxError (400) when the text nests deeper or holds a longer term than the limits. */
export function checkTextLimits(text: string): void {
  const scanner = new LimitScanner(text);
  scanner.scan();
}

/** The message when the parser ran out of stack all the same: a long chain of operators, say. */
export function nestingTooDeepError(): SparqlSyntaxError {
  return new SparqlSyntaxError(
    `the request is nested or chained too deeply to parse (maximum call stack size exceeded); nesting depth is limited to ${MAX_NESTING_DEPTH}`,
  );
}

export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && error.message === 'Maximum call stack size exceeded';
}

const [OPEN_BRACE, OPEN_PAREN, OPEN_BRACKET, CLOSE_BRACE, CLOSE_PAREN, CLOSE_BRACKET] = [...'{([})]'].map((c) => c.charCodeAt(0));
const [HASH, DOUBLE_QUOTE, SINGLE_QUOTE, LESS_THAN] = [...'#"\'<'].map((c) => c.charCodeAt(0));
/** What may not appear inside an IRIREF (SPARQL 1.1 grammar, rule 139), so `<` is then an operator. */
// eslint-disable-next-line no-control-regex -- control characters end an IRIREF, as the grammar says
const IRI_REF = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;

class LimitScanner {
  private at = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  scan(): void {
    const { text } = this;
    while (this.at < text.length) {
      switch (text.charCodeAt(this.at)) {
        case OPEN_BRACE:
        case OPEN_PAREN:
        case OPEN_BRACKET:
          this.open();
          break;
        case CLOSE_BRACE:
        case CLOSE_PAREN:
        case CLOSE_BRACKET:
          this.depth = Math.max(0, this.depth - 1);
          break;
        case HASH:
          this.skipComment();
          continue;
        case DOUBLE_QUOTE:
        case SINGLE_QUOTE:
          this.skipString(text[this.at]!);
          continue;
        case LESS_THAN:
          this.skipIri();
          continue;
      }
      this.at++;
    }
  }

  private open(): void {
    this.depth++;
    if (this.depth > MAX_NESTING_DEPTH) {
      const { line, column } = positionOf(this.text, this.at);
      throw new SparqlSyntaxError(
        `brackets nested more than ${MAX_NESTING_DEPTH} deep; the nesting depth of a request is limited to ${MAX_NESTING_DEPTH}`,
        line,
        column,
      );
    }
  }

  private skipComment(): void {
    const end = this.text.indexOf('\n', this.at);
    this.at = end < 0 ? this.text.length : end;
  }

  /** From an opening quote to just after the closing one (a short string also ends at a line break: the parser reports it). */
  private skipString(quote: string): void {
    const { text } = this;
    const start = this.at;
    const delimiter = text.startsWith(quote.repeat(3), start) ? quote.repeat(3) : quote;
    let at = start + delimiter.length;
    while (at < text.length) {
      const char = text[at];
      if (char === '\\') at += 2;
      else if (char === quote && text.startsWith(delimiter, at)) {
        at += delimiter.length;
        break;
      } else if (delimiter.length === 1 && (char === '\n' || char === '\r')) break;
      else at++;
    }
    this.checkTerm('a literal', start, Math.min(at, text.length) - start);
    this.at = at;
  }

  private skipIri(): void {
    IRI_REF.lastIndex = this.at;
    const match = IRI_REF.exec(this.text);
    if (match === null) {
      this.at++; // the less-than operator
      return;
    }
    this.checkTerm('an IRI', this.at, match[0].length);
    this.at += match[0].length;
  }

  private checkTerm(what: string, start: number, length: number): void {
    if (length <= MAX_TERM_LENGTH) return;
    const { line, column } = positionOf(this.text, start);
    throw new SparqlSyntaxError(
      `${what} of ${length} characters is longer than the term length limit of ${MAX_TERM_LENGTH}; load larger values as RDF (Graph Store Protocol or quiver load)`,
      line,
      column,
    );
  }
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
