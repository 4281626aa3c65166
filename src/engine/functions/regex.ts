/**
 * XPath regular expressions (the dialect of REGEX and REPLACE) translated to JS regular
 * expressions with the 'u' flag, and cached: a FILTER usually applies one pattern to every row.
 */
import { ExpressionError } from './function-context.js';

const CACHE_LIMIT = 1000;
const cache = new Map<string, RegExp>();

/** Compiles a pattern with XPath flags (i, s, m, x, q); `global` for REPLACE. */
export function compileRegex(pattern: string, flags: string, global = false): RegExp {
  const key = `${global ? 'g' : ''}${flags}\u0000${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = buildRegex(pattern, flags, global);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, re);
  }
  return re;
}

function buildRegex(pattern: string, flags: string, global: boolean): RegExp {
  let jsFlags = global ? 'gu' : 'u';
  let literal = false;
  let extended = false;
  for (const flag of flags) {
    switch (flag) {
      case 'i':
      case 's':
      case 'm':
        if (!jsFlags.includes(flag)) jsFlags += flag;
        break;
      case 'x':
        extended = true;
        break;
      case 'q':
        literal = true;
        break;
      default:
        throw new ExpressionError(`unknown regular expression flag ${JSON.stringify(flag)}`);
    }
  }
  const source = literal ? escapeRegex(pattern) : translate(extended ? stripWhitespace(pattern) : pattern);
  try {
    return new RegExp(source, jsFlags);
  } catch (e) {
    throw new ExpressionError(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** The 'x' flag removes whitespace, except inside character classes. */
function stripWhitespace(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    if (!inClass && (c === ' ' || c === '\t' || c === '\n' || c === '\r')) continue;
    out += c;
  }
  return out;
}

/** XPath escapes whose meaning differs from JS's, outside and inside a character class. */
const ESCAPES: Record<string, [string, string]> = {
  // XPath \d, \w and \s are Unicode-aware and defined differently from JS's ASCII ones.
  d: ['\\p{Nd}', '\\p{Nd}'],
  D: ['\\P{Nd}', '\\P{Nd}'],
  w: ['[\\p{L}\\p{M}\\p{N}\\p{S}]', '\\p{L}\\p{M}\\p{N}\\p{S}'],
  W: ['[\\p{P}\\p{Z}\\p{C}]', '\\p{P}\\p{Z}\\p{C}'],
  s: ['[\\x20\\t\\n\\r]', '\\x20\\t\\n\\r'],
  S: ['[^\\x20\\t\\n\\r]', '\\S'],
  // XML name characters, approximated by their Unicode categories.
  i: ['[\\p{L}_:]', '\\p{L}_:'],
  I: ['[^\\p{L}_:]', '\\P{L}'],
  c: ['[\\p{L}\\p{Nd}\\p{Mn}\\p{Mc}._:\\-\\u00B7]', '\\p{L}\\p{Nd}\\p{Mn}\\p{Mc}._:\\-\\u00B7'],
  C: ['[^\\p{L}\\p{Nd}\\p{Mn}\\p{Mc}._:\\-\\u00B7]', '\\P{L}'],
  '-': ['\\x2D', '\\-'],
};

function translate(pattern: string): string {
  let out = '';
  let classDepth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw new ExpressionError('regular expression ends with a backslash');
      const mapped = ESCAPES[next];
      out += mapped ? mapped[classDepth > 0 ? 1 : 0] : c + next;
      i++;
      continue;
    }
    if (c === '[') {
      if (classDepth > 0 && pattern[i - 1] === '-') {
        throw new ExpressionError('character class subtraction is not supported');
      }
      classDepth++;
    } else if (c === ']' && classDepth > 0) {
      classDepth--;
    }
    out += c;
  }
  return out;
}

/**
 * Applies an XPath replacement string: $N refers to group N (the longest digit run naming an
 * existing group), \$ and \\ are literal; any other $ or \ is an error. With the 'q' flag the
 * replacement is taken literally.
 */
export function replaceAll(input: string, re: RegExp, replacement: string, literal: boolean): string {
  re.lastIndex = 0;
  if (re.test('')) throw new ExpressionError('the pattern of REPLACE matches the empty string');
  re.lastIndex = 0;
  if (literal) return input.replace(re, () => replacement);
  const groupCount = countGroups(re);
  const parts = parseReplacement(replacement, groupCount);
  return input.replace(re, (...match: unknown[]) => {
    let out = '';
    for (const part of parts) {
      if (typeof part === 'string') out += part;
      else if (part <= groupCount) out += (match[part] as string | undefined) ?? '';
    }
    return out;
  });
}

function countGroups(re: RegExp): number {
  return new RegExp(`(?:${re.source})|`, 'u').exec('')!.length - 1;
}

function parseReplacement(replacement: string, groupCount: number): (string | number)[] {
  const parts: (string | number)[] = [];
  let text = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i];
    if (c === '\\') {
      const next = replacement[i + 1];
      if (next !== '\\' && next !== '$') throw new ExpressionError('invalid escape in a REPLACE replacement string');
      text += next;
      i++;
    } else if (c === '$') {
      let j = i + 1;
      if (!/\d/.test(replacement[j] ?? '')) throw new ExpressionError('"$" without a group number in a replacement');
      let group = Number(replacement[j]);
      j++;
      while (j < replacement.length && /\d/.test(replacement[j]) && group * 10 + Number(replacement[j]) <= groupCount) {
        group = group * 10 + Number(replacement[j]);
        j++;
      }
      if (text) parts.push(text);
      text = '';
      parts.push(group);
      i = j - 1;
    } else {
      text += c;
    }
  }
  if (text) parts.push(text);
  return parts;
}
