/**
 * Runs query mixes against a SPARQL 1.1 Protocol endpoint with N concurrent clients, the way the
 * BSBM test driver does: each client takes the next whole mix from a shared queue and runs its
 * queries one after another. Every answer is read completely and counted (rows for SELECT, distinct
 * triples for CONSTRUCT/DESCRIBE), so an engine cannot look fast by answering wrongly or lazily.
 *
 * The answers are kept as bytes and counted once the timed run is over: parsing, sorting and hashing
 * them took the driver 2.1 ms per mix, time in which a lone client sent nothing, so it was counted
 * against every engine alike and made them all look closer to each other than they are
 * (bench/RESULTS-LOG.md, eighth session).
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { QueryProtocol } from './engines/engine.js';
import type { QueryInstance, QueryMix } from './query-mixes.js';

export interface QuerySample {
  mix: number;
  seq: number;
  query: string;
  client: number;
  /** From sending the request to the last byte of the answer, milliseconds. */
  ms: number;
  /** Rows (SELECT), 1/0 (ASK), distinct triples (CONSTRUCT/DESCRIBE); undefined on error. */
  rows?: number;
  /** Hash of the answer's sorted rows, to compare contents where the answer is deterministic. */
  digest?: string;
  error?: string;
}

export interface DriverRun {
  clients: number;
  mixes: number;
  wallSeconds: number;
  samples: QuerySample[];
}

export interface DriverOptions {
  endpoint: string;
  clients: number;
  timeoutMs: number;
  /** 'post': body application/sparql-query; 'get': ?query= in the URL. */
  method?: 'post' | 'get';
  /** The engine's needs beyond the plain protocol (form encoding, default graph, pragma). */
  protocol?: QueryProtocol;
}

/** Runs every mix once, spread over `clients` concurrent clients; returns one sample per query. */
export async function runMixes(mixes: QueryMix[], options: DriverOptions): Promise<DriverRun> {
  const agent = new Agent({ keepAlive: !options.protocol?.freshConnections, maxSockets: options.clients });
  const samples: QuerySample[] = [];
  let next = 0;
  const client = async (id: number): Promise<void> => {
    while (next < mixes.length) {
      const mix = mixes[next++];
      for (const instance of mix.queries) samples.push(await runQuery(mix.mix, instance, id, agent, options));
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i + 1)));
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return { clients: options.clients, mixes: mixes.length, wallSeconds, samples: samples.map(counted) };
}

/** A sample whose answer is still to be counted: its bytes, read to the end within the timed run. */
interface TimedSample extends QuerySample {
  answer?: { form: QueryInstance['form']; body: Buffer };
}

async function runQuery(mix: number, instance: QueryInstance, client: number, agent: Agent, options: DriverOptions): Promise<TimedSample> {
  const base = { mix, seq: instance.seq, query: instance.query, client };
  const started = process.hrtime.bigint();
  try {
    const body = await send(instance, agent, options);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { ...base, ms, answer: { form: instance.form, body } };
  } catch (error) {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { ...base, ms, error: (error as Error).message };
  }
}

function counted({ answer, ...sample }: TimedSample): QuerySample {
  if (!answer) return sample;
  try {
    return { ...sample, ...countAnswer(answer.form, answer.body.toString('utf8')) };
  } catch (error) {
    return { ...sample, error: (error as Error).message };
  }
}

const ACCEPT: Record<QueryInstance['form'], string> = {
  select: 'application/sparql-results+json',
  ask: 'application/sparql-results+json',
  construct: 'application/n-triples',
  describe: 'application/n-triples',
};

/** Sends one query and reads its answer to the end (an HTTP status other than 200 rejects). */
export function send(instance: Pick<QueryInstance, 'form' | 'text'>, agent: Agent, options: DriverOptions): Promise<Buffer> {
  const url = new URL(options.endpoint);
  const protocol = options.protocol ?? {};
  for (const [name, value] of Object.entries(protocol.params ?? {})) url.searchParams.set(name, value);
  const text = (protocol.prologue ? protocol.prologue + '\n' : '') + instance.text;
  const get = options.method === 'get';
  const form = protocol.encoding === 'form';
  if (get) url.searchParams.set('query', text);
  const body = get ? undefined : Buffer.from(form ? new URLSearchParams({ query: text }).toString() : text, 'utf8');
  const headers: Record<string, string | number> = { accept: ACCEPT[instance.form] };
  if (body) {
    headers['content-type'] = form ? 'application/x-www-form-urlencoded' : 'application/sparql-query';
    headers['content-length'] = body.length;
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method: get ? 'GET' : 'POST', agent, headers, timeout: options.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('response aborted')));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${body.toString('utf8', 0, 300)}`));
        else resolve(body);
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

interface JsonResults {
  boolean?: boolean;
  results?: { bindings: Record<string, { type: string; value: string; 'xml:lang'?: string; datatype?: string }>[] };
}

/** Counts the answer, and hashes it order-independently for the content comparison. */
export function countAnswer(form: QueryInstance['form'], body: string): { rows: number; digest: string } {
  if (form === 'construct' || form === 'describe') {
    const triples = [
      ...new Set(
        body
          .split('\n')
          .map(canonicalTriple)
          .filter((l) => l.length > 0 && !l.startsWith('#')),
      ),
    ];
    return { rows: triples.length, digest: digestOf(triples) };
  }
  const json = JSON.parse(body) as JsonResults;
  if (typeof json.boolean === 'boolean') return { rows: json.boolean ? 1 : 0, digest: String(json.boolean) };
  if (!json.results || !Array.isArray(json.results.bindings)) throw new Error('not SPARQL JSON results');
  const rows = json.results.bindings.map(rowKey);
  return { rows: rows.length, digest: digestOf(rows) };
}

/**
 * One N-Triples line with single spaces between its terms: engines differ in the separator (Virtuoso
 * writes tabs), and a raw tab or run of spaces can only be a separator (inside literals they are escaped
 * or kept within the quotes, which this leaves alone).
 */
export function canonicalTriple(line: string): string {
  let out = '';
  let inLiteral = false;
  let pendingSpace = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inLiteral) {
      out += c;
      if (c === '\\') out += line[++i] ?? '';
      else if (c === '"') inLiteral = false;
      continue;
    }
    if (c === ' ' || c === '\t') {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    out += c;
    if (c === '"') inLiteral = true;
  }
  return out;
}

/** Canonical text of one solution: variables sorted; literal datatype xsd:string left implicit. */
function rowKey(row: Record<string, { type: string; value: string; 'xml:lang'?: string; datatype?: string }>): string {
  return Object.keys(row)
    .sort()
    .map((name) => {
      const t = row[name];
      const type = t.type === 'typed-literal' ? 'literal' : t.type;
      const lang = t['xml:lang'] ? '@' + t['xml:lang'].toLowerCase() : '';
      const datatype = t.datatype && t.datatype !== 'http://www.w3.org/2001/XMLSchema#string' ? '^^' + t.datatype : '';
      return `${name}=${type}:${t.value}${lang}${datatype}`;
    })
    .join('\t');
}

function digestOf(items: string[]): string {
  const hash = createHash('sha1');
  for (const item of [...items].sort()) hash.update(item).update('\n');
  return hash.digest('hex').slice(0, 16);
}
