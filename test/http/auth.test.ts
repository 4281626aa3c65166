/**
 * Write and read protection on a real listening server over a real store: every write path without,
 * with wrong and with right credentials; a refused write changes nothing; a 401 says how to
 * authenticate; a query token protects reads but not the HTML pages.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accessHooks, type AccessSettings } from '../../src/server/auth.js';
import { createLocalService } from '../../src/service/local-service.js';
import { encodeQuery, FORM, SPARQL_QUERY, SPARQL_UPDATE, startServer, type RunningServer } from './harness.js';

const EX = 'http://example.org/';
const TOKEN = 's3cret-update-token';
const QUERY_TOKEN = 'query-token-42';
const USER = 'editor';
const PASSWORD = 'pa:ss wörd';

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
});

/** A write, by path and method, that adds the triple ex:s ex:p `value` when it goes through. */
interface WritePath {
  name: string;
  send(server: RunningServer, value: string, headers: Record<string, string>): Promise<Response>;
}

const insert = (value: string): string => `INSERT DATA { <${EX}s> <${EX}p> "${value}" }`;

const WRITE_PATHS: WritePath[] = [
  {
    name: 'POST {base}/sparql with update=',
    send: (server, value, headers) =>
      fetch(server.url('/sparql'), { method: 'POST', headers: { 'content-type': FORM, ...headers }, body: encodeQuery({ update: insert(value) }) }),
  },
  {
    name: 'POST {base}/sparql with application/sparql-update',
    send: (server, value, headers) =>
      fetch(server.url('/sparql'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE, ...headers }, body: insert(value) }),
  },
  {
    name: 'GET {base}/sparql/update?update=',
    send: (server, value, headers) => fetch(server.url(`/sparql/update?${encodeQuery({ update: insert(value) })}`), { headers }),
  },
  {
    name: 'POST {base}/sparql/update with update=',
    send: (server, value, headers) =>
      fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': FORM, ...headers }, body: encodeQuery({ update: insert(value) }) }),
  },
  {
    name: 'POST {base}/sparql/update with application/sparql-update',
    send: (server, value, headers) =>
      fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE, ...headers }, body: insert(value) }),
  },
  {
    name: 'POST {base}/sparql/store?default',
    send: (server, value, headers) =>
      fetch(server.url('/sparql/store?default'), {
        method: 'POST',
        headers: { 'content-type': 'text/turtle', ...headers },
        body: `<${EX}s> <${EX}p> "${value}" .`,
      }),
  },
  {
    name: 'PUT {base}/sparql/store?graph=',
    send: (server, value, headers) =>
      fetch(server.url(`/sparql/store?${encodeQuery({ graph: `${EX}g-${value}` })}`), {
        method: 'PUT',
        headers: { 'content-type': 'text/turtle', ...headers },
        body: `<${EX}s> <${EX}p> "${value}" .`,
      }),
  },
];

async function startProtected(settings: AccessSettings): Promise<RunningServer> {
  return startServer(await createLocalService({ memory: true, workers: 1 }), accessHooks(settings));
}

/** Everything in the store, as sorted N-Triples-ish lines, read without credentials when allowed. */
async function contents(server: RunningServer, headers: Record<string, string> = {}): Promise<string[]> {
  const query = 'SELECT ?g ?s ?p ?o { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
  const response = await fetch(server.url('/sparql/select'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY, ...headers }, body: query });
  assert.equal(response.status, 200);
  const json = (await response.json()) as { results: { bindings: Record<string, { value: string }>[] } };
  return json.results.bindings.map((b) => [b['g']?.value ?? '', b['s']!.value, b['p']!.value, b['o']!.value].join(' ')).sort();
}

