/**
 * String functions (SPARQL 1.1 section 17.4.3). They take "string literals" (simple literals,
 * xsd:string and language-tagged literals), count in Unicode code points, and keep the language
 * tag or datatype of their first argument where the spec says the result is "of the same kind".
 */
import { directionOf, type Direction, type Literal, type Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { compileRegex, replaceAll } from './regex.js';
import { toDouble } from './numeric.js';
import { xsd } from './xsd-types.js';
import { booleanLiteral, describe, integerLiteral, languageLiteral, numericArgument, sameKindLiteral, simpleLiteral } from './literal-values.js';

/** A simple literal, xsd:string or language-tagged literal. */
export function stringLiteralArgument(term: Term): Literal {
  if (term.termType === 'Literal' && (term.language !== '' || term.datatype.value === xsd.string)) return term;
  throw new ExpressionError(`not a string literal: ${describe(term)}`);
}

/** A simple literal or xsd:string (no language tag). */
export function simpleLiteralArgument(term: Term): string {
  if (term.termType === 'Literal' && term.language === '' && term.datatype.value === xsd.string) return term.value;
  throw new ExpressionError(`not a simple literal: ${describe(term)}`);
}

/**
 * The argument-compatibility rule (17.4.3.1.1): two strings without language tags, two with the
 * same tag (and, in SPARQL 1.2, the same base direction), or a tagged first argument with an
 * untagged second one.
 */
function compatibleArguments(a: Term, b: Term): [Literal, Literal] {
  const x = stringLiteralArgument(a);
  const y = stringLiteralArgument(b);
  if (y.language !== '' && (x.language.toLowerCase() !== y.language.toLowerCase() || directionOf(x) !== directionOf(y))) {
    throw new ExpressionError(`incompatible string arguments ${describe(a)} and ${describe(b)}`);
  }
  return [x, y];
}

const SURROGATE = /[\uD800-\uDFFF]/;

function codePointLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** XPath fn:substring over code points: positions p with round(start) <= p < round(start) + round(length). */
function substring(s: string, start: number, length: number | undefined): string {
  const from = Math.round(start);
  const to = length === undefined ? Infinity : from + Math.round(length);
  if (!(to > from)) return '';
  const chars = SURROGATE.test(s) ? Array.from(s) : undefined;
  const count = chars ? chars.length : s.length;
  const first = Math.max(from, 1);
  const end = Math.min(to, count + 1);
  if (first >= end) return '';
  return chars ? chars.slice(first - 1, end - 1).join('') : s.slice(first - 1, end - 1);
}

function encodeForUri(s: string): string {
  try {
    return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  } catch {
    throw new ExpressionError('ENCODE_FOR_URI of a string with an unpaired surrogate');
  }
}

function langMatches(tag: string, range: string): boolean {
  if (range === '*') return tag !== '';
  const t = tag.toLowerCase();
  const r = range.toLowerCase();
  return t === r || (r !== '' && t.startsWith(r) && t[r.length] === '-');
}

/** The result keeps a language tag (and base direction) only when every argument has the same one. */
function concat(args: Term[]): Literal {
  let value = '';
  let language: string | undefined;
  let direction: Direction | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = stringLiteralArgument(args[i]);
    value += arg.value;
    if (i === 0) {
      language = arg.language;
      direction = directionOf(arg);
    } else if (language !== arg.language || direction !== directionOf(arg)) {
      language = '';
    }
  }
  return language ? languageLiteral(value, language, direction) : simpleLiteral(value);
}

function strBefore(a: Term, b: Term): Literal {
  const [x, y] = compatibleArguments(a, b);
  const at = x.value.indexOf(y.value);
  return at < 0 ? simpleLiteral('') : sameKindLiteral(x.value.slice(0, at), x);
}

function strAfter(a: Term, b: Term): Literal {
  const [x, y] = compatibleArguments(a, b);
  const at = x.value.indexOf(y.value);
  return at < 0 ? simpleLiteral('') : sameKindLiteral(x.value.slice(at + y.value.length), x);
}

function regex(text: Term, pattern: Term, flags?: Term): Literal {
  const input = stringLiteralArgument(text).value;
  const re = compileRegex(simpleLiteralArgument(pattern), flags ? simpleLiteralArgument(flags) : '');
  return booleanLiteral(re.test(input));
}

function replace(arg: Term, pattern: Term, replacement: Term, flags?: Term): Literal {
  const input = stringLiteralArgument(arg);
  const flagText = flags ? simpleLiteralArgument(flags) : '';
  const re = compileRegex(simpleLiteralArgument(pattern), flagText, true);
  const result = replaceAll(input.value, re, simpleLiteralArgument(replacement), flagText.includes('q'));
  return sameKindLiteral(result, input);
}

export const stringFunctions: Record<string, (args: Term[]) => Term> = {
  strlen: ([a]) => integerLiteral(codePointLength(stringLiteralArgument(a).value)),
  substr: ([a, start, length]) => {
    const s = stringLiteralArgument(a);
    const from = toDouble(numericArgument(start));
    const len = length === undefined ? undefined : toDouble(numericArgument(length));
    return sameKindLiteral(substring(s.value, from, len), s);
  },
  ucase: ([a]) => {
    const s = stringLiteralArgument(a);
    return sameKindLiteral(s.value.toUpperCase(), s);
  },
  lcase: ([a]) => {
    const s = stringLiteralArgument(a);
    return sameKindLiteral(s.value.toLowerCase(), s);
  },
  strstarts: ([a, b]) => {
    const [x, y] = compatibleArguments(a, b);
    return booleanLiteral(x.value.startsWith(y.value));
  },
  strends: ([a, b]) => {
    const [x, y] = compatibleArguments(a, b);
    return booleanLiteral(x.value.endsWith(y.value));
  },
  contains: ([a, b]) => {
    const [x, y] = compatibleArguments(a, b);
    return booleanLiteral(x.value.includes(y.value));
  },
  strbefore: ([a, b]) => strBefore(a, b),
  strafter: ([a, b]) => strAfter(a, b),
  encode_for_uri: ([a]) => simpleLiteral(encodeForUri(stringLiteralArgument(a).value)),
  concat,
  langmatches: ([tag, range]) => booleanLiteral(langMatches(simpleLiteralArgument(tag), simpleLiteralArgument(range))),
  regex: ([text, pattern, flags]) => regex(text, pattern, flags),
  replace: ([arg, pattern, replacement, flags]) => replace(arg, pattern, replacement, flags),
};
