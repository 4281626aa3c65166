/**
 * Traqula 1.3's lexer reads DELETE DATA, DELETE WHERE and INSERT DATA as single tokens, with a
 * regular expression that nests one repetition in another: `delete(((blank)+)|(#comment\n))+data`.
 * When DELETE or INSERT is followed by n blanks and then neither DATA nor WHERE (any DELETE { … } or
 * INSERT { … } written with a long indent, or a malformed request), the regex engine tries every way
 * of sharing the blanks between the two repetitions before it gives up: 2^n attempts, on the thread
 * that parses (24 spaces took 12 s, 28 more than 20 s). These patterns match the same text with one
 * repetition of disjoint choices, so a failed match costs one pass over the blanks.
 *
 * The lexer reads the patterns when the parser is built, so this must run before `new Parser()`.
 */
import { lex } from '@traqula/rules-sparql-1-1';

/** Blanks and comments between two keywords: each repetition takes one blank or one whole comment. */
const BLANKS = String.raw`(?:[\t\n\r ]|#[^\n]*\n)+`;

interface PatternToken {
  PATTERN?: unknown;
}

export function useLinearKeywordTokens(): void {
  setPattern(lex.deleteDataClause, new RegExp(`delete${BLANKS}data`, 'i'));
  setPattern(lex.deleteWhereClause, new RegExp(`delete${BLANKS}where`, 'i'));
  setPattern(lex.insertDataClause, new RegExp(`insert${BLANKS}data`, 'i'));
}

function setPattern(token: PatternToken, pattern: RegExp): void {
  token.PATTERN = pattern;
}