function assertChallenge(response: Response, scheme: 'Bearer' | 'Basic'): void {
  assert.equal(response.status, 401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  if (scheme === 'Bearer') assert.match(challenge, /Bearer realm="quiver"/);
  else assert.match(challenge, /Basic realm="quiver", charset="UTF-8"/);
}

describe('an update token', () => {
  let server: RunningServer;
  before(async () => (server = await startProtected({ updateToken: TOKEN })));
  after(async () => server.close());

  for (const path of WRITE_PATHS) {
    it(`protects ${path.name}`, async () => {
      const before = await contents(server);
      const none = await path.send(server, 'none', {});
      assertChallenge(none, 'Bearer');
      assert.match(await none.text(), /need credentials; none were sent/);
      const wrong = await path.send(server, 'wrong', bearer(TOKEN + 'x'));
      assertChallenge(wrong, 'Bearer');
      const wrongScheme = await path.send(server, 'wrong-scheme', basic('anyone', TOKEN));
      assertChallenge(wrongScheme, 'Bearer');
      assert.deepEqual(await contents(server), before, 'refused writes change nothing');

      const right = await path.send(server, 'right', bearer(TOKEN));
      assert.ok(right.status >= 200 && right.status < 300, `${right.status} ${await right.text()}`);
      assert.ok((await contents(server)).some((line) => line.endsWith(' right')));
      await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE, ...bearer(TOKEN) }, body: 'CLEAR ALL' });
    });
  }

  it('protects DELETE on the graph store', async () => {
    const graph = `/sparql/store?${encodeQuery({ graph: `${EX}kept` })}`;
    const put = await fetch(server.url(graph), {
      method: 'PUT',
      headers: { 'content-type': 'text/turtle', ...bearer(TOKEN) },
      body: `<${EX}a> <${EX}b> <${EX}c> .`,
    });
    assert.equal(put.status, 201);
    assertChallenge(await fetch(server.url(graph), { method: 'DELETE' }), 'Bearer');
    assertChallenge(await fetch(server.url(graph), { method: 'DELETE', headers: bearer('nope') }), 'Bearer');
    assert.equal((await contents(server)).length, 1);
    assert.equal((await fetch(server.url(graph), { method: 'DELETE', headers: bearer(TOKEN) })).status, 204);
    assert.deepEqual(await contents(server), []);
  });

  it('refuses before the body is looked at: a malformed update still gets 401, not 400', async () => {
    const response = await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: 'INSERT GARBAGE {' });
    assertChallenge(response, 'Bearer');
    const empty = await fetch(server.url('/sparql'), { method: 'POST', headers: { 'content-type': FORM }, body: 'update=' });
    assertChallenge(empty, 'Bearer');
  });

  it('leaves queries, the pages, the graph store reads and health open', async () => {
    assert.equal((await fetch(server.url(`/sparql/select?${encodeQuery({ query: 'ASK {}' })}`))).status, 200);
    assert.equal(
      (await fetch(server.url('/sparql'), { method: 'POST', headers: { 'content-type': FORM }, body: encodeQuery({ query: 'ASK {}' }) })).status,
      200,
    );
    assert.equal((await fetch(server.url('/sparql/update'), { headers: { accept: 'text/html' } })).status, 200, 'the update page');
    assert.equal((await fetch(server.url('/sparql/store?default'))).status, 200);
    assert.equal((await fetch(server.url('/health'))).status, 200);
  });

  it('answers CORS preflights of writes without credentials, and lets a page read the 401', async () => {
    const preflight = await fetch(server.url('/sparql/update'), {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(preflight.status, 204);
    const refused = await fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE, origin: 'https://app.example' },
      body: insert('x'),
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), '*');
    assert.match(refused.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
  });

  it('never echoes the credentials it was sent', async () => {
    const guess = 'guessed-token-value';
    const response = await fetch(server.url('/sparql/update?output=json'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE, ...bearer(guess) },
      body: insert('x'),
    });
    const body = await response.text();
    assert.equal(response.status, 401);
    assert.ok(!body.includes(guess) && !body.includes(TOKEN));
  });
});

describe('HTTP Basic credentials together with a bearer token', () => {
  let server: RunningServer;
  before(async () => (server = await startProtected({ updateToken: TOKEN, updateUser: USER, updatePassword: PASSWORD })));
  after(async () => server.close());

  it('accepts either, and challenges with both schemes', async () => {
    const path = WRITE_PATHS[4]!;
    const none = await path.send(server, 'none', {});
    assertChallenge(none, 'Bearer');
    assertChallenge(none, 'Basic');
    assertChallenge(await path.send(server, 'x', basic(USER, PASSWORD + '!')), 'Basic');
    assertChallenge(await path.send(server, 'x', basic('someone', PASSWORD)), 'Basic');
    assertChallenge(await path.send(server, 'x', bearer(PASSWORD)), 'Basic');
    assert.deepEqual(await contents(server), []);
    assert.equal((await path.send(server, 'basic', basic(USER, PASSWORD))).status, 200);
    assert.equal((await path.send(server, 'bearer', bearer(TOKEN))).status, 200);
    assert.equal((await contents(server)).length, 2);
  });
});

