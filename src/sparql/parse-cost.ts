/**
 * What parsing a SPARQL text costs in memory, estimated from the text before the parser sees it.
 * The parser holds every token of the text at once (with its position), then a syntax tree, then
 * the algebra: about a kilobyte of heap per token, however short the token. A 9.5 MB VALUES of
 * short strings needs about 1 GB, and a text of single digits more than 400 times its length; a
 * memory budget has to see that cost before parsing starts, since parsing cannot be interrupted.
 *
 * Measured (scratch runs of parseQuery under --max-old-space-size, 1 MB texts, Node 20): the least
 * old space that parses VALUES of single digits is 375 MiB (500k tokens), of integers 135 MiB,
 * of short strings 63 MiB, of IRIs 39 MiB, of triple patterns 55 MiB, FILTER IN of IRIs 39 MiB. The
 * estimate below is at or above each of them.
 */

/** Heap per token of the text, and per character (the token's own text, copied along the way). */
export const PARSE_BYTES_PER_TOKEN = 1024;
export const PARSE_BYTES_PER_CHAR = 16;

/** The heap parsing `text` may take at its peak, in bytes. */
export function parseCostBytes(text: string): number {
  return countTokens(text) * PARSE_BYTES_PER_TOKEN + text.length * PARSE_BYTES_PER_CHAR;
}

/** 1 for the characters that are a token on their own: brackets and separators. */
const SINGLE_CHARACTER_TOKEN = new Uint8Array(128);
for (const c of '{}()[],;') SINGLE_CHARACTER_TOKEN[c.charCodeAt(0)] = 1;

/**
 * Tokens, roughly: runs of characters between white space and punctuation. Words inside a string
 * literal count apart, so a literal with spaces counts more than the parser's one token: the
 * estimate errs on the side of caution.
 */
export function countTokens(text: string): number {
  let tokens = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 32) inWord = false;
    else if (code < 128 && SINGLE_CHARACTER_TOKEN[code] === 1) {
      tokens++;
      inWord = false;
    } else if (!inWord) {
      tokens++;
      inWord = true;
    }
  }
  return tokens;
}
