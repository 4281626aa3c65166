/**
 * Cross-site writes (issue 18, finding 7: writes had no Origin check, so any page a user visited
 * could write through the user's browser). Real `quiver serve` processes, one per way of limiting
 * writes, are sent seeded random write requests through every write path (updates by POST, form,
 * GET and HEAD, forms on {base}/sparql, Graph Store PUT, POST and DELETE) with random combinations
 * of Origin (own, allowed, foreign, `null`, look-alikes, odd spellings), Sec-Fetch-Site, Host,
 * X-Forwarded-Host and credentials (none, right, wrong; Basic or bearer).
 *
 * Each answer is checked against the rule of write-origin.ts, worked out here on its own: a write
 * a browser says comes from another site is refused (403) where writes are limited, before any
 * credentials are asked for; otherwise the credentials decide (401), and an accepted write takes
 * effect while a refused one changes nothing.
 *
 * CI: 3 server settings, 100 writes each. Full (QUIVER_FULL=1): 6 settings, 2,000 writes each
 * (QUIVER_CROSS_SITE_WRITES=N sets the writes). Replay: QUIVER_SEED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Random, seedFromEnv } from './prng.js';
import { FULL_RUN, runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { selectRows } from './sparql-client.js';

const WRITES = runSize('QUIVER_CROSS_SITE_WRITES', 100, 2000);
const CONCURRENCY = 4;
const GOOD = 'http://good.example';
const USER = 'editor';
const PASSWORD = 'secret';
const TOKEN = 'app-token';

/** A way of running the server, and what the rule needs to know of it. */
interface Setting {
  name: string;
  args: string[];
  /** Origins named by --cors-origins; ['*'] for any. */
  corsOrigins: string[];
  /** Which credentials writes need. */
  credentials: 'none' | 'basic' | 'bearer';
  trustProxy: boolean;
}

const ALL_SETTINGS: Setting[] = [
  { name: '--cors-origins naming one origin', args: ['--cors-origins', GOOD], corsOrigins: [GOOD], credentials: 'none', trustProxy: false },
  {
    name: 'Basic credentials and --cors-origins',
    args: ['--cors-origins', GOOD, '--update-user', USER, '--update-password', PASSWORD],
    corsOrigins: [GOOD],
    credentials: 'basic',
    trustProxy: false,
  },
  {
    name: 'Basic credentials, CORS for any origin',
    args: ['--update-user', USER, '--update-password', PASSWORD],
    corsOrigins: ['*'],
    credentials: 'basic',
    trustProxy: false,
  },
  { name: 'an update token, CORS for any origin', args: ['--update-token', TOKEN], corsOrigins: ['*'], credentials: 'bearer', trustProxy: false },
  {
    name: '--cors-origins behind a trusted proxy',
    args: ['--cors-origins', GOOD, '--trust-proxy'],
    corsOrigins: [GOOD],
    credentials: 'none',
    trustProxy: true,
  },
  { name: 'the defaults (writes open to all)', args: [], corsOrigins: ['*'], credentials: 'none', trustProxy: false },
];

/**
 * A server takes seconds to start on two busy cores: CI runs the three settings that between them
 * take every branch of the rule (named origins with and without credentials, Basic credentials with
 * CORS for any origin, a trusted proxy); the full run all six.
 */
const CI_SETTINGS = ['Basic credentials and --cors-origins', 'Basic credentials, CORS for any origin', '--cors-origins behind a trusted proxy'];
const SETTINGS = FULL_RUN ? ALL_SETTINGS : ALL_SETTINGS.filter((setting) => CI_SETTINGS.includes(setting.name));

/** One write, and how to see whether it took effect. */
interface WritePath {
  name: string;
  method: string;
  path: (value: string) => string;
  contentType?: string;
  body?: (value: string) => string;
  /** DELETE removes a graph a trusted write made first: its effect is that the graph is gone. */
  removes?: boolean;
}

const insert = (value: string): string => `INSERT DATA { GRAPH <urn:csw:${value}> { <urn:s> <urn:p> "${value}" } }`;
const form = (field: string, value: string): string => new URLSearchParams({ [field]: insert(value) }).toString();
const graphParam = (value: string): string => new URLSearchParams({ graph: `urn:csw:${value}` }).toString();
const FORM = 'application/x-www-form-urlencoded';

