/**
 * One HTTP/1.1 request and its answer on a connection (plain http), written and read by hand: the
 * request in one write, the answer's status line and headers parsed here, its body framed by
 * Content-Length, chunked transfer coding or the end of the connection. The connection is handed
 * back for the next request when the answer allows it, or closed.
 *
 * Why not node:http: each request to the remote costs a ClientRequest, an HTTP parser, an
 * IncomingMessage stream and a dozen events and ticks, about 0.2 ms of CPU per exchange on our
 * machines, which lies on every forwarded query's path twice (sending, and reading the answer).
 * One request at a time per connection, and the simple answers SPARQL endpoints send, need little
 * of that machinery. https goes through net/'s client (net/http-client.ts, undici), as plain http
 * does when this one is switched off (QUIVER_REMOTE_HTTP1=0).
 *
 * Both acknowledge the pieces of an answer at once when told to (net/piece-acks.ts).
 */
import type { Socket } from 'node:net';
import { BodyQueue, DEFAULT_ACK_PIECES, PieceAcks, type AckPieces, type ResponseBody } from '../net/index.js';

/** The body of the remote's answer, however it was received (this client's, or net/'s). */
export type RemoteBody = ResponseBody;

export interface Http1Response {
  status: number;
  statusMessage: string;
  /** Header names in lower case; a header sent twice has its values joined with ', '. */
  headers: Record<string, string>;
  body: RemoteBody;
}

/** Bytes of status line and headers we accept (node:http allows 16 KiB). */
const MAX_HEAD = 64 * 1024;

/** How long a connection whose answer has been read may wait for the remote to close it. */
const LINGER_MS = 2_000;

const enum Framing {
  /** A known number of bytes (Content-Length). */
  Length,
  /** Transfer-Encoding: chunked. */
  Chunked,
  /** Until the remote closes the connection. */
  UntilClose,
}

/**
 * The exchange of one request and its answer on `socket` (connected, or still connecting: the
 * request goes out once it is). `destroy(error)` stops it wherever it is: a pending `response` or
 * body read rejects with that error, and the connection is closed.
 */
export class Http1Exchange {
  readonly response: Promise<Http1Response>;
  private resolveResponse!: (response: Http1Response) => void;
  private rejectResponse!: (error: Error) => void;
  private head: Buffer | undefined;
  private body: Http1Body | undefined;
  private finished = false;
  /** Whether the answer allows another request on the connection (HTTP/1.1, not `Connection: close`). */
  private reusable = false;
  /** The empty lines written to acknowledge pieces of the answer, which may keep the connection from serving another. */
  private readonly acks: PieceAcks;

  /**
   * `keepAlive`: the request asked to keep the connection (no `Connection: close`); `onComplete` is
   * called once the answer has been read to its end, with the connection when it can carry
   * another request (then it is the caller's, our listeners gone), else undefined (it closes);
   * `ackPieces`: see AckPieces.
   */
  constructor(
    private readonly socket: Socket,
    request: Buffer,
    private readonly keepAlive: boolean,
    private readonly onComplete?: (reusable: Socket | undefined) => void,
    ackPieces: AckPieces = DEFAULT_ACK_PIECES,
  ) {
    this.response = new Promise((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
    });
    this.acks = new PieceAcks(socket, ackPieces);
    socket.on('data', this.onData).on('end', this.onEnd).on('error', this.onError).on('close', this.onClose);
    socket.write(request);
  }

  /** Whether the exchange is over: its connection closed, or its answer read to the end. */
  get destroyed(): boolean {
    return this.finished || this.socket.destroyed;
  }

