/**
 * The one IRI checker: RFC 3987 syntax, as SPARQL and the RDF syntaxes require of IRIs. Used on
 * IRI()/URI() results, on every IRI of a query or update text, and on every IRI of data loaded.
 *
 * What is checked: a scheme (letter, then letters, digits, `+`, `-`, `.`) and `:`; at most one `#`
 * (the fragment's); `%` always followed by two hexadecimal digits; `[` and `]` only around the host,
 * holding an IPv6 address or an IPvFuture (RFC 3986 3.2.2); a port of digits only; at most one `@`
 * in the authority; and none of the ASCII characters the grammars forbid (controls, space,
 * `<>"{}|\^` and backquote). Beyond ASCII, every character is accepted but an unpaired surrogate:
 * RFC 3987's ucschar ranges are narrower than what Turtle's and SPARQL's prefixed names may expand
 * to, and the grammars themselves accept every non-ASCII character in an IRI.
 *
 * Fast: ordinary IRIs pass one regular expression (ORDINARY_IRI); the others get one pass over
 * their characters with a table lookup each, and their authority a second look. Nothing is
 * allocated for a valid IRI.
 */
import type { Quad, Term } from './terms.js';
import type * as RDF from '@rdfjs/types';

/**
 * `invalid IRI <…>: why` for the first IRI of the quad (a datatype included) that is not valid, or
 * undefined. What every loader checks each quad with.
 */
export function invalidIriInQuad(quad: Quad | RDF.BaseQuad): string | undefined {
  return invalidIriIn(quad.subject) ?? invalidIriIn(quad.predicate) ?? invalidIriIn(quad.object) ?? invalidIriIn(quad.graph);
}

function invalidIriIn(term: Term): string | undefined {
  if (term.termType === 'Quad') return invalidIriInQuad(term);
  const iri = term.termType === 'NamedNode' ? term.value : term.termType === 'Literal' ? term.datatype.value : undefined;
  if (iri === undefined) return undefined;
  const reason = iriSyntaxError(iri);
  return reason === undefined ? undefined : `invalid IRI <${iri}>: ${reason}`;
}

/** Why `iri` is not an absolute IRI, or undefined when it is one. */
export function iriSyntaxError(iri: string): string | undefined {
  if (ORDINARY_IRI.test(iri)) return undefined;
  const colon = schemeEnd(iri);
  if (colon < 0) return 'it has no scheme (an absolute IRI starts with a scheme such as http: or urn:)';
  return restError(iri, colon + 1);
}

export function isAbsoluteIri(iri: string): boolean {
  return iriSyntaxError(iri) === undefined;
}

/**
 * Why `reference` is neither an absolute IRI nor a relative reference (to be resolved against a
 * base), or undefined. Resolution keeps the characters, `%` escapes and fragment of a reference, so
 * a valid reference against a valid base gives a valid IRI: texts can be checked before resolution.
 */