const WRITE_PATHS: WritePath[] = [
  { name: 'POST update', method: 'POST', path: () => '/sparql/update', contentType: 'application/sparql-update', body: insert },
  { name: 'form POST update', method: 'POST', path: () => '/sparql/update', contentType: FORM, body: (v) => form('update', v) },
  { name: 'form POST update, charset', method: 'POST', path: () => '/sparql/update', contentType: `${FORM}; charset=UTF-8`, body: (v) => form('update', v) },
  { name: 'GET update', method: 'GET', path: (v) => `/sparql/update?${form('update', v)}` },
  { name: 'GET update, name percent-encoded', method: 'GET', path: (v) => `/sparql/update?${form('update', v).replace(/^update=/, '%75pdate=')}` },
  { name: 'HEAD update', method: 'HEAD', path: (v) => `/sparql/update?${form('update', v)}` },
  { name: 'form POST update on {base}/sparql', method: 'POST', path: () => '/sparql', contentType: FORM, body: (v) => form('update', v) },
  { name: 'POST update on {base}/sparql', method: 'POST', path: () => '/sparql', contentType: 'application/sparql-update', body: insert },
  {
    name: 'graph store PUT',
    method: 'PUT',
    path: (v) => `/sparql/store?${graphParam(v)}`,
    contentType: 'text/turtle',
    body: (v) => `<urn:s> <urn:p> "${v}" .`,
  },
  {
    name: 'graph store POST',
    method: 'POST',
    path: (v) => `/sparql/store?${graphParam(v)}`,
    contentType: 'text/turtle',
    body: (v) => `<urn:s> <urn:p> "${v}" .`,
  },
  { name: 'graph store DELETE', method: 'DELETE', path: (v) => `/sparql/store?${graphParam(v)}`, removes: true },
];

interface Forgery {
  origin?: string;
  fetchSite?: string;
  host: string;
  forwardedHost?: string;
  authorization?: string;
}

/** The request headers an attacker (or an honest client) may send, at random. */
function forgery(random: Random, port: number): Forgery {
  const own = `127.0.0.1:${port}`;
  const origin = random.chance(0.15)
    ? undefined
    : random.pick([
        `http://${own}`,
        `HTTP://${own}`,
        `http://${own}/`,
        `http://localhost:${port}`,
        GOOD,
        'http://GOOD.example',
        `${GOOD}/`,
        'https://good.example',
        `${GOOD}:80`,
        'http://good.example.evil.example',
        'http://evil.example',
        'http://evil.example:7878',
        'null',
        `http://${own}.evil.example`,
        'http://127.0.0.1',
        `https://${own}`,
        '',
        'file://',
        '%%%',
      ]);
  const fetchSite = random.chance(0.3) ? undefined : random.pick(['same-origin', 'same-site', 'cross-site', 'none', 'CROSS-SITE', 'Same-Origin', 'bogus']);
  const host = random.pick([own, own, own, `localhost:${port}`, 'evil.example', 'good.example']);
  const forwardedHost = random.chance(0.7) ? undefined : random.pick(['evil.example', 'good.example', own, `proxy.example, evil.example`]);
  const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const authorization = random.pick([
    undefined,
    undefined,
    basic(USER, PASSWORD),
    basic(USER, 'wrong'),
    `Bearer ${TOKEN}`,
    'Bearer wrong',
    `basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
  ]);
  return { origin, fetchSite, host, forwardedHost, authorization };
}

/**
 * What the server must answer, by the rule of write-origin.ts and auth.ts: 403 for a write a
 * browser says is cross-site where writes are limited, then 401 for missing or wrong credentials,
 * else the write goes ahead.
 */
function expectedAnswer(setting: Setting, f: Forgery): 403 | 401 | 'accepted' {
  if (crossSite(setting, f)) return 403;
  if (setting.credentials !== 'none' && !credentialsAccepted(setting, f.authorization)) return 401;
  return 'accepted';
}

function crossSite(setting: Setting, f: Forgery): boolean {
  const limited = setting.credentials !== 'none' || !setting.corsOrigins.includes('*');
  if (!limited) return false;
  const basicSent = /^\s*basic\s/i.test(f.authorization ?? '');
  if (setting.corsOrigins.includes('*') && !basicSent) return false;
  const site = f.fetchSite?.toLowerCase();
  if (site === 'same-origin' || site === 'none') return false;
  if (f.origin !== undefined) return !namedOrigin(setting, f.origin) && !ownOrigin(setting, f);
  return site === 'cross-site' || site === 'same-site';
}

function namedOrigin(setting: Setting, origin: string): boolean {
  const normal = (text: string): string => text.trim().replace(/\/+$/, '').toLowerCase();
  return setting.corsOrigins.some((allowed) => allowed !== '*' && normal(allowed) === normal(origin));
}

/** Origin names the host the request was sent to (Host, or the last forwarded host behind a trusted proxy). */
function ownOrigin(setting: Setting, f: Forgery): boolean {
  const url = httpUrl(f.origin!);
  if (!url) return false;
  const hosts = [f.host];
  if (setting.trustProxy && f.forwardedHost !== undefined) hosts.push(f.forwardedHost.split(',').pop()!.trim());
  return hosts.some((host) => httpUrl(`${url.protocol}//${host}`)?.host === url.host);
}

function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function credentialsAccepted(setting: Setting, authorization: string | undefined): boolean {
  if (setting.credentials === 'bearer') return authorization === `Bearer ${TOKEN}`;
  return /^basic /i.test(authorization ?? '') && authorization!.slice(6) === Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
}

interface Answer {
  status: number;
  body: string;
  nosniff: boolean;
}

/** node:http rather than fetch: fetch does not let a client set Host. */
function send(origin: string, write: WritePath, value: string, f: Forgery): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  const headers: Record<string, string> = { host: f.host, accept: 'text/plain' };
  if (write.contentType) headers['content-type'] = write.contentType;
  if (f.origin !== undefined) headers['origin'] = f.origin;
  if (f.fetchSite !== undefined) headers['sec-fetch-site'] = f.fetchSite;
  if (f.forwardedHost !== undefined) headers['x-forwarded-host'] = f.forwardedHost;
  if (f.authorization !== undefined) headers['authorization'] = f.authorization;
  const body = write.body?.(value);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, method: write.method, path: write.path(value), headers, timeout: 30_000 }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: text, nosniff: response.headers['x-content-type-options'] === 'nosniff' }));
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 30 s')));
    request.on('error', reject);
    request.end(body);
  });
}

