/** Content-Type and Accept header parsing (RFC 9110), small enough to keep here. */
import { HttpError } from './http-error.js';

export interface MediaType {
  /** Lower-cased `type/subtype`, without parameters. */
  essence: string;
  params: Record<string, string>;
}

export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const [head, ...rest] = header.split(';');
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    params[name] = value;
  }
  return { essence: head!.trim().toLowerCase(), params };
}

export const FORM_MEDIA_TYPES = ['application/x-www-form-urlencoded', 'application/x-www-url-form-urlencoded'];
export const SPARQL_QUERY_MEDIA_TYPE = 'application/sparql-query';
export const SPARQL_UPDATE_MEDIA_TYPE = 'application/sparql-update';

export function isForm(type: MediaType | undefined): boolean {
  return type !== undefined && FORM_MEDIA_TYPES.includes(type.essence);
}

export function assertUtf8Charset(type: MediaType | undefined): void {
  const charset = type?.params['charset']?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    // The protocol fixes UTF-8, so another declared charset is an unsupported media type.
    throw new HttpError(415, `request bodies must be UTF-8, not ${charset}`);
  }
}

export interface AcceptRange {
  type: string;
  subtype: string;
  q: number;
  /** 0 for * / *, 1 for type/*, 2 for type/subtype: the more specific range decides. */
  specificity: number;
}

/** The ranges of an Accept header; malformed entries are skipped, as browsers expect. */
export function parseAccept(header: string | undefined): AcceptRange[] {
  if (header === undefined || header.trim() === '') return [];
  const ranges: AcceptRange[] = [];
  for (const entry of header.split(',')) {
    const type = parseMediaType(entry);
    if (!type) continue;
    const slash = type.essence.indexOf('/');
    if (slash <= 0) continue;
    const main = type.essence.slice(0, slash);
    const sub = type.essence.slice(slash + 1);
    const q = type.params['q'] === undefined ? 1 : Number(type.params['q']);
    if (!Number.isFinite(q)) continue;
    const specificity = main === '*' ? 0 : sub === '*' ? 1 : 2;
    ranges.push({ type: main, subtype: sub, q: Math.min(1, Math.max(0, q)), specificity });
  }
  return ranges;
}

/** The q-value the ranges give a concrete media type: that of the most specific matching range. */
export function qualityOf(mediaType: string, ranges: AcceptRange[]): number {
  const [main, sub] = mediaType.split('/');
  let best: AcceptRange | undefined;
  for (const range of ranges) {
    const matches = range.specificity === 0 || (range.specificity === 1 && range.type === main) || (range.type === main && range.subtype === sub);
    if (matches && (!best || range.specificity > best.specificity)) best = range;
  }
  return best ? best.q : 0;
}
