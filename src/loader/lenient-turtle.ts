/**
 * `--lenient` for Turtle and TriG. N3.js stops at the first error and cannot resume, so the text is
 * first cut into top-level statements (a subject with its predicate-object lists up to its '.', a
 * directive, or a whole TriG graph block `{ ... }`) by a small lexer that knows strings, IRIs,
 * comments and brackets. Statements are parsed in groups, each group by a fresh N3 parser given
 * the directives seen so far; a group with an error is parsed again statement by statement, and
 * only the statements that fail are skipped (one skip each).
 *
 * Limits: a TriG graph block is one statement, so an error inside it skips the whole block; an
 * unterminated long string ("""...) runs to the end of the file, which is then one bad statement.
 * Short strings and IRIs cannot span lines, so a line break ends them (and marks the statement bad).
 */
import { Parser } from 'n3';
import { invalidIriInQuad } from '../rdf/index.js';
import { factory, type Quad } from '../rdf/index.js';

/** Statements parsed together while no error shows up. */
const GROUP_CHARS = 1 << 18;

export interface LenientTurtleSink {
  quad(quad: Quad): void;
  /** A statement that was skipped, with the reason and its first line. */
  skipped(message: string, line: number): void;
}

interface Statement {
  text: string;
  /** Line of the statement's first character, from 1. */
  line: number;
}

const enum State {
  Normal,
  Iri,
  Short,
  Long,
  Comment,
}

/** Cuts Turtle or TriG text, fed in arbitrary chunks, into top-level statements. */
export class TurtleStatementSplitter {
  private buffer = '';
  private scanned = 0;
  private state = State.Normal;
  private quote = '';
  private depth = 0;
  private line = 1;
  private statementLine = 1;
  /** Index in buffer of the current statement's first character, or -1 before it starts. */
  private statementStart = -1;
  /** The current statement is a SPARQL-style PREFIX or BASE, which ends with its IRI. */
  private sparqlDirective = false;

  /** Adds text; returns the statements it completed. */
  push(text: string): Statement[] {
    this.buffer += text;
    const done: Statement[] = [];
    const buffer = this.buffer;
    let i = this.scanned;
    scan: for (; i < buffer.length; i++) {
      const c = buffer[i]!;
      if (c === '\n') this.line++;
      switch (this.state) {
        case State.Comment:
          if (c === '\n') this.state = State.Normal;
          continue;
        case State.Iri:
          if (c === '>' || c === '\n') this.state = State.Normal;
          if (c === '>' && this.sparqlDirective) this.cut(done, i + 1);
          continue;
        case State.Short:
          if (c === '\\') i++;
          else if (c === this.quote || c === '\n') this.state = State.Normal;
          continue;
        case State.Long:
          if (c === '\\') i++;
          else if (c === this.quote && i + 2 >= buffer.length) {
            // The closing quotes may be cut off: scan this one again with more text.
            break scan;
          } else if (c === this.quote && buffer.startsWith(this.quote.repeat(3), i)) {
            i += 2;
            this.state = State.Normal;
          }
          continue;
        case State.Normal:
          break;
      }
      if (c === '#') {
        this.state = State.Comment;
        continue;
      }
      if (this.statementStart < 0) {
        if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
        // Wait for more text when the start of a PREFIX or BASE keyword may be cut off.
        if (i + 6 >= buffer.length) break scan;
        this.statementStart = i;
        this.statementLine = this.line;
        this.sparqlDirective = /^(prefix|base)\s/i.test(buffer.slice(i, i + 7));
      }
      if (c === '<') this.state = State.Iri;
      else if (c === '"' || c === "'") {
        // Wait for more text when a quote at the end might open a long string.
        if (i + 2 >= buffer.length) break scan;
        this.quote = c;
        if (buffer[i + 1] === c && buffer[i + 2] === c) {
          this.state = State.Long;
          i += 2;
        } else this.state = State.Short;
      } else if (c === '[' || c === '(' || c === '{') this.depth++;
      else if (c === ']' || c === ')') this.depth = Math.max(0, this.depth - 1);
      else if (c === '}') {
        this.depth = Math.max(0, this.depth - 1);
        if (this.depth === 0) this.cut(done, i + 1);
      } else if (c === '.' && this.depth === 0) {
        // A terminator, not a decimal point or a dot inside a name: whitespace or the end follows.
        if (i + 1 >= buffer.length) break scan;
        const next = buffer[i + 1]!;
        if (/\s/.test(next) || next === '#') this.cut(done, i + 1);
      }
    }
    // Keep only the unfinished statement (and the text not scanned yet).
    const keepFrom = this.statementStart >= 0 ? this.statementStart : i;
    this.buffer = buffer.slice(keepFrom);
    this.scanned = i - keepFrom;
    if (this.statementStart >= 0) this.statementStart = 0;
    return done;
  }

