/**
 * Connections cannot be held open for free, and requests pipelined on one connection keep their
 * order when one of them writes: a real listening server, driven by raw sockets that send slowly,
 * send nothing, stop reading, or write several requests at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accessHooks } from '../../src/server/auth.js';
import { encodeQuery, FORM, SPARQL_QUERY, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';
import { RawConnection, rawRequest } from './raw-connection.js';
import { startServerProcess } from '../reliability/server-process.js';

const BODY_TIMEOUT_MS = 1_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
/** The deadline, plus Node's check interval (a quarter of it), plus slack for two shared cores. */
const CLOSED_BY_MS = BODY_TIMEOUT_MS * 3;

/** Requests whose body arrives slowly, one per front door (and the graph store). */
const SLOW_BODIES = [
  { door: 'the direct query path', method: 'POST', target: '/sparql/select', type: SPARQL_QUERY, body: 'ASK { ?s ?p ?o }' },
  { door: 'the Fastify query route', method: 'POST', target: '/sparql', type: FORM, body: encodeQuery({ query: 'ASK { ?s ?p ?o }' }) },
  { door: 'the update route', method: 'POST', target: '/sparql/update', type: SPARQL_UPDATE, body: 'INSERT DATA { <urn:s> <urn:p> <urn:o> }' },
  { door: 'the graph store', method: 'PUT', target: '/sparql/store?default', type: 'text/turtle', body: '<urn:s> <urn:p> <urn:o> .' },
];

describe('connection time limits', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer({ bodyTimeoutMs: BODY_TIMEOUT_MS, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS });
  });
  after(() => server.close());

  for (const { door, method, target, type, body } of SLOW_BODIES) {
    it(`cuts a body that trickles past the body timeout on ${door}: 408, then the connection closes`, async () => {
      const connection = await RawConnection.open(server.origin);
      // The whole head at once, then the body a byte every 100 ms, ten times too slow, padded.
      const padded = body + ' '.repeat(100);
      connection.write(rawRequest(method, target, { 'Content-Type': type, 'Content-Length': String(padded.length) }));
      const stop = connection.trickle(padded, 100);
      try {
        const after = await connection.closedWithin(CLOSED_BY_MS);
        assert.ok(after >= BODY_TIMEOUT_MS - 50, `closed after ${after} ms`);
        const [response] = await connection.responses(1, 0).catch(() => [undefined]);
        if (response) assert.equal(response.status, 408);
      } finally {
        stop();
        connection.close();
      }
    });
  }

  it('closes a connection that sends nothing, or only part of its headers, at the deadline', async () => {
    const silent = await RawConnection.open(server.origin);
    const halfHeaders = await RawConnection.open(server.origin);
    halfHeaders.write('POST /sparql/update HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await Promise.all([silent.closedWithin(CLOSED_BY_MS), halfHeaders.closedWithin(CLOSED_BY_MS)]);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const connection = await RawConnection.open(server.origin);
    connection.write(rawRequest('GET', '/health'));
    const [response] = await connection.responses(1);
    assert.equal(response!.status, 200);
    const after = await connection.closedWithin(KEEP_ALIVE_TIMEOUT_MS + CLOSED_BY_MS);
    assert.ok(after >= KEEP_ALIVE_TIMEOUT_MS - 50, `closed after ${after} ms`);
  });

  it('does not cut an answer that takes longer than the body timeout to read', async () => {
    // About 10 MB of results: more than the socket buffers hold, so the answer cannot finish while
    // the client does not read.
    const values = Array.from({ length: 300 }, (_, i) => `"value number ${i} of a long list"`).join(' ');
    const query = `SELECT * WHERE { VALUES ?a { ${values} } VALUES ?b { ${values} } }`;
    const connection = await RawConnection.open(server.origin);
    connection.socket.pause();
    connection.write(rawRequest('POST', '/sparql/select', { 'Content-Type': SPARQL_QUERY, Accept: 'application/sparql-results+json' }, query));
    await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS * 2.5));
    connection.socket.resume();
    const [response] = await connection.responses(1, 30_000);
    assert.equal(response!.status, 200);
    const results = JSON.parse(response!.body) as { results: { bindings: unknown[] } };
    assert.equal(results.results.bindings.length, 300 * 300);
    connection.close();
  });
});

describe('quiver serve --body-timeout', () => {
  it('cuts a body that trickles past it, in the real server process', async () => {
    const server = await startServerProcess(['--memory', '--body-timeout', '1', '--workers', '1']);
    try {
      const connection = await RawConnection.open(server.origin);
      connection.write(rawRequest('POST', '/sparql/update', { 'Content-Type': SPARQL_UPDATE, 'Content-Length': '1000' }));
      const stop = connection.trickle('x'.repeat(1000), 100);
      const after = await connection.closedWithin(CLOSED_BY_MS).finally(stop);
      assert.ok(after >= 950, `closed after ${after} ms`);
    } finally {
      await server.stop();
    }
  });
});

describe('a write refused before its body is read', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer({ bodyTimeoutMs: BODY_TIMEOUT_MS, ...accessHooks({ updateToken: 'secret-token' }) });
  });
  after(() => server.close());

  for (const [what, headers] of [
    ['without credentials (401)', {}],
    ['with a body over the limit (413)', { Authorization: 'Bearer secret-token', 'Content-Length': String(50 * 1024 * 1024) }],
  ] as const) {
    it(`is answered at once ${what}, and its connection does not stay open reading the rest`, async () => {
      const connection = await RawConnection.open(server.origin);
      connection.write(rawRequest('POST', '/sparql/update', { 'Content-Type': SPARQL_UPDATE, 'Content-Length': '100000', ...headers }));
      const stop = connection.trickle('x'.repeat(100_000), 50);
      try {
        const [response] = await connection.responses(1, BODY_TIMEOUT_MS);
        assert.ok(response!.status === 401 || response!.status === 413, String(response!.status));
        assert.equal(response!.headers['x-content-type-options'], 'nosniff');
        await connection.closedWithin(CLOSED_BY_MS);
      } finally {
        stop();
        connection.close();
      }
    });
  }
});

