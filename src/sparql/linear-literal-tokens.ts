/**
 * Traqula's SPARQL 1.2 lexer reads long string literals ("""…""" and '''…''') with a pattern that
 * repeats a group of alternatives once per character. The regex engine keeps a backtrack entry per
 * repetition, so a long literal of a million characters (within our term length limit, text-limits.ts)
 * overflows its stack and the request is refused as "nested too deeply". These patterns match the same
 * text, taking each run of ordinary characters in one atomic step (a lookahead captures the run, the
 * back-reference consumes it), so the cost is linear and the stack flat.
 *
 * The lexer reads the patterns when the parser is built, so this must run before `new Parser()`.
 */
import { lex } from '@traqula/rules-sparql-1-2';

/** ECHAR or UCHAR: the escapes a SPARQL 1.2 string may hold. */
const ESCAPE = String.raw`\\(?:["'\\bfnrt]|u[\dA-Fa-f]{4}|U[\dA-Fa-f]{8})`;

/** A long literal between triple `quote`s: runs of other characters, escapes, or one or two quotes not closing it. */
function longLiteral(quote: '"' | "'"): RegExp {
  const q3 = quote.repeat(3);
  return new RegExp(String.raw`${q3}(?:(?=([^${quote}\\]+))\1|${ESCAPE}|${quote}(?!${quote}${quote}))*${q3}`);
}

interface PatternToken {
  PATTERN?: unknown;
}

export function useLinearLiteralTokens(): void {
  setPattern(lex.stringLiteralLong1, longLiteral("'"));
  setPattern(lex.stringLiteralLong2, longLiteral('"'));
}

function setPattern(token: PatternToken, pattern: RegExp): void {
  token.PATTERN = pattern;
}