export function iriReferenceError(reference: string): string | undefined {
  const colon = schemeEnd(reference);
  if (colon >= 0) return restError(reference, colon + 1);
  const firstSegmentEnd = reference.search(/[/?#]|$/);
  if (reference.lastIndexOf(':', firstSegmentEnd - 1) >= 0) {
    return "its first segment has a ':' but what comes before is not a scheme";
  }
  return restError(reference, 0);
}

/**
 * The fast path: most IRIs are ASCII, with a host name and perhaps a port, no `%` escapes, no
 * brackets and no user: one regular expression (about three times as fast as the full check)
 * says they are fine. Everything else gets the full check. Without an authority the rest must not
 * start with `//`, which would be an authority this pattern did not check.
 */
const ORDINARY_IRI =
  /^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/[A-Za-z0-9.-]*(?::[0-9]*)?(?=[/?#]|$)|(?!\/\/))[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*(?:#[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*)?$/;

// The ASCII character classes; 0 (the table's default) is a character no IRI may hold.
const ALLOWED = 1;
const PERCENT = 2;
const HASH = 3;
const BRACKET = 4;

/** Unreserved, sub-delims, and the delimiters `: / ? @` an IRI may hold anywhere; the rest by class. */
const ASCII_CLASS = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:/?@") ASCII_CLASS[c.charCodeAt(0)] = ALLOWED;
ASCII_CLASS[0x25] = PERCENT;
ASCII_CLASS[0x23] = HASH;
ASCII_CLASS[0x5b] = BRACKET;
ASCII_CLASS[0x5d] = BRACKET;

/** The index of the scheme's `:`, or -1 when the text does not start with a scheme. */
function schemeEnd(text: string): number {
  const first = text.charCodeAt(0);
  if (!isLetter(first)) return -1;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) return i;
    if (!(isLetter(c) || isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e)) return -1;
  }
  return -1;
}

/** Checks everything after the scheme (or all of a relative reference) from `start`. */
function restError(iri: string, start: number): string | undefined {
  let brackets = 0;
  let hash = -1;
  for (let i = start; i < iri.length; i++) {
    const c = iri.charCodeAt(i);
    if (c >= 0x80) {
      if (c < 0xd800 || c > 0xdfff) continue;
      // A surrogate pair is one character beyond the BMP; a lone surrogate is no character at all.
      if (c <= 0xdbff && isLowSurrogate(iri.charCodeAt(i + 1))) {
        i++;
        continue;
      }
      return `it has an unpaired surrogate (U+${c.toString(16).toUpperCase()}) at character ${i + 1}`;
    }
    switch (ASCII_CLASS[c]) {
      case ALLOWED:
        continue;
      case PERCENT:
        if (!isHexDigit(iri.charCodeAt(i + 1)) || !isHexDigit(iri.charCodeAt(i + 2))) {
          return `its '%' at character ${i + 1} is not followed by two hexadecimal digits`;
        }
        i += 2;
        continue;
      case HASH:
        if (hash >= 0) return `it has a second '#' at character ${i + 1} (only the fragment's may appear)`;
        hash = i;
        continue;
      case BRACKET:
        brackets++;
        continue;
      default:
        return `it has ${describeCharacter(c)} at character ${i + 1}, which no IRI may hold`;
    }
  }
  const hasAuthority = iri.charCodeAt(start) === 0x2f && iri.charCodeAt(start + 1) === 0x2f;
  if (!hasAuthority) return brackets === 0 ? undefined : "it has a '[' or ']' outside the host";
  return authorityError(iri, start + 2, brackets);
}

/** The authority from `start`: `[userinfo@]host[:port]`, the host possibly `[IP literal]`. */
function authorityError(iri: string, start: number, brackets: number): string | undefined {
  let end = start;
  while (end < iri.length) {
    const c = iri.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23) break;
    end++;
  }
  const at = iri.lastIndexOf('@', end - 1);
  const hostStart = at >= start ? at + 1 : start;
  if (at >= start && iri.lastIndexOf('@', at - 1) >= start) return "its authority has more than one '@'";
  let portColon: number;
  let bracketsInHost = 0;
  if (iri.charCodeAt(hostStart) === 0x5b) {
    const close = iri.indexOf(']', hostStart);
    if (close < 0 || close >= end) return "its host starts with '[' but has no ']'";
    const literal = iri.slice(hostStart + 1, close);
    if (!isIpv6Address(literal) && !IP_FUTURE.test(literal)) return `its host [${literal}] is neither an IPv6 address nor an IPvFuture`;
    bracketsInHost = 2;
    portColon = close + 1 < end ? close + 1 : -1;
    if (portColon >= 0 && iri.charCodeAt(portColon) !== 0x3a) return "its host's ']' is followed by something other than ':' and a port";
  } else {
    portColon = iri.indexOf(':', hostStart);
    if (portColon >= end) portColon = -1;
  }
  if (brackets !== bracketsInHost) return "it has a '[' or ']' outside the host";
  if (portColon >= 0) {
    for (let i = portColon + 1; i < end; i++) {
      if (!isDigit(iri.charCodeAt(i))) return `its port '${iri.slice(portColon + 1, end)}' is not a number`;
    }
  }
  return undefined;
}

const IP_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;
const H16 = '[0-9A-Fa-f]{1,4}';
const IPV4 = String.raw`(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;

/** RFC 3986's IPv6address: eight groups, or fewer with one `::`, the last two possibly an IPv4 address. */
function isIpv6Address(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (part: string): number | undefined => {
    if (part === '') return 0;
    const pieces = part.split(':');
    let count = 0;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && IPV4_ONLY.test(piece)) count += 2;
      else if (H16_ONLY.test(piece)) count += 1;
      else return undefined;
    }
    return count;
  };
  const counts = halves.map(groups);
  if (counts.some((count) => count === undefined)) return false;
  // An IPv4 tail belongs only at the very end.
  if (halves.length === 2 && IPV4_ONLY.test(halves[0]!.split(':').pop()!) && halves[0] !== '') return false;
  const total = counts.reduce((sum, count) => sum! + count!, 0)!;
  return halves.length === 2 ? total <= 7 : total === 8;
}

const H16_ONLY = new RegExp(`^${H16}$`);
const IPV4_ONLY = new RegExp(`^${IPV4}$`);

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function describeCharacter(c: number): string {
  return c <= 0x20 || c === 0x7f ? `the control character U+${c.toString(16).toUpperCase().padStart(4, '0')}` : `'${String.fromCharCode(c)}'`;
}
