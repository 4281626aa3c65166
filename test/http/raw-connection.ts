/**
 * One HTTP/1.1 connection driven byte by byte, for what fetch cannot do: send a body slowly (or
 * never), pipeline several requests in one write, stop reading, and see when the server closes.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  private received = Buffer.alloc(0);
  private readonly opened = Date.now();
  private closedAt: number | undefined;
  private readonly closed: Promise<void>;
  private wake: () => void = () => {};

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.closedAt = Date.now();
        this.wake();
        resolve();
      }),
    );
  }

  /** A connection to the http://host:port origin. */
  static open(origin: string): Promise<RawConnection> {
    const { hostname, port } = new URL(origin);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** Sends `data` one byte every `everyMs` until the connection closes; returns the stop function. */
  trickle(data: string, everyMs: number): () => void {
    let at = 0;
    const timer = setInterval(() => {
      if (this.socket.destroyed || at >= data.length) clearInterval(timer);
      else this.write(data[at++]!);
    }, everyMs);
    return () => clearInterval(timer);
  }

  get isClosed(): boolean {
    return this.closedAt !== undefined;
  }

  /** How long after opening the server closed the connection; fails past `limitMs`. */
  async closedWithin(limitMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the connection is still open after ${limitMs} ms`)), limitMs);
    });
    try {
      await Promise.race([this.closed, late]);
    } finally {
      clearTimeout(timer);
    }
    return this.closedAt! - this.opened;
  }

  /** The next `count` responses, in order; fails when the connection closes first or past `limitMs`. */
  async responses(count: number, limitMs = 10_000): Promise<RawResponse[]> {
    const deadline = Date.now() + limitMs;
    const parsed: RawResponse[] = [];
    while (parsed.length < count) {
      const next = this.takeResponse();
      if (next) {
        parsed.push(next);
        continue;
      }
      if (this.isClosed)
        throw new Error(`the connection closed after ${parsed.length} of ${count} responses: ${this.received.toString('latin1').slice(0, 300)}`);
      if (Date.now() > deadline) throw new Error(`only ${parsed.length} of ${count} responses in ${limitMs} ms`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    return parsed;
  }

  close(): void {
    this.socket.destroy();
  }

  /** Removes one whole response from what was received, or returns undefined while it is incomplete. */
  private takeResponse(): RawResponse | undefined {
    const headEnd = this.received.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
    const rest = this.received.subarray(headEnd + 4);
    const body =
      status === 204 || status === 304
        ? { bytes: Buffer.alloc(0), consumed: 0 }
        : headers['transfer-encoding'] === 'chunked'
          ? dechunk(rest)
          : fixedLength(rest, headers['content-length'], this.isClosed);
    if (body === undefined) return undefined;
    this.received = rest.subarray(body.consumed);
    return { status, headers, body: body.bytes.toString('utf8') };
  }
}

function fixedLength(rest: Buffer, contentLength: string | undefined, closed: boolean): { bytes: Buffer; consumed: number } | undefined {
  if (contentLength === undefined) return closed ? { bytes: rest, consumed: rest.length } : undefined;
  const length = Number(contentLength);
  return rest.length >= length ? { bytes: rest.subarray(0, length), consumed: length } : undefined;
}

function dechunk(rest: Buffer): { bytes: Buffer; consumed: number } | undefined {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
    const dataEnd = lineEnd + 2 + size;
    if (rest.length < dataEnd + 2) return undefined;
    if (size === 0) return { bytes: Buffer.concat(chunks), consumed: dataEnd + 2 };
    chunks.push(rest.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/** The bytes of one request: `method target`, the headers, and a body with its Content-Length. */
export function rawRequest(method: string, target: string, headers: Record<string, string> = {}, body?: string): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return lines.join('\r\n') + '\r\n\r\n' + (body ?? '');
}
