/**
 * Cross-site request forgery on a real server: where writes are limited (credentials, or CORS for
 * named origins), every write path refuses a request that a browser says comes from another site,
 * and changes nothing; the server's own pages, allowed origins and non-browser clients still write.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accessHooks } from '../../src/server/auth.js';
import type { ServerConfig } from '../../src/server/config.js';
import { encodeQuery, FORM, SPARQL_QUERY, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

const GOOD = 'http://good.example';
const EVIL = 'http://evil.example';
const USER = 'editor';
const PASSWORD = 'secret';
const BASIC = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };

const insert = (value: string): string => `INSERT DATA { <urn:s> <urn:p> "${value}" }`;

/** Every way to write, each adding "value" (to the default graph, or to a graph named after it). */
const WRITES: { name: string; send(server: RunningServer, value: string, headers: Record<string, string>): Promise<Response> }[] = [
  {
    name: 'a form POST to {base}/sparql/update',
    send: (s, v, h) => fetch(s.url('/sparql/update'), { method: 'POST', headers: { 'content-type': FORM, ...h }, body: encodeQuery({ update: insert(v) }) }),
  },
  {
    name: 'an application/sparql-update POST',
    send: (s, v, h) => fetch(s.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE, ...h }, body: insert(v) }),
  },
  { name: 'a GET update', send: (s, v, h) => fetch(s.url(`/sparql/update?${encodeQuery({ update: insert(v) })}`), { headers: h }) },
  {
    name: 'a form POST to {base}/sparql',
    send: (s, v, h) => fetch(s.url('/sparql'), { method: 'POST', headers: { 'content-type': FORM, ...h }, body: encodeQuery({ update: insert(v) }) }),
  },
  {
    name: 'a graph store PUT',
    send: (s, v, h) =>
      fetch(s.url(`/sparql/store?${encodeQuery({ graph: `urn:${encodeURIComponent(v)}` })}`), {
        method: 'PUT',
        headers: { 'content-type': 'text/turtle', ...h },
        body: `<urn:s> <urn:p> "${v}" .`,
      }),
  },
  {
    name: 'a graph store POST',
    send: (s, v, h) =>
      fetch(s.url(`/sparql/store?${encodeQuery({ graph: `urn:${encodeURIComponent(v)}` })}`), {
        method: 'POST',
        headers: { 'content-type': 'text/turtle', ...h },
        body: `<urn:s> <urn:p> "${v}" .`,
      }),
  },
];

/** Whether the write of `value` took effect (in the default graph or in its own). */
async function written(server: RunningServer, value: string): Promise<boolean> {
  const query = `ASK { { <urn:s> <urn:p> "${value}" } UNION { GRAPH ?g { <urn:s> <urn:p> "${value}" } } }`;
  const response = await fetch(server.url('/sparql/select'), {
    method: 'POST',
    headers: { 'content-type': SPARQL_QUERY, accept: 'application/sparql-results+json', ...BASIC },
    body: query,
  });
  return ((await response.json()) as { boolean: boolean }).boolean;
}

let counter = 0;
const fresh = (label: string): string => `${label} ${++counter}`;

