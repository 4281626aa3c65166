/**
 * RemoteService against a scripted SPARQL endpoint on loopback: what is forwarded, how answers in
 * each format come back as results, and how every kind of remote failure reaches the caller.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { CancelledError, ProtocolError, SparqlSyntaxError, TimeoutError } from '../errors.js';
import { formBody } from './remote-endpoint.js';
import { RemoteEndpointError } from './remote-errors.js';
import { lexicalQueryForm, queryFormOf } from './remote-request.js';
import { parseQuery } from '../sparql/parse.js';
import { RemoteService } from './remote-service.js';
import type { QueryResult, SolutionRow } from './sparql-service.js';

interface Received {
  form: URLSearchParams;
  headers: IncomingMessage['headers'];
}

type Script = (request: Received, response: ServerResponse, raw: IncomingMessage) => void;

/** A loopback endpoint answering every POST with the current script. */
class ScriptedEndpoint {
  received: Received[] = [];
  script: Script = (_request, response) => json(response, { head: { vars: [] }, results: { bindings: [] } });
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((raw, response) => {
      let body = '';
      raw.setEncoding('utf8');
      raw.on('data', (chunk: string) => (body += chunk));
      raw.on('end', () => {
        const request = { form: new URLSearchParams(body), headers: raw.headers };
        this.received.push(request);
        this.script(request, response, raw);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sparql`;
  }

  get last(): Received {
    return this.received.at(-1)!;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function json(response: ServerResponse, document: unknown, type = 'application/sparql-results+json'): void {
  response.writeHead(200, { 'content-type': type });
  response.end(JSON.stringify(document));
}

/** Scripts the endpoint to send one TSV row and then hold the answer open; resolves when the connection closes. */
function answerOneRowAndHold(endpoint: ScriptedEndpoint): Promise<void> {
  return new Promise<void>((closed) => {
    endpoint.script = (_request, response, raw) => {
      raw.socket.once('close', () => closed());
      response.writeHead(200, { 'content-type': 'text/tab-separated-values' });
      response.write('?x\n1\n');
    };
  });
}

async function rowsOf(result: QueryResult): Promise<SolutionRow[]> {
  assert.equal(result.kind, 'bindings');
  const rows: SolutionRow[] = [];
  if (result.kind === 'bindings') for await (const batch of result.rows) rows.push(...batch);
  return rows;
}

/** The document of a result passed on as it streams in, read to its end. */
async function documentOf(result: QueryResult): Promise<string> {
  assert.ok(result.kind === 'bindings' && result.document?.chunks);
  const chunks: Buffer[] = [];
  for await (const chunk of result.document.chunks) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const SELECT = 'SELECT * WHERE { ?s ?p ?o }';

describe('RemoteService', () => {
  const remote = new ScriptedEndpoint();
  let service: RemoteService;

  before(async () => {
    await remote.start();
    service = new RemoteService({ queryEndpoint: remote.url, user: 'quiver', password: 's3cret' });
  });
  after(async () => {
    await service.close();
    await remote.stop();
  });

  it('forwards a SELECT with its protocol dataset and reads the JSON answer as rows of terms', async () => {
    remote.script = (_request, response) =>
      json(response, {
        head: { vars: ['s', 'o'] },
        results: {
          bindings: [
            { s: { type: 'uri', value: 'http://example.org/a' }, o: { type: 'literal', value: 'x', 'xml:lang': 'en' } },
            { s: { type: 'bnode', value: 'b1' } },
          ],
        },
      });
    const result = await service.query({
      query: SELECT,
      defaultGraphUris: ['http://example.org/d'],
      namedGraphUris: ['http://example.org/n1', 'http://example.org/n2'],
    });
    assert.equal(result.kind === 'bindings' && result.variables.join(), 's,o');
    const rows = await rowsOf(result);
    assert.equal(rows.length, 2);
    assert.equal(rows[0]![1]!.termType, 'Literal');
    assert.equal(rows[1]![1], undefined);
    assert.equal(remote.last.form.get('query'), SELECT);
    assert.deepEqual(remote.last.form.getAll('default-graph-uri'), ['http://example.org/d']);
    assert.deepEqual(remote.last.form.getAll('named-graph-uri'), ['http://example.org/n1', 'http://example.org/n2']);
    assert.match(remote.last.headers.accept!, /^application\/sparql-results\+json/);
  });

  it('sends the form so that the remote reads every character back as written', async () => {
    const query = 'SELECT * { ?s ?p "a+b & c=d %20 é 😀 !\'()*~\t" }';
    remote.script = (_request, response) => json(response, { head: { vars: ['s'] }, results: { bindings: [] } });
    await service.query({ query });
    assert.equal(remote.last.form.get('query'), query);
    // Spaces as %20, the few characters a form decoder reads as themselves left as they are.
    assert.equal(formBody([['query', 'a b+c!']]).toString('latin1'), 'query=a%20b%2Bc!');
    // A lone surrogate (only an API caller can pass one) goes as U+FFFD, as URLSearchParams sends it.
    assert.equal(new URLSearchParams(formBody([['q', 'x\ud800y']]).toString('latin1')).get('q'), 'x\ufffdy');
  });

  it('sends the credentials to the remote only as an Authorization header', async () => {
    await rowsOf(await service.query({ query: SELECT }));
    assert.equal(remote.last.headers.authorization, `Basic ${Buffer.from('quiver:s3cret').toString('base64')}`);
    const withToken = new RemoteService({ queryEndpoint: remote.url, token: 'tok-123' });
    await rowsOf(await withToken.query({ query: SELECT }));
    assert.equal(remote.last.headers.authorization, 'Bearer tok-123');
  });

  it('takes user:password from the endpoint URL, and never shows them in messages', async () => {
    const url = remote.url.replace('http://', 'http://alice:pa%24%24@');
    const service = new RemoteService({ queryEndpoint: url });
    assert.ok(!service.endpoints.query.includes('alice'));
    await rowsOf(await service.query({ query: SELECT }));
    assert.equal(remote.last.headers.authorization, `Basic ${Buffer.from('alice:pa$$').toString('base64')}`);
    remote.script = (_request, response) => response.writeHead(401, { 'www-authenticate': 'Basic' }).end('who are you?');
    const error = await service.query({ query: SELECT }).catch((e: Error) => e);
    assert.ok(error instanceof RemoteEndpointError, String(error));
    assert.match(error.message, /refused Quiver's credentials \(401\)/);
    assert.ok(!error.message.includes('pa$$') && !error.message.includes('alice'));
  });

  it('reads ASK answers, also the one-cell table Virtuoso 7 sends instead of a boolean', async () => {
    remote.script = (_request, response) => json(response, { head: {}, boolean: true });
    assert.deepEqual(await service.query({ query: 'ASK {}' }), { kind: 'boolean', value: true });
    remote.script = (_request, response) =>
      json(response, {
        head: { vars: ['__ASK_RETVAL'] },
        results: { bindings: [{ __ASK_RETVAL: { type: 'typed-literal', datatype: 'http://www.w3.org/2001/XMLSchema#integer', value: '1' } }] },
      });
    assert.deepEqual(await service.query({ query: 'ASK {}' }), { kind: 'boolean', value: true });
    remote.script = (_request, response) => json(response, { head: { vars: ['__ASK_RETVAL'] }, results: { bindings: [] } });
    assert.deepEqual(await service.query({ query: 'ASK {}' }), { kind: 'boolean', value: false });
  });

  it('reads XML results and asks for RDF (N-Triples first) for CONSTRUCT, keeping the query prefixes', async () => {
    remote.script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/sparql-results+xml' });
      response.end(
        '<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head><results><result><binding name="x"><literal>1</literal></binding></result></results></sparql>',
      );
    };
    assert.equal((await rowsOf(await service.query({ query: 'SELECT ?x {}' })))[0]![0]!.value, '1');
    remote.script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/turtle' });
      response.end('<http://example.org/s> <http://example.org/p> "o", _:b .');
    };
    const result = await service.query({ query: 'PREFIX ex: <http://example.org/> CONSTRUCT { ?s ex:p ?o } WHERE { ?s ex:p ?o }' });
    assert.match(remote.last.headers.accept!, /^application\/n-triples/);
    assert.equal(result.kind, 'quads');
    if (result.kind !== 'quads') return;
    assert.deepEqual(result.prefixes, { ex: 'http://example.org/' });
    let count = 0;
    for await (const batch of result.quads) count += batch.length;
    assert.equal(count, 2);
  });

  it('answers our own syntax errors with line and column, without asking the remote', async () => {
    const before = remote.received.length;
    await assert.rejects(
      service.query({ query: 'SELECT *\nWHERE { ?s ?p }' }),
      (error: Error) => error instanceof SparqlSyntaxError && /line 2/.test(error.message),
    );
    await assert.rejects(service.update({ update: 'INSERT DATA { <http://a> }' }), SparqlSyntaxError);
    assert.equal(remote.received.length, before);
  });

  it('forwards queries that use the prefixes a remote predeclares (Virtuoso: bif:)', async () => {
    remote.script = (_request, response) => json(response, { head: { vars: ['x'] }, results: { bindings: [] } });
    await rowsOf(await service.query({ query: 'SELECT ?x { ?x ?p ?o FILTER bif:contains(?o, "word") }' }));
    assert.match(remote.last.form.get('query')!, /bif:contains/);
    assert.equal(lexicalQueryForm('PREFIX a: <http://x#y> # comment\nconstruct { }'), 'construct');
  });

  it('tells the query form through LIMIT, DISTINCT and FROM', () => {
    const formOf = (query: string) => queryFormOf(parseQuery(query).algebra);
    assert.equal(formOf('DESCRIBE <http://example.org/x> FROM <http://example.org/g>'), 'describe');
    assert.equal(formOf('CONSTRUCT WHERE { ?s ?p ?o } LIMIT 1'), 'construct');
    assert.equal(formOf('ASK FROM NAMED <http://example.org/g> {}'), 'ask');
    assert.equal(formOf('SELECT DISTINCT ?s FROM <http://example.org/g> { ?s ?p ?o } LIMIT 1'), 'select');
  });

  it('declares our base in front of a request with relative IRIs, on the same line', async () => {
    await rowsOf(await service.query({ query: 'SELECT * { <thing> ?p ?o }', baseIri: 'http://quiver.example/sparql' }));
    assert.equal(remote.last.form.get('query'), 'BASE <http://quiver.example/sparql> SELECT * { <thing> ?p ?o }');
    await rowsOf(await service.query({ query: SELECT, baseIri: 'http://quiver.example/sparql' }));
    assert.equal(remote.last.form.get('query'), SELECT);
  });

  it('forwards updates with using-graph-uri, and refuses them combined with USING itself', async () => {
    remote.script = (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('done');
    await service.update({
      update: 'INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }',
      usingGraphUris: ['http://example.org/u'],
      usingNamedGraphUris: ['http://example.org/n'],
    });
    assert.equal(remote.last.form.get('update'), 'INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }');
    assert.deepEqual(remote.last.form.getAll('using-graph-uri'), ['http://example.org/u']);
    assert.deepEqual(remote.last.form.getAll('using-named-graph-uri'), ['http://example.org/n']);
    await assert.rejects(
      service.update({ update: 'INSERT { ?s ?p 1 } USING <http://example.org/x> WHERE { ?s ?p ?o }', usingGraphUris: ['http://example.org/u'] }),
      ProtocolError,
    );
  });

  it('keeps a remote 400 a 400 with the remote message, and makes 5xx a 502', async () => {
    remote.script = (_request, response) => response.writeHead(400, { 'content-type': 'text/plain' }).end('SP030: syntax error at FOO');
    await assert.rejects(
      service.query({ query: SELECT }),
      (error: Error) => error instanceof ProtocolError && /SP030: syntax error at FOO/.test(error.message),
    );
    remote.script = (_request, response) => response.writeHead(500, 'SPARQL Request Failed', { 'content-type': 'text/plain' }).end('graph exists');
    await assert.rejects(
      service.update({ update: 'CREATE GRAPH <http://example.org/g>' }),
      (error: Error) => error instanceof RemoteEndpointError && /500 SPARQL Request Failed: graph exists/.test(error.message),
    );
    remote.script = (_request, response) => response.writeHead(503).end();
    await assert.rejects(service.query({ query: SELECT }), RemoteEndpointError);
  });

  it('hands a JSON answer on as the remote\'s bytes, with only "typed-literal" term types respelled (padded to the same length)', async () => {
    const remoteDocument =
      '\ufeff{"head":{"vars":["v"]},"results":{"bindings":[\n' +
      '{"v":{"type" :\t"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#integer","value":"1"}},\n' +
      '{"v":{"type":"literal","value":"say \\"typed-literal\\"", "note": "typed-literal"}}]}}';
    // With its length, as Virtuoso sends it: answers of known, modest length are read whole.
    remote.script = (_request, response) => void response.setHeader('content-type', 'application/sparql-results+json').end(remoteDocument);
    const result = await service.query({ query: 'SELECT ?v {}' });
    assert.equal(result.kind, 'bindings');
    if (result.kind !== 'bindings') return;
    const expected = remoteDocument.slice(1).replace('"typed-literal"', '"literal"      ');
    assert.equal(Buffer.from(result.document!.bytes!).toString('utf8'), expected);
    assert.equal(result.document!.text, expected);
    assert.deepEqual(result.variables, ['v']);
    // Without a length (or over 1 MiB), the same document is passed on as it streams in.
    remote.script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      response.write(remoteDocument.slice(0, 60));
      response.end(remoteDocument.slice(60));
    };
    const streamed = await service.query({ query: 'SELECT ?v {}' });
    assert.deepEqual(streamed.kind === 'bindings' && streamed.variables, ['v']);
    assert.equal(await documentOf(streamed), expected);
    // The rows were not read: the document was taken instead.
    assert.deepEqual(await rowsOf(streamed), []);
  });

  it('passes a JSON answer on as it streams in, and stops the remote when the reader stops', async () => {
    let sendRest!: () => void;
    const remoteSawClose = new Promise<void>((resolve) => {
      remote.script = (_request, response, raw) => {
        raw.socket.once('close', () => resolve());
        response.writeHead(200, { 'content-type': 'application/sparql-results+json' });
        response.write('{ "head": { "link": [], "vars": ["v"] }, "results": { "bindings": [');
        sendRest = () => response.write('{ "v": { "type": "typed-');
      };
    });
    const result = await service.query({ query: 'SELECT ?v {}' });
    assert.ok(result.kind === 'bindings' && result.document?.chunks);
    assert.deepEqual(result.variables, ['v']);
    const chunks = result.document.chunks[Symbol.asyncIterator]();
    assert.match(Buffer.from((await chunks.next()).value as Uint8Array).toString(), /"bindings": \[$/);
    sendRest();
    // What could be the start of a cut "type": "typed-literal" is held back until the rest comes.
    assert.equal(Buffer.from((await chunks.next()).value as Uint8Array).toString(), '{ "v": { ');
    await chunks.return!();
    await remoteSawClose;
  });

  it('reads a streamed JSON answer as rows instead when asked for rows, and fails a document cut short', async () => {
    remote.script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      response.end(
        JSON.stringify({
          head: { vars: ['x'] },
          results: { bindings: [{ x: { type: 'typed-literal', datatype: 'http://www.w3.org/2001/XMLSchema#integer', value: '7' } }] },
        }),
      );
    };
    const rows = await rowsOf(await service.query({ query: 'SELECT ?x {}' }));
    assert.equal(rows[0]![0]!.value, '7');
    remote.script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      response.write('{ "head": { "vars": ["x"] }, "results": { "bindings": [');
      setTimeout(() => response.destroy(), 20);
    };
    const cut = await service.query({ query: 'SELECT ?x {}' });
    await assert.rejects(documentOf(cut), RemoteEndpointError);
  });

  it('gives a 502 for an answer it cannot read', async () => {
    remote.script = (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>login page</html>');
    await assert.rejects(service.query({ query: SELECT }), (error: Error) => error instanceof RemoteEndpointError && /text\/html/.test(error.message));
    remote.script = (_request, response) =>
      json(response, { head: { vars: ['x'] }, results: { bindings: [{ x: { type: 'uri', value: 'http://a' } }, { x: { type: 'weird' } }] } });
    // Before the first row or after it, depending on where the chunks of the answer end.
    await assert.rejects(async () => rowsOf(await service.query({ query: SELECT })), RemoteEndpointError);
    remote.script = (_request, response) => response.writeHead(200, { 'content-type': 'application/n-triples' }).end('<http://a> <http://b> .');
    await assert.rejects(async () => {
      const quads = await service.query({ query: 'CONSTRUCT WHERE { ?s ?p ?o }' });
      if (quads.kind === 'quads') for await (const batch of quads.quads) void batch;
    }, RemoteEndpointError);
  });

  it('stops waiting at the time limit with a TimeoutError (504), and closes the connection', async () => {
    let closed!: () => void;
    const remoteSawClose = new Promise<void>((resolve) => (closed = resolve));
    remote.script = (_request, response, raw) => {
      raw.socket.once('close', closed);
      void response; // never answers
    };
    const started = Date.now();
    await assert.rejects(
      service.query({ query: SELECT, timeoutMs: 200 }),
      (error: Error) => error instanceof TimeoutError && /did not answer/.test(error.message),
    );
    assert.ok(Date.now() - started < 2000);
    await remoteSawClose;
  });

  it('times out a remote that streams too slowly, after the rows it sent', async () => {
    remote.script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/tab-separated-values' });
      response.write('?x\n1\n');
    };
    const result = await service.query({ query: 'SELECT ?x {}', timeoutMs: 300 });
    await assert.rejects(rowsOf(result), TimeoutError);
  });

  it('aborts the remote request when the client goes away', async () => {
    const remoteSawClose = answerOneRowAndHold(remote);
    const client = new AbortController();
    const result = await service.query({ query: 'SELECT ?x {}', signal: client.signal });
    assert.equal(result.kind, 'bindings');
    const iterator = (result as Extract<QueryResult, { kind: 'bindings' }>).rows[Symbol.asyncIterator]();
    assert.equal((await iterator.next()).value?.length, 1);
    const pending = iterator.next();
    client.abort();
    await assert.rejects(pending, CancelledError);
    await remoteSawClose;
  });

  it('closes the remote connection when the consumer stops reading early', async () => {
    const remoteSawClose = answerOneRowAndHold(remote);
    const result = await service.query({ query: 'SELECT ?x {}' });
    // Never iterated at all (e.g. the client's Accept allowed no format): still released.
    if (result.kind === 'bindings') await result.rows[Symbol.asyncIterator]().return?.();
    await remoteSawClose;
  });

  it('follows a redirect of the endpoint with the same form and, on the same origin, the same credentials', async () => {
    remote.script = (_request, response, raw) => {
      if (raw.url === '/sparql') return void response.writeHead(307, { location: '/moved/sparql' }).end();
      json(response, { head: {}, boolean: true });
    };
    const before = remote.received.length;
    assert.deepEqual(await service.query({ query: 'ASK {}' }), { kind: 'boolean', value: true });
    assert.equal(remote.received.length - before, 2);
    assert.equal(remote.last.form.get('query'), 'ASK {}');
    assert.equal(remote.last.headers.authorization, `Basic ${Buffer.from('quiver:s3cret').toString('base64')}`);
  });

  it('keeps connections open over plain http, unless asked not to', async () => {
    remote.script = (_request, response) => json(response, { head: {}, boolean: true });
    await service.query({ query: 'ASK {}' });
    // HTTP/1.1 keeps a connection unless a side says close.
    assert.equal(remote.last.headers.connection, undefined);
    const closing = new RemoteService({ queryEndpoint: remote.url, keepAlive: false });
    await closing.query({ query: 'ASK {}' });
    assert.equal(remote.last.headers.connection, 'close');
    await closing.close();
  });

  it('rejects explain, as the explain contract asks of a remote service', async () => {
    await assert.rejects(
      service.query({ query: SELECT, explain: true }),
      (error: Error) => error instanceof ProtocolError && error.message === 'explain is not available in remote mode',
    );
  });
});

describe('RemoteService without a remote', () => {
  it('answers 502 at once when nothing listens, and recovers when the remote appears', async () => {
    const remote = new ScriptedEndpoint();
    await remote.start();
    const url = remote.url;
    await remote.stop();
    const service = new RemoteService({ queryEndpoint: url });
    const started = Date.now();
    await assert.rejects(
      service.query({ query: SELECT }),
      (error: Error) => error instanceof RemoteEndpointError && /cannot be reached \(ECONNREFUSED\)/.test(error.message),
    );
    assert.ok(Date.now() - started < 2000);
    const port = Number(new URL(url).port);
    const again = new ScriptedEndpoint();
    await new Promise<void>((resolve) => {
      again['server'] = createServer((_raw, response) => json(response, { head: {}, boolean: true }));
      again['server'].listen(port, '127.0.0.1', resolve);
    });
    try {
      assert.deepEqual(await service.query({ query: 'ASK {}' }), { kind: 'boolean', value: true });
    } finally {
      await again.stop();
      await service.close();
    }
  });
});

describe('RemoteService: connections kept or opened ahead for the next query (plain http)', () => {
  /** Every connection the remote accepted, in order, and the connection each request came on. */
  const connections: Socket[] = [];
  let resetNextRequest = false;
  /** Answers of this many bytes or more are written in two pieces, as Virtuoso writes large ones. */
  let inPieces = Infinity;
  /** The remote's Server header, when it sends one. */
  let serverHeader: string | undefined;
  const requestsOn: number[] = [];
  /** Bytes each connection had carried when its last request had arrived whole. */
  const readAtRequest = new Map<Socket, number>();
  let server: Server;
  let url = '';

  before(async () => {
    server = createServer((raw, response) => {
      raw.resume();
      raw.on('end', () => {
        requestsOn.push(connections.indexOf(raw.socket));
        readAtRequest.set(raw.socket, raw.socket.bytesRead);
        if (resetNextRequest) {
          resetNextRequest = false;
          return void raw.socket.destroy();
        }
        // With its length, as Virtuoso sends answers (a chunked boolean is abandoned once read, and its connection with it).
        if (inPieces === Infinity)
          return void response.writeHead(200, { 'content-type': 'application/sparql-results+json', 'content-length': 26 }).end('{"head":{},"boolean":true}');
        const text = JSON.stringify({ head: { vars: ['x'] }, results: { bindings: [{ x: { type: 'literal', value: 'x'.repeat(inPieces) } }] } });
        if (serverHeader !== undefined) response.setHeader('server', serverHeader);
        response.writeHead(200, { 'content-type': 'application/sparql-results+json', 'content-length': Buffer.byteLength(text) });
        response.write(text.slice(0, 100));
        // The rest only once the client has acknowledged the first piece with data of its own (the
        // nudge), as a server with Nagle's algorithm on and a client delaying its ACKs would do.
        raw.socket.once('data', () => response.end(text.slice(100)));
      });
    });
    server.on('connection', (socket: Socket) => void connections.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const open = (): number => connections.filter((s) => !s.destroyed && !s.readableEnded).length;
  const ask = (service: RemoteService): Promise<QueryResult> => service.query({ query: 'ASK {}' });
  /**
   * One answer of 1000 characters sent in pieces, on a connection that answered before (a new
   * connection's first answer is acknowledged by the kernel); returns that connection's index.
   */
  const answerInPieces = async (service: RemoteService): Promise<number> => {
    await ask(service);
    const used = connections.length - 1;
    inPieces = 1000;
    const result = await service.query({ query: 'SELECT ?x {}' });
    assert.equal((await rowsOf(result))[0]![0]!.value.length, 1000);
    inPieces = Infinity;
    return used;
  };

  it('sends the next query on a connection opened once the previous answer was read, and opens another', async () => {
    const service = new RemoteService({ queryEndpoint: url, keepAlive: false });
    try {
      const first = connections.length;
      await ask(service);
      await until(() => connections.length === first + 2, 'the spare is accepted');
      const spare = first + 1;
      await ask(service);
      assert.equal(requestsOn.at(-1), spare);
      await until(() => connections.length === first + 3, 'a new spare is accepted');
      await ask(service);
      assert.equal(requestsOn.at(-1), first + 2);
    } finally {
      await service.close();
    }
  });

  it('leaves no connection open once closed', async () => {
    const service = new RemoteService({ queryEndpoint: url, keepAlive: false });
    await ask(service);
    await until(() => open() === 1, 'only the spare is open');
    await service.close();
    await until(() => open() === 0, 'the spare is closed');
  });

  it('gives the spare up when it waited too long, and when the remote closed it; queries go on regardless', async () => {
    const service = new RemoteService({ queryEndpoint: url, keepAlive: false, spareIdleMs: 50 });
    try {
      await ask(service);
      await until(() => open() === 1, 'the spare is open');
      await until(() => open() === 0, 'the idle spare is closed');
      assert.deepEqual(await ask(service), { kind: 'boolean', value: true });
      const spare = connections.length;
      await until(() => connections.length === spare + 1, 'the spare is accepted');
      connections[spare]!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(await ask(service), { kind: 'boolean', value: true });
      assert.equal(requestsOn.at(-1), spare + 1);
    } finally {
      await service.close();
    }
  });

  it('sends a query again on a new connection when its spare breaks under it', async () => {
    const service = new RemoteService({ queryEndpoint: url, keepAlive: false });
    try {
      await ask(service);
      const spare = connections.length;
      await until(() => connections.length === spare + 1, 'the spare is accepted');
      resetNextRequest = true;
      assert.deepEqual(await ask(service), { kind: 'boolean', value: true });
      assert.deepEqual(requestsOn.slice(-2), [spare, spare + 1]);
    } finally {
      await service.close();
    }
  });

  it('opens none ahead for updates, nor when asked not to (spareIdleMs 0)', async () => {
    const updates = new RemoteService({ queryEndpoint: url, keepAlive: false });
    const none = new RemoteService({ queryEndpoint: url, spareIdleMs: 0 });
    try {
      const before = connections.length;
      await updates.update({ update: 'CLEAR ALL' });
      await ask(none);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(connections.length, before + 2);
    } finally {
      await updates.close();
      await none.close();
    }
  });

  it('sends the next queries on the connection of the last answer, and keeps one per query running at once', async () => {
    const service = new RemoteService({ queryEndpoint: url });
    try {
      const first = connections.length;
      await ask(service);
      await ask(service);
      await ask(service);
      assert.deepEqual(requestsOn.slice(-3), [first, first, first]);
      await Promise.all([ask(service), ask(service), ask(service)]);
      assert.equal(connections.length, first + 3);
      await ask(service);
      assert.equal(connections.length, first + 3);
    } finally {
      await service.close();
    }
    await until(() => open() === 0, 'the kept connections are closed');
  });

  it('acknowledges an answer that comes in pieces at once, and then sends the next query on another connection', async () => {
    const service = new RemoteService({ queryEndpoint: url });
    try {
      const first = await answerInPieces(service);
      await until(() => connections.length === first + 2, 'a connection is opened ahead');
      await ask(service);
      assert.equal(requestsOn.at(-1), first + 1);
      // The nudged connection is closed: its empty lines never come before another request.
      await until(() => connections[first]!.destroyed || connections[first]!.readableEnded, 'the nudged connection is closed');
    } finally {
      inPieces = Infinity;
      await service.close();
    }
  });

  it('closes a nudged connection by default whatever the remote calls itself, Virtuoso too', async () => {
    const service = new RemoteService({ queryEndpoint: url });
    serverHeader = 'Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu';
    try {
      const nudged = await answerInPieces(service);
      await ask(service);
      assert.notEqual(requestsOn.at(-1), nudged);
      await until(() => connections[nudged]!.destroyed || connections[nudged]!.readableEnded, 'the nudged connection is closed');
    } finally {
      inPieces = Infinity;
      serverHeader = undefined;
      await service.close();
    }
  });

  it("keeps a nudged connection for the next request when told the remote skips empty lines (ackPieces 'reuse')", async () => {
    const service = new RemoteService({ queryEndpoint: url, ackPieces: 'reuse' });
    try {
      const kept = await answerInPieces(service);
      await ask(service);
      assert.deepEqual(requestsOn.slice(-2), [kept, kept]);
      assert.equal(connections.length, kept + 1);
    } finally {
      inPieces = Infinity;
      await service.close();
    }
  });

  it("writes nothing after a request when told not to (ackPieces 'off'): an answer waiting for our ACK waits", async () => {
    const service = new RemoteService({ queryEndpoint: url, ackPieces: 'off', queryTimeoutMs: 300 });
    try {
      await ask(service);
      const used = connections[connections.length - 1]!;
      inPieces = 1000;
      await assert.rejects(service.query({ query: 'SELECT ?x {}' }).then(rowsOf), (error: Error) => error instanceof TimeoutError);
      assert.equal(requestsOn.at(-1), connections.indexOf(used));
      assert.equal(used.bytesRead, readAtRequest.get(used), 'bytes written after the request');
    } finally {
      inPieces = Infinity;
      await service.close();
    }
  });

  it('sends a query again on a new connection when the remote closed a kept one under it', async () => {
    const service = new RemoteService({ queryEndpoint: url });
    try {
      await ask(service);
      const kept = connections.length - 1;
      resetNextRequest = true;
      assert.deepEqual(await ask(service), { kind: 'boolean', value: true });
      assert.deepEqual(requestsOn.slice(-2), [kept, kept + 1]);
    } finally {
      await service.close();
    }
  });
});

describe('RemoteService over https (net/http-client.ts reads the answers)', () => {
  // A self-signed certificate for 127.0.0.1 (valid until 2126), trusted by turning verification off in this test only.
  const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxT9XEEHnpIrkI6K3
SLRsMvLzaJ+UU/Mm8v1JVceyiluhRANCAASkaVg1RJpI9+6APu/qeHqvB/vn0Odg
H1DcAJd+UzIgq/D1oEYwJVk4GPMRqjDB5zjUbDqiC6hyoI4N/9Ln8SRP
-----END PRIVATE KEY-----`;
  const cert = `-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUKWx/pMO26LpkFYzImfsNzpmGx6wwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNjA1NTkyMloYDzIxMjYxMTAy
MDU1OTIyWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASkaVg1RJpI9+6APu/qeHqvB/vn0OdgH1DcAJd+UzIgq/D1oEYwJVk4
GPMRqjDB5zjUbDqiC6hyoI4N/9Ln8SRPo2QwYjAdBgNVHQ4EFgQUzp/zV/puneVT
/GSTIs7UGNU1+qcwHwYDVR0jBBgwFoAUzp/zV/puneVT/GSTIs7UGNU1+qcwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
IQCrEtFs2iK85SuUC1Fj0CxKDscPgBzxcyaOu25skk2xvQIhAO07bYDu2AH0fcsJ
P/ViEOdWib2n+ePOCrvG7Opyyf/n
-----END CERTIFICATE-----`;

  it("reads whole and streamed answers and the remote's errors, on kept-alive connections", async () => {
    const connections: Socket[] = [];
    let answer: (response: ServerResponse) => void = () => undefined;
    const server = createHttpsServer({ key, cert }, (raw, response) => {
      raw.resume();
      raw.on('end', () => answer(response));
    });
    server.on('secureConnection', (socket: Socket) => void connections.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const verification = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const service = new RemoteService({ queryEndpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}/sparql` });
    try {
      answer = (response) =>
        json(response, {
          head: { vars: ['x'] },
          results: { bindings: [{ x: { type: 'typed-literal', datatype: 'http://www.w3.org/2001/XMLSchema#integer', value: '1' } }] },
        });
      assert.equal((await rowsOf(await service.query({ query: 'SELECT ?x {}' })))[0]![0]!.value, '1');
      await nextTurn();
      answer = (response) => {
        response.writeHead(200, { 'content-type': 'text/tab-separated-values' });
        response.write('?x\n1\n');
        response.end('2\n');
      };
      assert.equal((await rowsOf(await service.query({ query: 'SELECT ?x {}' }))).length, 2);
      await nextTurn();
      answer = (response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('it broke');
      await assert.rejects(
        service.query({ query: 'SELECT ?x {}' }),
        (error: Error) => error instanceof RemoteEndpointError && /500.*it broke/.test(error.message),
      );
      assert.equal(connections.length, 1);
    } finally {
      if (verification === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = verification;
      await service.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/**
 * A turn of the event loop, as between two requests from the network: undici reuses a kept-alive
 * connection only a turn after its answer (a server that said keep-alive may still close it).
 */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('RemoteService over plain http: our own client answers as node:http does (QUIVER_REMOTE_HTTP1=0)', () => {
  const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';
  const bigJson = JSON.stringify({
    head: { vars: ['s', 'n'] },
    results: {
      bindings: Array.from({ length: 20_000 }, (_, i) => ({
        s: { type: 'uri', value: `http://example.org/s${i}` },
        n: { type: 'typed-literal', datatype: XSD_INTEGER, value: String(i) },
      })),
    },
  });
  /** Each exchange: a query, and how the remote answers it (in one piece, in pieces, broken off, refused). */
  const EXCHANGES: [string, Script][] = [
    [
      'SELECT ?v {}',
      (_r, response) => json(response, { head: { vars: ['v'] }, results: { bindings: [{ v: { type: 'typed-literal', datatype: XSD_INTEGER, value: '1' } }] } }),
    ],
    [
      'SELECT ?s ?n {}',
      (_r, response) => {
        response.writeHead(200, { 'content-type': 'application/sparql-results+json' });
        for (let at = 0; at < bigJson.length; at += 65_521) response.write(bigJson.slice(at, at + 65_521));
        response.end();
      },
    ],
    [
      'SELECT ?x ?y {}',
      (_r, response) => {
        response.writeHead(200, { 'content-type': 'text/tab-separated-values' });
        response.write('?x\t?y\n<http://example.org/a>\t"é"@fr\n');
        response.end('_:b\t"2"^^<http://www.w3.org/2001/XMLSchema#integer>\n');
      },
    ],
    [
      'SELECT ?x {}',
      (_r, response) =>
        response
          .writeHead(200, { 'content-type': 'application/sparql-results+xml' })
          .end(
            '<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head>' +
              '<results><result><binding name="x"><literal xml:lang="en">hi</literal></binding></result></results></sparql>',
          ),
    ],
    ['ASK {}', (_r, response) => json(response, { head: {}, boolean: true })],
    [
      'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }',
      (_r, response) =>
        response
          .writeHead(200, { 'content-type': 'application/n-triples' })
          .end('<http://example.org/s> <http://example.org/p> "o" .\n<http://example.org/s> <http://example.org/p> _:b .\n'),
    ],
    ['SELECT ?v { ?v ?p ?o }', (_r, response) => response.writeHead(400, { 'content-type': 'text/plain' }).end('SP030: syntax error at FOO')],
    ['SELECT ?w { ?w ?p ?o }', (_r, response) => response.writeHead(500, 'SPARQL Request Failed', { 'content-type': 'text/plain' }).end('it broke')],
    [
      'SELECT ?z {}',
      (_r, response) => {
        response.writeHead(200, { 'content-type': 'text/tab-separated-values', 'content-length': '1000' });
        response.write('?z\n1\n');
        setTimeout(() => response.socket?.destroy(), 20);
      },
    ],
  ];

  /** What the caller gets: the rows, quads or document, or the error's class and message. */
  async function outcome(service: RemoteService, query: string): Promise<string> {
    try {
      const result = await service.query({ query });
      if (result.kind === 'boolean') return `boolean ${result.value}`;
      if (result.kind === 'explain') return 'explain';
      const document = result.document;
      if (document) {
        const text = document.text ?? (document.bytes ? Buffer.from(document.bytes).toString('utf8') : undefined);
        if (text !== undefined) return `${document.mediaType} ${text}`;
        const chunks: Buffer[] = [];
        for await (const chunk of document.chunks!) chunks.push(Buffer.from(chunk));
        return `${document.mediaType} ${Buffer.concat(chunks).toString('utf8')}`;
      }
      const cells: string[] = [];
      if (result.kind === 'bindings') {
        for await (const batch of result.rows) for (const row of batch) cells.push(row.map((t) => (t ? `${t.termType}:${t.value}` : '-')).join(' '));
        return `${result.variables.join(',')}\n${cells.join('\n')}`;
      }
      for await (const batch of result.quads)
        for (const q of batch)
          cells.push([q.subject, q.predicate, q.object].map((t) => `${t.termType}:${t.termType === 'BlankNode' ? '' : t.value}`).join(' '));
      return cells.join('\n');
    } catch (error) {
      // A connection failure's own words differ (node:http says "aborted"): its class and code do not.
      const message = (error as Error).message.replace(/127\.0\.0\.1:\d+/g, 'remote').replace(/(failed \([A-Z_]+\)): .*$/, '$1');
      return `${(error as Error).constructor.name}: ${message}`;
    }
  }

  async function outcomes(ownClient: boolean): Promise<{ answers: string[]; connectionHeaders: (string | undefined)[] }> {
    const remote = new ScriptedEndpoint();
    await remote.start();
    const saved = process.env.QUIVER_REMOTE_HTTP1;
    // Read when the endpoint is made.
    if (ownClient) delete process.env.QUIVER_REMOTE_HTTP1;
    else process.env.QUIVER_REMOTE_HTTP1 = '0';
    const service = new RemoteService({ queryEndpoint: remote.url });
    if (saved === undefined) delete process.env.QUIVER_REMOTE_HTTP1;
    else process.env.QUIVER_REMOTE_HTTP1 = saved;
    try {
      const answers: string[] = [];
      for (const [query, script] of EXCHANGES) {
        remote.script = script;
        answers.push(await outcome(service, query));
      }
      return { answers, connectionHeaders: remote.received.map((r) => r.headers.connection) };
    } finally {
      await service.close();
      await remote.stop();
    }
  }

  it('gives the same answers and errors for answers whole, in pieces, in every format, refused and broken off', async () => {
    const own = await outcomes(true);
    const plain = await outcomes(false);
    assert.equal(own.answers.length, EXCHANGES.length);
    own.answers.forEach((answer, i) => assert.equal(answer, plain.answers[i], EXCHANGES[i][0]));
    assert.match(own.answers[1], /http:\/\/example\.org\/s19999/);
    assert.match(own.answers[6], /^ProtocolError: .*SP030/);
    assert.match(own.answers[8], /^RemoteEndpointError: .*failed \(ECONNRESET\)$/);
    // Which client sent them: node:http names the kept-alive connection, ours leaves it to HTTP/1.1's default.
    assert.ok(
      own.connectionHeaders.every((header) => header === undefined),
      own.connectionHeaders.join(),
    );
    assert.ok(
      plain.connectionHeaders.every((header) => header === 'keep-alive'),
      plain.connectionHeaders.join(),
    );
  });
});
