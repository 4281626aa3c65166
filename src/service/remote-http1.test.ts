/**
 * Our own HTTP/1.1 client for one request per connection, against a loopback server that writes
 * answers byte for byte as scripted: how bodies are framed, however their bytes are split.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Http1Exchange } from './remote-http1.js';
import type { AckPieces } from '../net/piece-acks.js';

/** What the server does with a connection once the whole request (head and body) has arrived. */
type Script = (socket: Socket, request: string) => void;

/** Answers each connection with the current script; the request is read up to its Content-Length. */
class RawServer {
  script: Script = (socket) => socket.end('HTTP/1.1 204 No Content\r\n\r\n');
  private server!: Server;
  port = 0;
  readonly closed: Promise<void>[] = [];

  async start(): Promise<void> {
    this.server = createServer((socket) => {
      socket.setNoDelay(true);
      this.closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      socket.on('error', () => undefined);
      let text = '';
      const onData = (chunk: Buffer): void => {
        text += chunk.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? 0);
        if (text.length < end + 4 + length) return;
        socket.off('data', onData);
        this.script(socket, text);
      };
      socket.on('data', onData);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Writes the pieces one after the other, each in its own packet (a turn of the event loop apart). */
async function writeInPieces(socket: Socket, pieces: (string | Buffer)[], end = true): Promise<void> {
  for (const piece of pieces) {
    socket.write(piece);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  if (end) socket.end();
}

/** Every split of the text into single bytes. */
function bytesOf(text: string): string[] {
  return [...Buffer.from(text, 'latin1')].map((byte) => String.fromCharCode(byte));
}

describe('Http1Exchange', () => {
  const server = new RawServer();
  before(() => server.start());
  after(() => server.stop());

  const request = Buffer.from('POST /sparql HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello', 'latin1');
  const exchange = (onComplete?: () => void): Http1Exchange => new Http1Exchange(connect({ host: '127.0.0.1', port: server.port }), request, false, onComplete);

  it('sends the request as given, in one piece, and reads an answer framed by Content-Length', async () => {
    let received = '';
    server.script = (socket, text) => {
      received = text;
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nX-Twice: a\r\nx-twice: b\r\n\r\nabc');
    };
    let completed = 0;
    const response = await exchange(() => completed++).response;
    assert.equal(received, request.toString('latin1'));
    assert.equal(response.status, 200);
    assert.equal(response.statusMessage, 'OK');
    assert.equal(response.headers['content-type'], 'text/plain');
    assert.equal(response.headers['x-twice'], 'a, b');
    assert.equal((await response.body.whole()).toString(), 'abc');
    assert.equal(completed, 1);
  });

  it('reads head and body however their bytes are split', async () => {
    const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789';
    server.script = (socket) => void writeInPieces(socket, bytesOf(answer));
    const response = await exchange().response;
    assert.equal((await response.body.whole()).toString(), '0123456789');
  });

  it('takes the chunked coding off (extensions, trailers, any split), and skips interim answers', async () => {
    const answer =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=value\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: yes\r\n\r\n';
    server.script = (socket) => void writeInPieces(socket, bytesOf(answer), false);
    const response = await exchange().response;
    assert.equal(response.status, 200);
    // The server keeps the connection open: the end of the chunks is the end of the answer.
    assert.equal((await response.body.whole()).toString(), 'Wikipedia in\r\n\r\nchunks.');
  });

  it('reads a body without length or chunks up to the end of the connection, chunk by chunk', async () => {
    server.script = (socket) => void writeInPieces(socket, ['HTTP/1.0 200 OK\r\n\r\n', 'one ', 'two ', 'three']);
    const response = await exchange().response;
    const chunks: string[] = [];
    for await (const chunk of response.body.chunks()) chunks.push(chunk.toString());
    assert.equal(chunks.join(''), 'one two three');
  });

  it('has an empty body for 204 and for Content-Length 0', async () => {
    server.script = (socket) => void socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    assert.equal((await (await exchange().response).body.whole()).length, 0);
    server.script = (socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    assert.equal((await (await exchange().response).body.whole()).length, 0);
  });

  it('fails as node:http does when the connection closes before the answer, or in the middle of its body', async () => {
    server.script = (socket) => void socket.end();
    await assert.rejects(exchange().response, (error: Error & { code?: string }) => error.code === 'ECONNRESET');
    server.script = (socket) => void socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234');
    const response = await exchange().response;
    await assert.rejects(response.body.whole(), /closed the connection before the end of its answer/);
    server.script = (socket) => void socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n');
    await assert.rejects((await exchange().response).body.whole(), /before the end of its answer/);
  });

  it('refuses what is not an HTTP/1.1 answer, with a code for the message', async () => {
    server.script = (socket) => void socket.end('SSH-2.0-OpenSSH\r\n\r\n');
    await assert.rejects(exchange().response, (error: Error & { code?: string }) => error.code === 'HPE_INVALID_CONSTANT');
    server.script = (socket) => void socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nab');
    await assert.rejects(exchange().response, (error: Error & { code?: string }) => error.code === 'HPE_INVALID_CONTENT_LENGTH');
    server.script = (socket) => void socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    await assert.rejects((await exchange().response).body.whole(), (error: Error & { code?: string }) => error.code === 'HPE_INVALID_CHUNK_SIZE');
  });

  it('stops at destroy(error): the pending read rejects with that error and the connection closes', async () => {
    server.script = (socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nsome');
    const stopped = exchange();
    const response = await stopped.response;
    const reading = response.body.whole();
    stopped.destroy(new Error('time is up'));
    await assert.rejects(reading, /time is up/);
    await server.closed.at(-1);
    server.script = () => undefined; // never answers
    const waiting = exchange();
    setTimeout(() => waiting.destroy(Object.assign(new Error('aborted'), { code: 'ABORT_ERR' })), 10);
    await assert.rejects(waiting.response, /aborted/);
  });

  it('leaves a connection handed back alone when destroyed after its answer arrived whole', async () => {
    server.script = (socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc');
    let handedBack: Socket | undefined;
    const finished = new Http1Exchange(connect({ host: '127.0.0.1', port: server.port }), request, true, (socket) => (handedBack = socket));
    await finished.response;
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(handedBack, 'the answer was read to its end');
    // Its reader stopped before taking the body (a client gone, an ASK answered by its first row).
    finished.destroy(new Error('nobody reads the rest'));
    assert.equal(handedBack.destroyed, false);
    handedBack.destroy();
  });

  it('closes the connection when the consumer leaves the chunks early, and holds a large body back for a slow one', async () => {
    const piece = Buffer.alloc(256 * 1024, 0x61);
    let written = 0;
    server.script = (socket) => {
      socket.write('HTTP/1.1 200 OK\r\n\r\n');
      const more = (): void => {
        // Writes until the connection pushes back (our client stopped reading), up to 16 MiB.
        while (written < 16 * 1024 * 1024 && socket.write(piece)) written += piece.length;
      };
      socket.on('drain', more);
      more();
    };
    const response = await exchange().response;
    const iterator = response.body.chunks()[Symbol.asyncIterator]();
    assert.ok((await iterator.next()).value.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(written < 16 * 1024 * 1024, 'the server had to wait for our client');
    await iterator.return!();
    await server.closed.at(-1);
  });

  it("on a kept-alive connection, acknowledges pieces of the answer past the first few with an empty line, and hands the connection back only when it sent none (or ackPieces is 'reuse')", async () => {
    const keptAlive = (onComplete: (socket: Socket | undefined) => void, ackPieces?: AckPieces): Http1Exchange =>
      new Http1Exchange(connect({ host: '127.0.0.1', port: server.port }), request, true, onComplete, ackPieces);
    let afterRequest = '';
    const inPieces =
      (head: string, pieces: number) =>
      (socket: Socket): void => {
        socket.on('data', (chunk: Buffer) => (afterRequest += chunk.toString('latin1')));
        void writeInPieces(socket, [`HTTP/1.1 200 OK\r\n${head}Content-Length: ${pieces}\r\n\r\n`, ...'x'.repeat(pieces)], false);
      };
    let handedBack: Socket | undefined | null = null;
    // A new connection's first pieces are acknowledged by the kernel (quick-ack): not nudged, handed back.
    server.script = inPieces('', 1);
    const quick = await keptAlive((socket) => (handedBack = socket)).response;
    assert.equal((await quick.body.whole()).toString(), 'x');
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(afterRequest, '');
    assert.ok(handedBack, 'an answer read without nudges leaves the connection for the next request');
    (handedBack as Socket).destroy();
    // Past the first three reads, each read of an unfinished answer is acknowledged by an empty line.
    server.script = inPieces('', 8);
    const nudged = await keptAlive((socket) => (handedBack = socket)).response;
    assert.equal((await nudged.body.whole()).toString(), 'xxxxxxxx');
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.match(afterRequest, /^(\r\n)+$/);
    assert.equal(handedBack, undefined, 'a nudged connection is not handed back');
    // Whatever the remote calls itself: only the setting decides.
    afterRequest = '';
    server.script = inPieces('Server: Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu\r\n', 8);
    const named = await keptAlive((socket) => (handedBack = socket)).response;
    assert.equal((await named.body.whole()).toString(), 'xxxxxxxx');
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(handedBack, undefined, 'a nudged connection is not handed back, whatever the Server header');
    // 'reuse': a remote said to skip empty lines before a request gets its nudged connection back.
    afterRequest = '';
    server.script = inPieces('', 8);
    const reused = await keptAlive((socket) => (handedBack = socket), 'reuse').response;
    assert.equal((await reused.body.whole()).toString(), 'xxxxxxxx');
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.match(afterRequest, /^(\r\n)+$/);
    assert.ok(handedBack, "with ackPieces 'reuse' the nudged connection is handed back");
    (handedBack as Socket).destroy();
    // 'off': nothing is written after the request, and the connection is handed back.
    afterRequest = '';
    handedBack = null;
    server.script = inPieces('', 8);
    const quiet = await keptAlive((socket) => (handedBack = socket), 'off').response;
    assert.equal((await quiet.body.whole()).toString(), 'xxxxxxxx');
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(afterRequest, '');
    assert.ok(handedBack, "with ackPieces 'off' the connection is handed back");
    (handedBack as Socket).destroy();
    // A remote that closes after the answer is never nudged (it could answer our bytes with a reset).
    afterRequest = '';
    server.script = (socket) => {
      socket.on('data', (chunk: Buffer) => (afterRequest += chunk.toString('latin1')));
      void writeInPieces(socket, ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n', 'one ', 'two', ' three', ' four', ' five']);
    };
    const closing = await keptAlive((socket) => (handedBack = socket)).response;
    assert.equal((await closing.body.whole()).toString(), 'one two three four five');
    assert.equal(afterRequest, '');
    assert.equal(handedBack, undefined);
  });
});
