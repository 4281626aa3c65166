/**
 * Turns a (mutated) query or update body into one HTTP request among the ways the protocol allows,
 * and some it does not: odd media types, odd Accept headers, form fields with raw bytes.
 */
import type { Random } from './prng.js';

export interface FuzzRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const ODD_MEDIA_TYPES = [
  'text/plain',
  'application/json',
  'application/sparql-update',
  'application/sparql-query',
  'application/sparql-query; charset=utf-16',
  'application/x-www-form-urlencoded; charset=latin1',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  'text/turtle',
  '',
  '*/*',
  ';;;',
  'application/sparql-query; q=0; x="unterminated',
  '\u00e9/\u00e9',
];

const ACCEPTS = [
  'application/sparql-results+json',
  'application/sparql-results+xml',
  'text/csv',
  'text/tab-separated-values',
  'text/turtle',
  'application/n-triples',
  'application/ld+json',
  'application/rdf+xml',
  'text/html',
  '*/*',
  'image/png',
  'text/*;q=0.1, application/*;q=0',
  ',,,;q=abc',
  '',
];

const OUTPUTS = ['json', 'xml', 'csv', 'tsv', 'html', 'turtle', 'nonsense', ''];

/** Percent-encodes raw bytes, so that a form field can carry invalid UTF-8. */
function percentEncode(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(c) ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

export function buildRequest(kind: 'query' | 'update', body: Buffer, random: Random): FuzzRequest {
  const field = kind === 'query' ? 'query' : random.chance(0.9) ? 'update' : 'query';
  const base = kind === 'query' ? random.pick(['/sparql', '/sparql', '/sparql/select']) : '/sparql/update';
  const headers: Record<string, string> = {};
  if (random.chance(0.6)) headers['accept'] = random.pick(ACCEPTS);
  const output = random.chance(0.1) ? `output=${encodeURIComponent(random.pick(OUTPUTS))}` : '';
  const style = random.int(0, 9);
  if (style <= 1 && body.length < 6000) {
    const query = [`${field}=${percentEncode(body)}`, output].filter(Boolean).join('&');
    return { method: 'GET', path: `${base}?${query}`, headers };
  }
  const path = output ? `${base}?${output}` : base;
  if (style <= 4) {
    headers['content-type'] = random.pick(['application/x-www-form-urlencoded', 'application/x-www-url-form-urlencoded']);
    const extra = random.chance(0.2)
      ? `&${random.pick(['default-graph-uri', 'named-graph-uri', 'using-graph-uri', 'timeout'])}=${percentEncode(body.subarray(0, 40))}`
      : '';
    return { method: 'POST', path, headers, body: Buffer.from(`${field}=${percentEncode(body)}${extra}`, 'latin1') };
  }
  if (style <= 8) headers['content-type'] = kind === 'query' ? 'application/sparql-query' : 'application/sparql-update';
  else headers['content-type'] = random.pick(ODD_MEDIA_TYPES);
  if (headers['content-type'] === '') delete headers['content-type'];
  return { method: 'POST', path, headers, body };
}

/** A short, printable description of a request for failure reports. */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body ? request.body.toString('utf8') : '';
  const shown = body.length > 600 ? `${body.slice(0, 300)} …[${body.length} chars]… ${body.slice(-200)}` : body;
  return `${request.method} ${request.path.length > 600 ? request.path.slice(0, 600) + '…' : request.path} ${JSON.stringify(request.headers)}\n${shown}`;
}
