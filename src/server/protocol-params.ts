/**
 * SPARQL Protocol parameters, gathered from the URL and from a form body. Parsed by hand rather than
 * by Fastify's query-string parser so that repeated parameters stay visible (a repeated `query` is
 * a 400) and so that percent-encoded bytes that are not UTF-8 are refused instead of silently
 * turned into U+FFFD.
 */
import { ProtocolError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 bytes; malformed input is a ProtocolError (400). */
export function decodeUtf8(bytes: Uint8Array, what = 'the request body'): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProtocolError(`${what} is not valid UTF-8`);
  }
}

/** Parameters by name, each with every value it was given, in order. */
export class ProtocolParams {
  private readonly values = new Map<string, string[]>();

  add(name: string, value: string): void {
    const list = this.values.get(name);
    if (list) list.push(value);
    else this.values.set(name, [value]);
  }

  addAll(other: ProtocolParams): void {
    for (const [name, list] of other.values) for (const value of list) this.add(name, value);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  all(name: string): string[] {
    return this.values.get(name) ?? [];
  }

  /** The one value of a parameter that may appear at most once; a second one is a 400. */
  single(name: string): string | undefined {
    const list = this.values.get(name);
    if (!list) return undefined;
    if (list.length > 1) {
      throw new ProtocolError(`the parameter '${name}' may appear only once, but it appears ${list.length} times`);
    }
    return list[0];
  }
}

/**
 * The parameters that name the result format. `output` is the contract's; `format` (Virtuoso's) and
 * `results` are what clients such as Python's SPARQLWrapper send beside it, all three at once.
 */
export const OUTPUT_PARAMETERS: readonly string[] = ['output', 'format', 'results'];

/**
 * Every value of the format parameters, in order. Several may ask for the same format (SPARQLWrapper
 * sends `output=tsv&output=text/tab-separated-values`); negotiation refuses values that disagree.
 * An empty value asks for nothing (SPARQLWrapper sends one where its Accept is any type; a form's blank choice).
 */
export function outputValues(params: ProtocolParams): string[] {
  return OUTPUT_PARAMETERS.flatMap((name) => params.all(name)).filter((value) => value.trim() !== '');
}

/** `explain=true` asks for the evaluation plan instead of the result; `false` or absent: a normal query. */
export function explainRequested(params: ProtocolParams): boolean {
  const value = params.single('explain');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ProtocolError(`the parameter 'explain' must be 'true' or 'false', not '${value}'`);
}

/** Parses `a=1&b=2+3&a=%C3%A9` (a URL query string or an urlencoded form body). */
export function parseUrlEncoded(text: string, what: string): ProtocolParams {
  const params = new ProtocolParams();
  if (text === '') return params;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    params.add(percentDecode(rawName, what), percentDecode(rawValue, what));
  }
  return params;
}

/** The query string of a raw request URL, without the '?', exactly as the client sent it. */
export function rawQueryString(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

function percentDecode(component: string, what: string): string {
  const plusAsSpace = component.replace(/\+/g, ' ');
  if (!plusAsSpace.includes('%')) return plusAsSpace;
  // The native decoder takes well-formed text (nearly every request) at a fraction of the cost;
  // what it refuses (a stray '%', escapes that are not UTF-8) is sorted out byte by byte below.
  try {
    const decoded = decodeURIComponent(plusAsSpace);
    // As the byte path (TextDecoder) does: a leading byte order mark is not part of the text.
    return decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  } catch {
    return percentDecodeBytes(plusAsSpace, what);
  }
}

function percentDecodeBytes(plusAsSpace: string, what: string): string {
  const bytes = new Uint8Array(Buffer.byteLength(plusAsSpace));
  let length = 0;
  for (let i = 0; i < plusAsSpace.length; i++) {
    const c = plusAsSpace.charCodeAt(i);
    if (c === 37 /* % */ && isHexPair(plusAsSpace, i + 1)) {
      bytes[length++] = parseInt(plusAsSpace.substr(i + 1, 2), 16);
      i += 2;
    } else {
      // Literal characters (including a stray '%') keep their UTF-8 encoding.
      const end = c >= 0xd800 && c <= 0xdbff ? i + 2 : i + 1;
      length += Buffer.from(plusAsSpace.slice(i, end)).copy(bytes, length);
      i = end - 1;
    }
  }
  return decodeUtf8(bytes.subarray(0, length), what);
}

function isHexPair(text: string, at: number): boolean {
  return at + 1 < text.length && isHex(text.charCodeAt(at)) && isHex(text.charCodeAt(at + 1));
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
