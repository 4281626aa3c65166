/**
 * EndpointClient (remote mode's pooled undici client) against a loopback server: answers whole and
 * streamed, stopping a request wherever it is, kept-alive connections, and the acknowledgement of
 * an answer's pieces in each setting (piece-acks.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EndpointClient, type EndpointClientOptions } from './http-client.js';
import type { AckPieces } from './piece-acks.js';

type Script = (request: IncomingMessage, response: ServerResponse) => void;

/** A turn of the event loop, as between two requests from the network (undici reuses a connection only then). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('EndpointClient', () => {
  let server: Server;
  let url: URL;
  let script: Script = (_request, response) => response.end('ok');
  /** Every connection accepted, in order; the connection each request came on; the bytes each had carried then. */
  const connections: Socket[] = [];
  const requestsOn: number[] = [];
  const readAtRequest = new Map<Socket, number>();

  before(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        requestsOn.push(connections.indexOf(request.socket));
        readAtRequest.set(request.socket, request.socket.bytesRead);
        script(request, response);
      });
    });
    server.on('connection', (socket: Socket) => void connections.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql`);
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (client: EndpointClient, body = 'query=ASK%20%7B%7D') =>
    client.send({ url, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) }, body });

  const withClient = async (options: EndpointClientOptions, run: (client: EndpointClient) => Promise<void>): Promise<void> => {
    const client = new EndpointClient(options);
    try {
      await run(client);
    } finally {
      client.close();
    }
  };

  it('reads an answer whole or chunk by chunk, with its status line and headers, and keeps the connection', async () => {
    await withClient({}, async (client) => {
      script = (_request, response) => response.writeHead(201, 'Made It', { 'x-two': ['a', 'b'] }).end('whole answer');
      const first = await post(client).response;
      assert.equal(first.status, 201);
      assert.equal(first.statusMessage, 'Made It');
      assert.deepEqual(first.headers['x-two'], ['a', 'b']);
      assert.equal((await first.body.whole()).toString(), 'whole answer');
      const used = requestsOn.at(-1);
      await nextTurn();
      script = (_request, response) => {
        response.write('one ');
        setTimeout(() => response.end('two'), 5);
      };
      const chunks: string[] = [];
      for await (const chunk of (await post(client).response).body.chunks()) chunks.push(chunk.toString());
      assert.equal(chunks.join(''), 'one two');
      assert.equal(requestsOn.at(-1), used, 'the second request went on the first connection');
    });
  });

  it('stops a request before its answer, or halfway through its body, closing the connection', async () => {
    await withClient({}, async (client) => {
      script = () => undefined;
      const waiting = post(client);
      await new Promise((resolve) => setTimeout(resolve, 20));
      waiting.destroy(new Error('no longer wanted'));
      await assert.rejects(waiting.response, /no longer wanted/);
      assert.ok(waiting.destroyed);
      script = (_request, response) => response.write('a first piece');
      const streaming = post(client);
      const response = await streaming.response;
      const iterator = response.body.chunks()[Symbol.asyncIterator]();
      assert.equal(((await iterator.next()).value as Buffer).toString(), 'a first piece');
      const socket = connections[requestsOn.at(-1)!]!;
      streaming.destroy(new Error('stopped halfway'));
      await assert.rejects(iterator.next(), /stopped halfway/);
      await new Promise((resolve) => socket.once('close', resolve));
    });
  });

  it('reports a connection broken off as ECONNRESET, as node:net names it', async () => {
    await withClient({}, async (client) => {
      script = (request) => request.socket.destroy();
      await assert.rejects(post(client).response, (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET');
    });
  });

  describe('acknowledging the pieces of an answer', () => {
    /** Answers of this many characters are written in two pieces, the second once the client has sent something. */
    const PIECES = 1000;

    /**
     * A small answer, then one in pieces on the same (now kept-alive) connection, as Virtuoso with
     * Nagle on waits for the ACK of its first piece; resolves with that connection once the second
     * answer is read, or rejects when the client gives up on it after `patienceMs`. `headAlone`:
     * the first piece is the head alone, the whole body waits.
     */
    async function answerInPieces(client: EndpointClient, patienceMs = 2000, headAlone = false): Promise<Socket> {
      script = (_request, response) => response.end('{"boolean":true}');
      await (await post(client).response).body.whole();
      await nextTurn();
      const text = 'x'.repeat(PIECES);
      script = (request, response) => {
        response.writeHead(200, { 'content-length': text.length });
        if (headAlone) {
          response.flushHeaders();
          return void request.socket.once('data', () => response.end(text));
        }
        response.write(text.slice(0, 100));
        request.socket.once('data', () => response.end(text.slice(100)));
      };
      const exchange = post(client);
      const timer = setTimeout(() => exchange.destroy(new Error('the rest never came')), patienceMs);
      try {
        const whole = await (await exchange.response).body.whole();
        assert.equal(whole.length, PIECES);
      } finally {
        clearTimeout(timer);
      }
      return connections[requestsOn.at(-1)!]!;
    }

    const client = (ackPieces: AckPieces | undefined): EndpointClientOptions => ({ ackPieces });

    it('by default (close), acknowledges with an empty line and closes that connection after the answer', async () => {
      await withClient(client(undefined), async (endpoint) => {
        const socket = await answerInPieces(endpoint);
        assert.ok(socket.bytesRead > readAtRequest.get(socket)!, 'an empty line came after the request');
        await new Promise((resolve) => (socket.closed ? resolve(undefined) : socket.once('close', resolve)));
        await nextTurn();
        script = (_request, response) => response.end('next');
        await (await post(endpoint).response).body.whole();
        assert.notEqual(connections[requestsOn.at(-1)!], socket);
      });
    });

    it('acknowledges a head that came alone (a remote with Nagle on holds its body back until then)', async () => {
      await withClient(client('reuse'), async (endpoint) => {
        const socket = await answerInPieces(endpoint, 2000, true);
        assert.ok(socket.bytesRead > readAtRequest.get(socket)!, 'an empty line came after the request');
      });
    });

    it("with 'reuse', acknowledges and sends the next request on the same connection", async () => {
      await withClient(client('reuse'), async (endpoint) => {
        const socket = await answerInPieces(endpoint);
        assert.ok(socket.bytesRead > readAtRequest.get(socket)!, 'an empty line came after the request');
        await nextTurn();
        script = (_request, response) => response.end('next');
        assert.equal((await (await post(endpoint).response).body.whole()).toString(), 'next');
        assert.equal(connections[requestsOn.at(-1)!], socket);
      });
    });

    it("with 'off', writes nothing after the request: an answer waiting for our ACK waits", async () => {
      await withClient(client('off'), async (endpoint) => {
        await assert.rejects(answerInPieces(endpoint, 300), /the rest never came/);
        const socket = connections[requestsOn.at(-1)!]!;
        assert.equal(socket.bytesRead, readAtRequest.get(socket));
      });
    });

    it('never on a connection that closes after each answer (keepAlive false)', async () => {
      await withClient({ keepAlive: false, ackPieces: 'reuse' }, async (endpoint) => {
        script = (_request, response) => {
          response.writeHead(200, { 'content-length': 4 });
          response.write('ab');
          setTimeout(() => response.end('cd'), 5);
        };
        const response = await post(endpoint).response;
        assert.equal((await response.body.whole()).toString(), 'abcd');
        const socket = connections[requestsOn.at(-1)!]!;
        assert.equal(socket.bytesRead, readAtRequest.get(socket));
      });
    });
  });
});