describe('requests pipelined on one connection', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server.close());

  const ask = (value: string): string => `ASK { <urn:s> <urn:p> "${value}" }`;
  const insert = (value: string): string => `INSERT DATA { <urn:s> <urn:p> "${value}" }`;
  /** The ways to ask after the write, through each front door. */
  const READS = [
    {
      name: 'an ASK POSTed to the direct query path',
      request: (value: string) => rawRequest('POST', '/sparql/select', { 'Content-Type': SPARQL_QUERY, Accept: 'application/sparql-results+json' }, ask(value)),
    },
    {
      name: 'an ASK by GET',
      request: (value: string) => rawRequest('GET', `/sparql/select?${encodeQuery({ query: ask(value) })}`, { Accept: 'application/sparql-results+json' }),
    },
    {
      name: 'an ASK in a form POSTed to {base}/sparql',
      request: (value: string) =>
        rawRequest('POST', '/sparql', { 'Content-Type': FORM, Accept: 'application/sparql-results+json' }, encodeQuery({ query: ask(value) })),
    },
  ];

  /** The ways to write before it. */
  const WRITES = [
    { name: 'a POSTed INSERT', request: (value: string) => rawRequest('POST', '/sparql/update', { 'Content-Type': SPARQL_UPDATE }, insert(value)) },
    { name: 'an INSERT by GET', request: (value: string) => rawRequest('GET', `/sparql/update?${encodeQuery({ update: insert(value) })}`) },
    // The router and the handler decode these as they decode any URL: they are GET updates too.
    {
      name: 'an INSERT by GET, its parameter name percent-encoded',
      request: (value: string) => rawRequest('GET', `/sparql/update?%75pdate=${encodeURIComponent(insert(value))}`),
    },
    {
      name: 'an INSERT by GET, its path percent-encoded',
      request: (value: string) => rawRequest('GET', `/sparql/%75pdate?${encodeQuery({ update: insert(value) })}`),
    },
  ];

  for (const [{ name, request }, write] of READS.flatMap((read) => WRITES.map((write) => [read, write] as const))) {
    it(`runs ${name} after ${write.name} written before it in the same packet, every time`, async () => {
      const connection = await RawConnection.open(server.origin);
      try {
        for (let round = 0; round < 15; round++) {
          const value = `${name} after ${write.name} ${round}`;
          connection.write(write.request(value) + request(value));
          const [inserted, asked] = await connection.responses(2);
          assert.equal(inserted!.status, 200);
          assert.equal(asked!.status, 200, asked!.body);
          assert.equal((JSON.parse(asked!.body) as { boolean: boolean }).boolean, true, `round ${round}: the ASK missed the INSERT before it`);
        }
      } finally {
        connection.close();
      }
    });
  }

  it('runs writes in the order they were pipelined: the last PUT of a graph wins', async () => {
    const connection = await RawConnection.open(server.origin);
    try {
      const puts = Array.from({ length: 10 }, (_, i) =>
        rawRequest('PUT', '/sparql/store?graph=urn:g', { 'Content-Type': 'text/turtle' }, `<urn:s> <urn:p> ${i} .`),
      );
      const read = rawRequest('GET', '/sparql/store?graph=urn:g', { Accept: 'application/n-triples' });
      connection.write(puts.join('') + read);
      const responses = await connection.responses(11);
      for (const put of responses.slice(0, 10)) assert.ok([200, 201, 204].includes(put.status), String(put.status));
      assert.match(responses[10]!.body, /<urn:s> <urn:p> "9"/);
    } finally {
      connection.close();
    }
  });

  it('answers pipelined queries in order, each with its own answer', async () => {
    const connection = await RawConnection.open(server.origin);
    try {
      const queries = Array.from({ length: 20 }, (_, i) => `SELECT (${i} AS ?n) WHERE {}`);
      connection.write(queries.map((query) => rawRequest('POST', '/sparql/select', { 'Content-Type': SPARQL_QUERY, Accept: 'text/csv' }, query)).join(''));
      const responses = await connection.responses(queries.length);
      assert.deepEqual(
        responses.map((r) => r.body.split('\r\n')[1]),
        queries.map((_, i) => String(i)),
      );
    } finally {
      connection.close();
    }
  });
});

describe('error bodies', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server.close());

  it('carry X-Content-Type-Options: nosniff on both front doors, since they may echo the request', async () => {
    const echoing = '<script>alert(1)</script>';
    const requests: [string, RequestInit][] = [
      ['/sparql/select', { method: 'POST', headers: { 'content-type': SPARQL_QUERY }, body: `SELECT ${echoing}` }], // the direct path
      [`/sparql/select?${encodeQuery({ query: echoing })}`, {}], // the direct path, by GET
      ['/sparql/update', { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: echoing }],
      ['/sparql', { method: 'POST', headers: { 'content-type': FORM }, body: encodeQuery({ update: echoing }) }],
      [`/${encodeURIComponent(echoing)}`, {}],
      ['/sparql/store?default', { method: 'PATCH' }],
    ];
    for (const [path, init] of requests) {
      const response = await fetch(server.url(path), init);
      assert.ok(response.status >= 400, `${path}: ${response.status}`);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
    }
  });
});
