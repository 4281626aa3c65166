/**
 * What LOAD and SERVICE fetch is bounded: where it may go (no loopback or other non-public address
 * in any spelling, redirects included, unless an allow list opens it), how much (--max-fetch-bytes,
 * and the query memory budget for SERVICE), how long (--fetch-timeout), and what errors say (never
 * the fetched content). Real web servers on loopback play the documents and endpoints.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { openStore } from '../../src/store/lmdb-store.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { runQuery, runUpdate } from '../../src/engine/query-engine.js';
import type { EngineQueryOptions, EngineUpdateOptions } from '../../src/engine/engine-api.js';
import { EvaluationError, ProtocolError, ResourceLimitError, TimeoutError } from '../../src/errors.js';
import { nonPublicReason } from '../../src/net/fetch-targets.js';
import { createLocalService } from '../../src/service/local-service.js';
import { encodeQuery, SPARQL_UPDATE, startServer, type RunningServer } from './harness.js';

const SECRET = 'TOP-SECRET-abc123';
const TRIPLE = '<urn:s> <urn:p> "a line of a document that never ends" .\n';

/** A web server on loopback that counts the requests it gets, per path. */
interface Peer {
  origin: string;
  port: number;
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startPeer(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>): Promise<Peer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url!.split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    (routes[path] ?? ((_, r) => r.writeHead(404).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes `piece` as fast as the client reads, until it goes away. */
function endless(contentType: string, head: string, piece: string) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': contentType });
    res.write(head);
    const chunk = piece.repeat(Math.ceil(16384 / piece.length));
    const pour = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pour);
    };
    pour();
  };
}

/** Trickling documents being sent now. */
let trickling = 0;

/** Writes one triple every 100 ms, forever (until the client goes away). */
function trickle(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/turtle' });
  trickling++;
  const timer = setInterval(() => res.write(TRIPLE), 100);
  res.on('close', () => {
    trickling--;
    clearInterval(timer);
  });
}