  /**
   * Closes the connection, unless the answer was already read to its end: the connection is then
   * no longer this exchange's (it may carry the next request), however far its reader has got.
   */
  destroy(error?: Error): void {
    if (!this.destroyed) this.socket.destroy(error);
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.body !== undefined) this.body.receive(chunk);
    else this.receiveHead(chunk);
    // Only once the head says the remote keeps the connection (see PieceAcks.read).
    if (!this.finished && this.reusable) this.acks.read();
  };

  private receiveHead(chunk: Buffer): void {
    if (this.finished) return;
    let head = this.head === undefined ? chunk : Buffer.concat([this.head, chunk]);
    // Interim answers (100 Continue, 103 Early Hints) come before the real one: skipped.
    for (;;) {
      const end = endOfHead(head);
      if (end < 0) {
        if (head.length > MAX_HEAD) return this.fail(protocolError('HPE_HEADER_OVERFLOW', 'the header of the answer is too large'));
        this.head = head;
        return;
      }
      let parsed: ParsedHead;
      try {
        parsed = parseHead(head.toString('latin1', 0, end));
      } catch (error) {
        return this.fail(error as Error);
      }
      head = head.subarray(end);
      if (parsed.status >= 200 || parsed.status === 101) return this.startBody(parsed, head);
    }
  }

  private startBody(parsed: ParsedHead, rest: Buffer): void {
    this.head = undefined;
    let framing: Framing;
    let length = 0;
    const transferEncoding = parsed.headers['transfer-encoding'];
    const contentLength = parsed.headers['content-length'];
    if (parsed.status === 204 || parsed.status === 304) {
      framing = Framing.Length;
    } else if (transferEncoding !== undefined) {
      framing = /(?:^|,)\s*chunked\s*$/i.test(transferEncoding) ? Framing.Chunked : Framing.UntilClose;
    } else if (contentLength !== undefined) {
      const value = sameValues(contentLength);
      if (value === undefined) return this.fail(protocolError('HPE_INVALID_CONTENT_LENGTH', `invalid Content-Length: ${contentLength}`));
      framing = Framing.Length;
      length = value;
    } else {
      framing = Framing.UntilClose;
    }
    this.reusable =
      this.keepAlive &&
      parsed.version === '1.1' &&
      framing !== Framing.UntilClose &&
      parsed.status !== 101 &&
      !/(?:^|,)\s*close\s*(?:,|$)/i.test(parsed.headers.connection ?? '');
    const body = new Http1Body(this.socket, framing, length, this.complete);
    this.body = body;
    this.resolveResponse({ status: parsed.status, statusMessage: parsed.statusMessage, headers: parsed.headers, body });
    if (rest.length > 0 || framing === Framing.Length) body.receive(rest);
  }

  /** The answer was read to its end: the connection goes back to the caller, or closes. */
  private readonly complete = (leftover: boolean): void => {
    this.finished = true;
    const socket = this.socket;
    socket.off('data', this.onData).off('end', this.onEnd).off('close', this.onClose).off('error', this.onError);
    const mayCarryAnother = this.acks.complete();
    if (this.reusable && mayCarryAnother && !leftover && !socket.readableEnded && this.onComplete !== undefined) {
      return this.onComplete(socket);
    }
    socket.on('error', ignore);
    // A connection the remote keeps open is closed by us, after this turn of the event loop (the
    // answer goes to our client first). Else the remote closes it (we or it asked so), and ours
    // closes after it (a socket ends its side when the other side has ended): the remote, which
    // closed first, keeps the closed connection's TIME_WAIT, not us; one that stays open is
    // closed after a while.
    if (socket.readableEnded) socket.destroy();
    else if (this.reusable) setImmediate(() => socket.destroy());
    else socket.setTimeout(LINGER_MS, () => socket.destroy());
    this.onComplete?.(undefined);
  };

  /** The remote closed its side (EOF). */
  private readonly onEnd = (): void => {
    if (this.body !== undefined) return this.body.endOfConnection();
    // Before a whole header: as node:http says it, a connection closed under the request.
    this.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
  };

  private readonly onError = (error: Error): void => this.fail(error);

  /** Closed without an error (destroyed without a reason, or after the end): whatever still waits fails. */
  private readonly onClose = (): void => {
    this.fail(Object.assign(new Error('the connection closed before the end of the answer'), { code: 'ECONNRESET' }));
  };

  private fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.socket.off('data', this.onData).off('end', this.onEnd).off('close', this.onClose).off('error', this.onError);
    this.socket.on('error', ignore);
    if (this.body !== undefined) this.body.fail(error);
    else this.rejectResponse(error);
    this.socket.destroy();
  }
}

/**
 * The body as it arrives: its framing removed here, its bytes queued for the consumer by net/'s
 * BodyQueue, the connection its source.
 */
class Http1Body implements RemoteBody {
  private readonly queue: BodyQueue;
  private remaining: number;
  private readonly chunked: ChunkedDecoder | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly framing: Framing,
    length: number,
    private readonly onComplete: (leftover: boolean) => void,
  ) {
    this.remaining = length;
    this.chunked = framing === Framing.Chunked ? new ChunkedDecoder() : undefined;
    this.queue = new BodyQueue({
      pause: () => socket.pause(),
      resume: () => {
        if (socket.isPaused()) socket.resume();
      },
      destroy: () => socket.destroy(),
    });
  }

  /** Bytes from the connection (their framing still on). */
  receive(bytes: Buffer): void {
    if (this.queue.settled) return;
    switch (this.framing) {
      case Framing.Length:
        if (bytes.length >= this.remaining) {
          const leftover = bytes.length > this.remaining;
          if (this.remaining > 0) this.add(leftover ? bytes.subarray(0, this.remaining) : bytes);
          this.remaining = 0;
          return this.end(leftover);
        }
        this.remaining -= bytes.length;
        if (bytes.length > 0) this.add(bytes);
        return;
      case Framing.Chunked: {
        let rest: number;
        try {
          rest = this.chunked!.decode(bytes, this.add);
        } catch (error) {
          this.socket.destroy(error as Error);
          return;
        }
        if (rest >= 0) this.end(rest > 0);
        return;
      }
      case Framing.UntilClose:
        this.add(bytes);
        return;
    }
  }

  /** The remote closed the connection: the end of a body framed by it, an answer cut short otherwise. */
  endOfConnection(): void {
    if (this.framing === Framing.UntilClose) this.end(false);
    else this.socket.destroy(Object.assign(new Error('the remote endpoint closed the connection before the end of its answer'), { code: 'ECONNRESET' }));
  }

  fail(error: Error): void {
    this.queue.fail(error);
  }

  whole(): Promise<Buffer> {
    return this.queue.whole();
  }

  chunks(): AsyncGenerator<Buffer> {
    return this.queue.chunks();
  }

  discard(): void {
    this.destroy();
  }

  destroy(): void {
    this.queue.destroy();
  }

  private readonly add = (chunk: Buffer): void => this.queue.push(chunk);

  private end(leftover: boolean): void {
    this.queue.end(() => this.onComplete(leftover));
  }
}