  /** The text left when the input ends (a last statement without its '.', or nothing). */
  end(): Statement[] {
    const started = this.statementStart >= 0;
    // Not started: the scan may have stopped short of a statement too short to tell its kind yet.
    const rest = started ? this.buffer.slice(this.statementStart) : this.buffer.slice(this.scanned);
    const line = started ? this.statementLine : this.line;
    this.buffer = '';
    this.statementStart = -1;
    return rest.trim() === '' ? [] : [{ text: rest.trimStart(), line }];
  }

  private cut(done: Statement[], end: number): void {
    if (this.statementStart >= 0) done.push({ text: this.buffer.slice(this.statementStart, end), line: this.statementLine });
    this.statementStart = -1;
    this.sparqlDirective = false;
  }
}

/** Parses statements leniently; see the file comment. */
export class LenientTurtleParser {
  /** Directives (@prefix, @base, PREFIX, BASE) so far, given to every parser before its text. */
  private preamble = '';
  private preambleLines = 0;
  private group: Statement[] = [];
  private groupChars = 0;

  constructor(
    private readonly format: 'Turtle' | 'TriG',
    private readonly baseIri: string | undefined,
    private readonly sink: LenientTurtleSink,
  ) {}

  add(statements: Statement[]): void {
    for (const statement of statements) {
      if (isDirective(statement.text)) {
        this.flush();
        if (this.parse([statement]) !== undefined) {
          this.preamble += statement.text.trim() + '\n';
          this.preambleLines++;
        }
        continue;
      }
      this.group.push(statement);
      this.groupChars += statement.text.length;
      if (this.groupChars >= GROUP_CHARS) this.flush();
    }
  }

  /** Parses the waiting statements. */
  flush(): void {
    const group = this.group;
    this.group = [];
    this.groupChars = 0;
    if (group.length === 0) return;
    const quads = this.parse(group, false);
    if (quads !== undefined) {
      for (const quad of quads) this.sink.quad(quad);
      return;
    }
    for (const statement of group) {
      const one = this.parse([statement]);
      if (one !== undefined) for (const quad of one) this.sink.quad(quad);
    }
  }

  /** The statements' quads, or undefined when they have an error (reported when `report`). */
  private parse(statements: Statement[], report = true): Quad[] | undefined {
    const parser = new Parser({ format: this.format, baseIRI: this.baseIri, factory, blankNodePrefix: 'L' });
    const text = this.preamble + statements.map((s) => s.text).join('\n');
    try {
      return withValidIris(parser.parse(text) as Quad[]);
    } catch (error) {
      if (report) {
        const statement = statements[0]!;
        const context = (error as { context?: { line?: number } }).context;
        const line =
          context?.line === undefined || statements.length > 1 ? statement.line : statement.line + Math.max(0, context.line - this.preambleLines - 1);
        this.sink.skipped(`${(error as Error).message.replace(/ on line \d+\.?$/, '')} (line ${line})`, line);
      }
      return undefined;
    }
  }
}

/** A statement with an invalid IRI (RFC 3987) is an error like any other: skipped, with its line. */
function withValidIris(quads: Quad[]): Quad[] {
  for (const quad of quads) {
    const invalid = invalidIriInQuad(quad);
    if (invalid !== undefined) throw new Error(invalid);
  }
  return quads;
}

function isDirective(text: string): boolean {
  return /^\s*(@prefix|@base|prefix\s|base\s)/i.test(text);
}