async function graphExists(server: ServerProcess, value: string): Promise<boolean> {
  const rows = await selectRows(server.origin, `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:csw:${value}> { ?s ?p ?o } }`);
  return Number(rows[0]?.['n']?.value) > 0;
}

/** A graph for a DELETE to remove, written by a client that is no browser, with the right credentials. */
async function plantGraph(server: ServerProcess, setting: Setting, value: string): Promise<void> {
  const authorization =
    setting.credentials === 'basic'
      ? `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
      : setting.credentials === 'bearer'
        ? `Bearer ${TOKEN}`
        : undefined;
  const answer = await send(server.origin, WRITE_PATHS[0], value, { host: new URL(server.origin).host, authorization });
  assert.equal(answer.status, 200, answer.body);
}

/** One random write against one server: what went wrong, or undefined. */
async function tryWrite(server: ServerProcess, setting: Setting, random: Random, value: string, counts: Map<string, number>): Promise<string | undefined> {
  const port = Number(new URL(server.origin).port);
  const write = random.pick(WRITE_PATHS);
  const f = forgery(random, port);
  const expected = expectedAnswer(setting, f);
  if (write.removes) await plantGraph(server, setting, value);
  const answer = await send(server.origin, write, value, f);
  const effect = write.removes ? !(await graphExists(server, value)) : await graphExists(server, value);
  const what = `${write.name} with ${JSON.stringify(f)}`;
  const kind = expected === 'accepted' ? 'accepted' : String(expected);
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
  if (expected === 'accepted') {
    if (answer.status >= 400) return `${what}: answered ${answer.status}, expected the write to go ahead: ${answer.body.slice(0, 300)}`;
    if (!effect) return `${what}: answered ${answer.status}, but the write did not take effect`;
    return undefined;
  }
  if (answer.status !== expected) return `${what}: answered ${answer.status}, expected ${expected}: ${answer.body.slice(0, 300)}`;
  if (effect) return `${what}: refused with ${answer.status}, but the write took effect`;
  if (!answer.nosniff) return `${what}: the ${answer.status} lacks X-Content-Type-Options: nosniff`;
  if (expected === 403 && write.method !== 'HEAD' && !/cross-site write refused/.test(answer.body))
    return `${what}: the 403 does not say why: ${answer.body.slice(0, 300)}`;
  return undefined;
}

test(
  `${WRITES} random writes per server setting: cross-site ones refused, the rest decided by credentials`,
  { timeout: timeLimit(180_000, 1_800_000) },
  async () => {
    const seed = seedFromEnv();
    console.log(`cross-site writes: seed ${seed} (replay with QUIVER_SEED=${seed}), ${WRITES} writes for each of ${SETTINGS.length} settings`);
    const failures: string[] = [];
    for (const setting of SETTINGS) {
      const random = new Random(seed, 'cross-site-writes', setting.name);
      const server = await startServerProcess(['--memory', '--workers', '1', ...setting.args]);
      const counts = new Map<string, number>();
      const started = Date.now();
      try {
        let next = 0;
        const worker = async (w: number): Promise<void> => {
          // Each worker its own stream, so that a replay draws the same requests whatever the interleaving.
          const own = new Random(seed, 'cross-site-writes', setting.name, w, random.int(0, 2 ** 31));
          for (let n = next++; n < WRITES; n = next++) {
            const problem = await tryWrite(server, setting, own, `${w}-${n}`, counts);
            if (problem) failures.push(`${setting.name}: ${problem}`);
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
      } finally {
        await server.stop('SIGTERM');
      }
      const summary = [...counts]
        .sort()
        .map(([kind, n]) => `${kind}: ${n}`)
        .join(', ');
      console.log(`cross-site writes: ${setting.name}: ${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    for (const failure of failures.slice(0, 10)) console.log(`cross-site writes failure: ${failure}`);
    assert.equal(failures.length, 0, `${failures.length} writes went wrong (seed ${seed}); first: ${failures[0]}`);
  },
);