describe('HTTP Basic credentials alone', () => {
  let server: RunningServer;
  before(async () => (server = await startProtected({ updateUser: USER, updatePassword: PASSWORD })));
  after(async () => server.close());

  for (const path of WRITE_PATHS) {
    it(`protect ${path.name}`, async () => {
      const none = await path.send(server, 'none', {});
      assertChallenge(none, 'Basic');
      assert.doesNotMatch(none.headers.get('www-authenticate')!, /Bearer/);
      assertChallenge(await path.send(server, 'wrong', basic(USER, 'wrong')), 'Basic');
      assert.deepEqual(await contents(server), []);
      const right = await path.send(server, 'right', basic(USER, PASSWORD));
      assert.ok(right.status >= 200 && right.status < 300, String(right.status));
      await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE, ...basic(USER, PASSWORD) }, body: 'CLEAR ALL' });
    });
  }
});

describe('a query token', () => {
  let server: RunningServer;
  before(async () => (server = await startProtected({ queryToken: QUERY_TOKEN, updateToken: TOKEN })));
  after(async () => server.close());

  const ask = encodeQuery({ query: `ASK { <${EX}s> ?p ?o }` });
  const reads: [string, (headers: Record<string, string>) => Promise<Response>][] = [
    ['GET {base}/sparql/select?query=', (headers) => fetch(server.url(`/sparql/select?${ask}`), { headers })],
    [
      'POST {base}/sparql/select',
      (headers) => fetch(server.url('/sparql/select'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY, ...headers }, body: 'ASK {}' }),
    ],
    ['POST {base}/sparql with query=', (headers) => fetch(server.url('/sparql'), { method: 'POST', headers: { 'content-type': FORM, ...headers }, body: ask })],
    [
      'POST {base}/sparql with application/sparql-query',
      (headers) => fetch(server.url('/sparql'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY, ...headers }, body: 'ASK {}' }),
    ],
    ['GET {base}/sparql/store?default', (headers) => fetch(server.url('/sparql/store?default'), { headers })],
    ['the service description', (headers) => fetch(server.url('/sparql/select'), { headers: { accept: 'text/turtle', ...headers } })],
    ['GET {base}/metrics', (headers) => fetch(server.url('/metrics'), { headers })],
  ];

  for (const [name, read] of reads) {
    it(`protects ${name}`, async () => {
      assertChallenge(await read({}), 'Bearer');
      assertChallenge(await read(bearer('not-it')), 'Bearer');
      assert.equal((await read(bearer(QUERY_TOKEN))).status, 200);
      assert.equal((await read(bearer(TOKEN))).status, 200, 'who may write may read');
    });
  }

  it('does not let the query token write', async () => {
    assertChallenge(await WRITE_PATHS[1]!.send(server, 'x', bearer(QUERY_TOKEN)), 'Bearer');
    assert.deepEqual(await contents(server, bearer(QUERY_TOKEN)), []);
  });

  it('keeps the HTML pages and health reachable', async () => {
    const page = await fetch(server.url('/sparql/select'), { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form/);
    assert.equal((await fetch(server.url('/health'))).status, 200);
  });
});

describe('a query token alone', () => {
  let server: RunningServer;
  before(async () => (server = await startProtected({ queryToken: QUERY_TOKEN })));
  after(async () => server.close());

  it('also closes writes, which would otherwise be the only open door', async () => {
    assertChallenge(await WRITE_PATHS[1]!.send(server, 'x', {}), 'Bearer');
    assert.equal((await WRITE_PATHS[1]!.send(server, 'x', bearer(QUERY_TOKEN))).status, 200);
  });
});