async function noneTrickling(withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (trickling > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(trickling, 0, 'a download goes on');
}

function answer(status: number, contentType: string, body: string) {
  return (_req: IncomingMessage, res: ServerResponse) => res.writeHead(status, { 'content-type': contentType }).end(body);
}

function messageOf(error: unknown): string {
  return (error as Error).message;
}

/** Rejects with an error of `type` whose message matches `pattern` and never carries the secret. */
async function rejectsWith(promise: Promise<unknown>, type: new (...args: any[]) => Error, pattern: RegExp): Promise<Error> {
  let caught: unknown;
  await promise.then(
    () => assert.fail('expected a failure'),
    (error) => (caught = error),
  );
  assert.ok(caught instanceof type, `${(caught as Error).name}: ${messageOf(caught)}`);
  assert.match(messageOf(caught), pattern);
  assert.ok(!messageOf(caught).includes(SECRET), messageOf(caught));
  return caught as Error;
}

describe('bounded fetches', () => {
  let peer: Peer;
  let other: Peer;
  let store: QuadStore;
  /** Opens the peer (its port only), as `--fetch-allow 127.0.0.1:PORT` does. */
  let peerOnly: EngineUpdateOptions & EngineQueryOptions;

  before(async () => {
    other = await startPeer({ '/data.ttl': answer(200, 'text/turtle', TRIPLE) });
    peer = await startPeer({
      '/data.ttl': answer(200, 'text/turtle', '<urn:x> <urn:p> "loaded" .'),
      '/endless.ttl': endless('text/turtle', '', TRIPLE),
      '/trickle.ttl': trickle,
      '/oversized.ttl': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/turtle', 'content-length': String(10 * 2 ** 20) });
        res.write(TRIPLE);
      },
      '/secret.ttl': answer(200, 'text/turtle', `${SECRET} is what this internal page says`),
      '/secret.json': answer(200, 'application/sparql-results+json', SECRET),
      '/secret.xml': answer(200, 'application/sparql-results+xml', `<${SECRET}/>`),
      '/secret-500': answer(500, 'text/plain', SECRET),
      '/sparql': answer(200, 'application/sparql-results+json', '{"head":{"vars":["o"]},"results":{"bindings":[{"o":{"type":"literal","value":"remote"}}]}}'),
      '/endless-results': endless(
        'application/sparql-results+json',
        '{"head":{"vars":["o"]},"results":{"bindings":[{"o":{"type":"literal","value":"x"}}',
        ',{"o":{"type":"literal","value":"one more solution"}}',
      ),
      '/to-other': (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${other.port}/data.ttl` }).end(),
      '/to-localhost': (_req, res) => res.writeHead(307, { location: `http://localhost:${other.port}/data.ttl` }).end(),
    });
    peerOnly = { fetchSettings: { allow: [`127.0.0.1:${peer.port}`] } };
    store = openStore({ memory: true });
  });

  after(async () => {
    await store.close();
    await peer.close();
    await other.close();
  });

  describe('the target policy', () => {
    it('refuses loopback in every spelling, and never connects', async () => {
      const spellings = ['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', 'localhost'];
      for (const host of spellings) {
        const url = `http://${host}:${peer.port}/data.ttl`;
        const error = await rejectsWith(runUpdate(store, `LOAD <${url}>`), ProtocolError, /refused: .*a loopback address.*--fetch-allow/);
        assert.match(messageOf(error), new RegExp(`LOAD <http://[^>]*:${peer.port}/data.ttl>`));
        await rejectsWith(runQuery(store, `SELECT * { SERVICE <http://${host}:${peer.port}/sparql> { ?s ?p ?o } }`), ProtocolError, /a loopback address/);
      }
      assert.equal(peer.hits.get('/data.ttl'), undefined, 'no request reached the server');
      assert.equal(peer.hits.get('/sparql'), undefined);
    });

    it('refuses a name that resolves to a non-public address: this machine’s own name', async (t) => {
      const name = hostname();
      const resolved = await lookup(name).catch(() => undefined);
      if (!resolved || nonPublicReason(resolved.address) === undefined) return t.skip(`${name} does not resolve to a non-public address here`);
      await rejectsWith(runUpdate(store, `LOAD <http://${name}:${peer.port}/data.ttl>`), ProtocolError, new RegExp(`${name} resolves to`));
      assert.equal(peer.hits.get('/data.ttl'), undefined);
    });

    it('follows no redirect to a target the policy refuses', async () => {
      await rejectsWith(runUpdate(store, `LOAD <${peer.origin}/to-other>`, peerOnly), ProtocolError, /a loopback address/);
      await rejectsWith(runUpdate(store, `LOAD <${peer.origin}/to-localhost>`, peerOnly), ProtocolError, /localhost resolves to .*a loopback address/);
      assert.equal(other.hits.size, 0, 'the redirect target got no request');
    });

    it('fetches what the allow list opens: an address and port, a network, a name', async () => {
      await runUpdate(store, `LOAD <${peer.origin}/data.ttl> INTO GRAPH <urn:by-address>`, peerOnly);
      await runUpdate(store, `LOAD <${peer.origin}/to-other> INTO GRAPH <urn:by-network>`, { fetchSettings: { allow: ['127.0.0.0/8'] } });
      await runUpdate(store, `LOAD <http://localhost:${peer.port}/data.ttl> INTO GRAPH <urn:by-name>`, {
        fetchSettings: { allow: [`localhost:${peer.port}`] },
      });
      // A name not listed itself goes where it resolves if every address it resolves to is opened.
      await runUpdate(store, `LOAD <http://localhost:${peer.port}/data.ttl> INTO GRAPH <urn:by-resolved-address>`, {
        fetchSettings: { allow: ['127.0.0.0/8', '::1'] },
      });
      const result = await runQuery(store, `SELECT ?o { SERVICE <${peer.origin}/sparql> { ?s ?p ?o } }`, peerOnly);
      assert.equal(result.kind, 'bindings');
      const values = result.kind === 'bindings' ? [...result.rows].flat().map((row) => row[0]?.value) : [];
      assert.deepEqual(values, ['remote']);
      const graphs = await runQuery(store, 'SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g');
      const names = graphs.kind === 'bindings' ? [...graphs.rows].flat().map((row) => row[0]?.value) : [];
      assert.deepEqual(names, ['urn:by-address', 'urn:by-name', 'urn:by-network', 'urn:by-resolved-address']);
      // The port of an entry is part of it.
      await rejectsWith(runUpdate(store, `LOAD <${other.origin}/data.ttl>`, peerOnly), ProtocolError, /a loopback address/);
    });
  });

  describe('size and time', () => {
    it('stops an endless document at the fetch limit, and says which', async () => {
      const started = Date.now();
      await rejectsWith(
        runUpdate(store, `LOAD <${peer.origin}/endless.ttl>`, { fetchSettings: { ...peerOnly.fetchSettings, maxBytes: 2 ** 20 } }),
        ResourceLimitError,
        /LOAD <.*endless.ttl>: the answer is larger than 1 MiB, the fetch limit \(--max-fetch-bytes\)/,
      );
      assert.ok(Date.now() - started < 10_000);
    });

    it('refuses a document whose declared length is over the limit before reading it', async () => {
      await rejectsWith(
        runUpdate(store, `LOAD <${peer.origin}/oversized.ttl>`, { fetchSettings: { ...peerOnly.fetchSettings, maxBytes: 2 ** 20 } }),
        ResourceLimitError,
        /--max-fetch-bytes/,
      );
    });

    it('counts every document of an update against one limit', async () => {
      const twice = `LOAD <${peer.origin}/data.ttl> INTO GRAPH <urn:one> ; LOAD <${peer.origin}/data.ttl> INTO GRAPH <urn:two>`;
      await rejectsWith(runUpdate(store, twice, { fetchSettings: { ...peerOnly.fetchSettings, maxBytes: 40 } }), ResourceLimitError, /--max-fetch-bytes/);
      await runUpdate(store, twice, { fetchSettings: { ...peerOnly.fetchSettings, maxBytes: 60 } });
    });

    it('stops a trickling document at the fetch time limit, or at the request’s own', async () => {
      const started = Date.now();
      await rejectsWith(
        runUpdate(store, `LOAD <${peer.origin}/trickle.ttl>`, { fetchSettings: { ...peerOnly.fetchSettings, timeoutMs: 700 } }),
        TimeoutError,
        /did not finish within the fetch time limit of 0.7 s \(--fetch-timeout\)/,
      );
      assert.ok(Date.now() - started < 5000);
      await noneTrickling(1000);
      await rejectsWith(
        runUpdate(store, `LOAD <${peer.origin}/trickle.ttl>`, { ...peerOnly, deadline: Date.now() + 500 }),
        TimeoutError,
        /the request's time limit|ran past its time limit/,
      );
      // SILENT tolerates a failed fetch, not a request out of time.
      await runUpdate(store, `LOAD SILENT <${peer.origin}/trickle.ttl>`, { fetchSettings: { ...peerOnly.fetchSettings, timeoutMs: 300 } });
      await rejectsWith(runUpdate(store, `LOAD SILENT <${peer.origin}/trickle.ttl>`, { ...peerOnly, deadline: Date.now() + 300 }), TimeoutError, /time limit/);
    });

    it('stops an endless SERVICE answer at the fetch limit or the query memory budget, whichever is less', async () => {
      const query = `SELECT * { SERVICE <${peer.origin}/endless-results> { ?s ?p ?o } }`;
      await rejectsWith(runQuery(store, query, { fetchSettings: { ...peerOnly.fetchSettings, maxBytes: 2 ** 20 } }), ResourceLimitError, /--max-fetch-bytes/);
      // An answer may take an eighth of the budget: reading and parsing it takes about eight times its size.
      await rejectsWith(
        runQuery(store, query, { ...peerOnly, memoryBudget: 2 ** 19 }),
        ResourceLimitError,
        /64 KiB, the share of the query memory budget \(--query-memory\)/,
      );
      // SILENT turns a failed SERVICE into no solutions, a limit included: the query does not hold the answer.
      const silent = await runQuery(store, `SELECT * { SERVICE SILENT <${peer.origin}/endless-results> { ?s ?p ?o } }`, { ...peerOnly, memoryBudget: 2 ** 19 });
      assert.equal(silent.kind, 'bindings');
    });
  });

  describe('what errors say', () => {
    it('never quotes a fetched document or answer', async () => {
      await rejectsWith(runUpdate(store, `LOAD <${peer.origin}/secret.ttl>`, peerOnly), EvaluationError, /the document is not valid Turtle \(line 1\)/);
      await rejectsWith(
        runQuery(store, `SELECT * { SERVICE <${peer.origin}/secret.json> { ?s ?p ?o } }`, peerOnly),
        EvaluationError,
        /not valid SPARQL results \(JSON\)/,
      );
      await rejectsWith(
        runQuery(store, `SELECT * { SERVICE <${peer.origin}/secret.xml> { ?s ?p ?o } }`, peerOnly),
        EvaluationError,
        /not valid SPARQL results \(XML\)/,
      );
      await rejectsWith(runQuery(store, `SELECT * { SERVICE <${peer.origin}/secret-500> { ?s ?p ?o } }`, peerOnly), EvaluationError, /answered 500$/);
    });
  });

  describe('SERVICE switched off', () => {
    it('refuses SERVICE, SILENT or not, before fetching anything', async () => {
      const before = peer.hits.get('/sparql') ?? 0;
      for (const silent of ['', 'SILENT']) {
        const query = `SELECT * { SERVICE ${silent} <${peer.origin}/sparql> { ?s ?p ?o } }`;
        await rejectsWith(runQuery(store, query, { ...peerOnly, allowService: false }), ProtocolError, /SERVICE is disabled on this server/);
      }
      assert.equal(peer.hits.get('/sparql') ?? 0, before);
    });
  });
});

describe('a server fetching for its clients', () => {
  let peer: Peer;
  let server: RunningServer;

  before(async () => {
    peer = await startPeer({
      '/trickle.ttl': trickle,
      '/sparql': answer(200, 'application/sparql-results+json', '{"head":{"vars":[]},"results":{"bindings":[{}]}}'),
    });
    const service = await createLocalService({
      memory: true,
      workers: 1,
      allowService: false,
      // The peer, and this server itself (its port is known only once it listens; loopback here).
      fetchSettings: { allow: ['127.0.0.1'], timeoutMs: 4000 },
    });
    server = await startServer(service);
  });

  after(async () => {
    await server.close();
    await peer.close();
  });

  function update(text: string): Promise<Response> {
    return fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: text });
  }

  async function ask(query: string): Promise<boolean> {
    const response = await fetch(server.url(`/sparql?${encodeQuery({ query })}`), { headers: { accept: 'application/sparql-results+json' } });
    return ((await response.json()) as { boolean: boolean }).boolean;
  }

  it('commits another client’s INSERT DATA at once while a LOAD downloads a trickling document', async () => {
    const load = update(`INSERT DATA { <urn:before-load> <urn:p> 1 } ; LOAD <${peer.origin}/trickle.ttl>`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const insert = await update('INSERT DATA { <urn:meanwhile> <urn:p> 1 }');
    const took = Date.now() - started;
    assert.equal(insert.status, 200);
    assert.ok(took < 1500, `the INSERT waited ${took} ms`);
    assert.equal(await ask('ASK { <urn:meanwhile> <urn:p> 1 }'), true);
    // The LOAD fails at the fetch time limit, and its request leaves nothing behind.
    const loaded = await load;
    assert.equal(loaded.status, 504);
    assert.match(await loaded.text(), /--fetch-timeout/);
    assert.equal(await ask('ASK { <urn:before-load> <urn:p> 1 }'), false);
    await noneTrickling(1000);
  });

  it('gives a downloading LOAD up at the update’s time limit, or when its client goes away', async () => {
    const started = Date.now();
    const timedOut = await fetch(server.url('/sparql/update?timeout=0.5'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: `LOAD <${peer.origin}/trickle.ttl>`,
    });
    assert.equal(timedOut.status, 504);
    assert.ok(Date.now() - started < 2000);
    const client = new AbortController();
    const abandoned = fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: `LOAD <${peer.origin}/trickle.ttl>`,
      signal: client.signal,
    }).catch((error: Error) => error.name);
    await new Promise((resolve) => setTimeout(resolve, 300));
    client.abort();
    assert.equal(await abandoned, 'AbortError');
    // The downloads stop, and the writer is free.
    await noneTrickling(1000);
    assert.equal((await update('INSERT DATA { <urn:after-give-up> <urn:p> 1 }')).status, 200);
    assert.equal(await ask('ASK { <urn:after-give-up> <urn:p> 1 }'), true);
  });

  it('does not deadlock on a LOAD of its own update endpoint', async () => {
    const inner = encodeURIComponent('INSERT DATA { <urn:from-inside> <urn:p> 1 }');
    const started = Date.now();
    const response = await update(`LOAD SILENT <${server.url(`/sparql/update?update=${inner}`)}>`);
    assert.equal(response.status, 200);
    assert.ok(Date.now() - started < 3000);
    assert.equal(await ask('ASK { <urn:from-inside> <urn:p> 1 }'), true);
  });

  it('answers 400 to SERVICE when it is switched off (--no-service)', async () => {
    const query = `SELECT * { SERVICE <${peer.origin}/sparql> { ?s ?p ?o } }`;
    const response = await fetch(server.url(`/sparql?${encodeQuery({ query })}`));
    assert.equal(response.status, 400);
    assert.match(await response.text(), /SERVICE is disabled on this server/);
    assert.equal(peer.hits.get('/sparql'), undefined);
  });
});