function describeServer(title: string, config: ServerConfig, credentials: Record<string, string>, cases: (server: () => RunningServer) => void): void {
  describe(title, () => {
    let server: RunningServer;
    before(async () => {
      server = await startLocalServer(config);
    });
    after(() => server.close());
    for (const write of WRITES) {
      it(`refuses ${write.name} from another site's page with 403, and it changes nothing`, async () => {
        const forged: Record<string, string>[] = [
          { origin: EVIL },
          { origin: 'null' },
          { origin: `${EVIL}:7878` },
          { 'sec-fetch-site': 'cross-site' },
          { 'sec-fetch-site': 'same-site' },
        ];
        for (const headers of forged) {
          const value = fresh('forged');
          const response = await write.send(server, value, { ...credentials, ...headers });
          const body = await response.text();
          assert.equal(response.status, 403, `${JSON.stringify(headers)}: ${body}`);
          assert.match(body, /cross-site write refused/);
          assert.equal(await written(server, value), false, JSON.stringify(headers));
        }
      });

      it(`accepts ${write.name} from its own pages, from an allowed origin, and from clients that are not browsers`, async () => {
        const own = server.origin;
        const genuine: Record<string, string>[] = [
          { origin: own, 'sec-fetch-site': 'same-origin' },
          { origin: own },
          { 'sec-fetch-site': 'same-origin' },
          { 'sec-fetch-site': 'none' },
          {},
        ];
        if (config.corsOrigins) genuine.push({ origin: GOOD }, { origin: GOOD, 'sec-fetch-site': 'cross-site' });
        for (const headers of genuine) {
          const value = fresh('accepted');
          const response = await write.send(server, value, { ...credentials, ...headers });
          assert.ok(response.status < 300, `${JSON.stringify(headers)}: ${response.status} ${await response.text()}`);
          assert.equal(await written(server, value), true, JSON.stringify(headers));
        }
      });
    }
    cases(() => server);
  });
}

describeServer('with --cors-origins naming the origins', { corsOrigins: [GOOD] }, {}, (server) => {
  it('refuses a graph store DELETE from another site, and the graph stays', async () => {
    const value = fresh('kept');
    await WRITES[4]!.send(server(), value, {});
    const target = server().url(`/sparql/store?${encodeQuery({ graph: `urn:${encodeURIComponent(value)}` })}`);
    const forged = await fetch(target, { method: 'DELETE', headers: { origin: EVIL } });
    assert.equal(forged.status, 403);
    assert.equal(await written(server(), value), true);
    const genuine = await fetch(target, { method: 'DELETE', headers: { origin: GOOD } });
    assert.ok(genuine.status < 300, String(genuine.status));
    assert.equal(await written(server(), value), false);
  });

  it('still answers queries from any origin: only writes are refused', async () => {
    const response = await fetch(server().url('/sparql/select'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY, origin: EVIL }, body: 'ASK {}' });
    assert.equal(response.status, 200);
  });
});

describeServer(
  'with HTTP Basic credentials, which browsers send by themselves (and CORS for any origin)',
  accessHooks({ updateUser: USER, updatePassword: PASSWORD }),
  BASIC,
  (server) => {
    it('leaves a cross-origin write without credentials to the credential check: 401', async () => {
      const response = await WRITES[0]!.send(server(), fresh('no credentials'), { origin: EVIL });
      assert.equal(response.status, 401);
    });
  },
);

describeServer(
  'with credentials and --cors-origins naming the origins',
  { corsOrigins: [GOOD], ...accessHooks({ updateUser: USER, updatePassword: PASSWORD }) },
  BASIC,
  (server) => {
    it('refuses the forged write before it asks for credentials: 403, not 401', async () => {
      const response = await WRITES[0]!.send(server(), fresh('no credentials'), { origin: EVIL });
      assert.equal(response.status, 403);
    });
  },
);

describe('with an update token and CORS for any origin', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer(accessHooks({ updateToken: 'app-token' }));
  });
  after(() => server.close());

  it("lets another origin's script that holds the token write: a browser never adds a bearer token by itself", async () => {
    const value = fresh('app');
    const response = await WRITES[1]!.send(server, value, { origin: EVIL, 'sec-fetch-site': 'cross-site', authorization: 'Bearer app-token' });
    assert.equal(response.status, 200);
    assert.equal(await written(server, value), true);
  });
});

describe('with writes open and CORS for any origin (the defaults)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server.close());

  it('lets any origin write, as anyone may anyway (name origins with --cors-origins to stop that)', async () => {
    const value = fresh('open');
    const response = await WRITES[0]!.send(server, value, { origin: EVIL });
    assert.equal(response.status, 200);
    assert.equal(await written(server, value), true);
  });
});