const enum ChunkState {
  Size,
  Data,
  DataEnd,
  Trailers,
}

/** Chunked transfer coding (RFC 9112 §7.1) taken off a body, byte run by byte run. */
class ChunkedDecoder {
  private state = ChunkState.Size;
  private line = '';
  private remaining = 0;

  /**
   * Passes the data in `bytes` to `add`. Once the last chunk and the trailers have been read: the
   * number of bytes left over after them; -1 while the body goes on.
   */
  decode(bytes: Buffer, add: (chunk: Buffer) => void): number {
    let at = 0;
    while (at < bytes.length) {
      switch (this.state) {
        case ChunkState.Data: {
          const take = Math.min(this.remaining, bytes.length - at);
          add(bytes.subarray(at, at + take));
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = ChunkState.DataEnd;
          break;
        }
        case ChunkState.DataEnd: {
          // CRLF after the data (a bare LF accepted).
          const byte = bytes[at++]!;
          if (byte === 0x0a) this.state = ChunkState.Size;
          else if (byte !== 0x0d) throw protocolError('HPE_INVALID_CHUNK_SIZE', 'no line break after a chunk of the answer');
          break;
        }
        case ChunkState.Size:
        case ChunkState.Trailers: {
          const newline = bytes.indexOf(0x0a, at);
          const end = newline < 0 ? bytes.length : newline;
          this.line += bytes.toString('latin1', at, end);
          if (this.line.length > MAX_HEAD) throw protocolError('HPE_CHUNK_EXTENSIONS_OVERFLOW', 'a chunk size line or trailer of the answer is too long');
          at = end;
          if (newline < 0) break;
          at++;
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (this.state === ChunkState.Trailers) {
            if (line === '') return bytes.length - at;
            break;
          }
          const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line)?.[1];
          if (size === undefined) throw protocolError('HPE_INVALID_CHUNK_SIZE', `invalid chunk size line in the answer: ${line.slice(0, 40)}`);
          this.remaining = parseInt(size, 16);
          this.state = this.remaining === 0 ? ChunkState.Trailers : ChunkState.Data;
          break;
        }
      }
    }
    return -1;
  }
}

interface ParsedHead {
  version: string;
  status: number;
  statusMessage: string;
  headers: Record<string, string>;
}

/** Where the body starts: after the empty line that ends the head (CRLF CRLF, or bare LFs); -1 if not there yet. */
function endOfHead(bytes: Buffer): number {
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) {
    if (bytes[at + 1] === 0x0a) return at + 2;
    if (bytes[at + 1] === 0x0d && bytes[at + 2] === 0x0a) return at + 3;
    if (at + 2 >= bytes.length) return -1;
  }
  return -1;
}

const STATUS_LINE = /^HTTP\/(1\.[01]) (\d{3})(?: (.*))?$/;

function parseHead(text: string): ParsedHead {
  const lines = text.split('\n');
  const statusLine = trimCarriageReturn(lines[0]!);
  const status = STATUS_LINE.exec(statusLine);
  if (status === null) throw protocolError('HPE_INVALID_CONSTANT', `not an HTTP/1.1 answer: ${statusLine.slice(0, 40)}`);
  const headers: Record<string, string> = {};
  let last: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = trimCarriageReturn(lines[i]!);
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && last !== undefined) {
      // An obsolete folded continuation of the header before.
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw protocolError('HPE_INVALID_HEADER_TOKEN', `invalid header line in the answer: ${line.slice(0, 40)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    last = name;
  }
  return { version: status[1]!, status: Number(status[2]), statusMessage: status[3] ?? '', headers };
}

function trimCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Content-Length as a number: a single value, or the same value repeated (`10, 10`); undefined if invalid. */
function sameValues(header: string): number | undefined {
  const values = header.split(',').map((value) => value.trim());
  if (!values.every((value) => /^\d{1,15}$/.test(value) && value === values[0])) return undefined;
  return Number(values[0]);
}

/** A malformed answer, with a code as node:http's parser gives it (shown in our 502's message). */
function protocolError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function ignore(): void {}
