/**
 * The serve flags of what the server fetches on a request's behalf (LOAD documents, SERVICE
 * answers): whether SERVICE runs at all, which targets are open beyond the public internet, and
 * how many bytes and how much time a request's fetches may take, and which IRIs are fetched from
 * another URL (net/outbound-http.ts).
 */
import { TargetPolicy } from '../net/index.js';
import { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_FETCH_BYTES, type FetchSettings } from '../net/index.js';
import { byteSize, positiveNumber, stringOption, UsageError, type OptionSpec, type ParsedOptions } from './options.js';

export const FETCH_OPTIONS: OptionSpec[] = [
  { name: 'no-service', type: 'boolean', description: 'refuse SPARQL SERVICE (400), SILENT or not (default: off, SERVICE queries other endpoints)' },
  {
    name: 'fetch-allow',
    type: 'string',
    value: 'LIST',
    description:
      'comma-separated targets LOAD and SERVICE may reach beyond the public internet: host names (*.corp.example for subdomains), addresses, networks (10.0.0.0/8, fd00::/8), each with an optional :port ([::1]:8080); * for all (default: none, so no loopback, private, link-local or other special address)',
  },
  {
    name: 'fetch-alias',
    type: 'string',
    value: 'LIST',
    description:
      'comma-separated IRI=URL pairs: a SERVICE endpoint or LOAD document IRI, exactly as requests write it, fetched from the URL instead (a mirror, a local copy); --fetch-allow still applies to the URL (default: none)',
  },
  {
    name: 'max-fetch-bytes',
    type: 'string',
    value: 'BYTES',
    default: '64MiB',
    description: 'bytes one request may fetch through LOAD or SERVICE, all documents or answers together; past it the request fails',
  },
  {
    name: 'fetch-timeout',
    type: 'string',
    value: 'S',
    default: String(DEFAULT_FETCH_TIMEOUT_MS / 1000),
    description: 'time limit of one LOAD or SERVICE fetch, in seconds',
  },
];

export interface FetchOptionSettings {
  allowService: boolean;
  fetchSettings: FetchSettings;
}

export function fetchOptionSettings(values: ParsedOptions['values']): FetchOptionSettings {
  const allow = (stringOption(values, 'fetch-allow') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    new TargetPolicy(allow);
  } catch (error) {
    throw new UsageError(`--fetch-allow: ${(error as Error).message}`);
  }
  const aliases = fetchAliases(stringOption(values, 'fetch-alias') ?? '');
  const maxBytes = byteSize(values, 'max-fetch-bytes') ?? DEFAULT_MAX_FETCH_BYTES;
  if (maxBytes <= 0) throw new UsageError('--max-fetch-bytes must be more than 0');
  const timeoutS = positiveNumber(values, 'fetch-timeout') ?? DEFAULT_FETCH_TIMEOUT_MS / 1000;
  const fetchSettings: FetchSettings = { allow, maxBytes, timeoutMs: timeoutS * 1000 };
  if (Object.keys(aliases).length > 0) fetchSettings.aliases = aliases;
  return { allowService: values['no-service'] !== true, fetchSettings };
}

/** `IRI=URL,IRI=URL`: both absolute http(s) IRIs (an IRI holds no ',' unescaped that matters here). */
function fetchAliases(list: string): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const entry of list
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const [iri, url] = at < 0 ? [entry, ''] : [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
    if (!isHttpUrl(iri) || !isHttpUrl(url)) throw new UsageError(`--fetch-alias: '${entry}' is not IRI=URL with two absolute http(s) IRIs`);
    aliases[iri] = url;
  }
  return aliases;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
