/**
 * A remote's answer passed on to our client as it streams in, when the client asked for the very
 * format the remote answered in (as a gateway passes on its origin's answer): the HTTP layer starts
 * its response with the first bytes and sends each piece as it arrives, instead of holding the whole
 * answer until its last byte and sending it again (store and forward). The same answer can still be
 * read as rows instead, when the client wants another format: whichever is taken first wins.
 */
import { ResultsFormatError, streamSparqlResults } from '../formats/index.js';
import type { RemoteExchange } from './remote-endpoint.js';
import { TypedLiteralRespeller } from './remote-typed-literals.js';
import type { ResultDocument, SolutionRow } from './sparql-service.js';

/** The body's chunks through one reader: the first ones read ahead (to see how the answer starts), then given again from the start. */
export class ReadAheadBody {
  private readonly ahead: Buffer[] = [];
  private readonly iterator: AsyncIterator<Uint8Array>;
  private ended = false;
  private started = false;

  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.iterator = chunks[Symbol.asyncIterator]();
  }

  /** The chunks read ahead so far, as one buffer. */
  get start(): Buffer {
    return this.ahead.length === 1 ? this.ahead[0]! : Buffer.concat(this.ahead);
  }

  /** Reads one more chunk ahead; false at the end of the body. */
  async readAhead(): Promise<boolean> {
    const step = await this.iterator.next();
    if (step.done) {
      this.ended = true;
      return false;
    }
    this.ahead.push(asBuffer(step.value));
    return true;
  }

  /** Every chunk from the start of the body (readable once); leaving early closes the body. */
  async *all(): AsyncGenerator<Buffer> {
    if (this.started) throw new Error('the body of the answer is read once');
    this.started = true;
    try {
      for (let chunk = this.ahead.shift(); chunk !== undefined; chunk = this.ahead.shift()) yield chunk;
      if (this.ended) return;
      for (let step = await this.iterator.next(); !step.done; step = await this.iterator.next()) yield asBuffer(step.value);
    } finally {
      await this.iterator.return?.();
    }
  }
}

/** Bytes of a SPARQL JSON answer read at most to find its variables before it is passed on. */
const HEAD_LIMIT = 64 * 1024;

/**
 * `{"head": {…, "vars": [...]` at the start of SPARQL JSON results (as every endpoint we know writes
 * them: head first). The object of the head holds no other object (only `link`, an array of strings).
 */
const HEAD_VARIABLES = /^\s*\{\s*"head"\s*:\s*\{[^{}]*?"vars"\s*:\s*(\[[^\]]*\])/;

/**
 * The variables of a SELECT's SPARQL JSON answer, read from its first chunks; undefined when they
 * are not at the start (then the answer is read as results, not passed on).
 */
export async function headVariables(body: ReadAheadBody): Promise<string[] | undefined> {
  for (let read = 0; read < HEAD_LIMIT;) {
    if (!(await body.readAhead())) return undefined;
    const start = body.start;
    read = start.length;
    const match = HEAD_VARIABLES.exec(withoutByteOrderMark(start).toString('utf8'));
    if (match === null) continue;
    let variables: unknown;
    try {
      variables = JSON.parse(match[1]!);
    } catch {
      return undefined;
    }
    return Array.isArray(variables) && variables.every((v) => typeof v === 'string') ? variables : undefined;
  }
  return undefined;
}

/**
 * A SELECT's SPARQL JSON answer, its variables known: the document passed on as it arrives
 * (respelled, see remote-typed-literals.ts), or its rows, whichever is asked for first. `release`
 * wraps an iterable so that the exchange is released at its end, failure or abandonment.
 */
export function passedOnJson(
  body: ReadAheadBody,
  mediaType: string,
  exchange: RemoteExchange,
  release: <T>(source: AsyncIterable<T>, exchange: RemoteExchange) => AsyncIterable<T>,
): { rows: AsyncIterable<SolutionRow[]>; document: ResultDocument } {
  let taken: 'document' | 'rows' | undefined;
  const document: ResultDocument = {
    mediaType,
    chunks: {
      [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
        if (taken === 'rows') throw new Error('the answer is being read as rows');
        taken = 'document';
        return release(respelled(body.all()), exchange)[Symbol.asyncIterator]();
      },
    },
  };
  const rows: AsyncIterable<SolutionRow[]> = {
    [Symbol.asyncIterator](): AsyncIterator<SolutionRow[]> {
      // The document was sent instead: nothing to read, and nothing to stop.
      if (taken === 'document') return NOTHING;
      const inner = release(parsedRows(body, mediaType), exchange)[Symbol.asyncIterator]();
      return {
        next: () => {
          if (taken === 'document') return NOTHING.next();
          taken = 'rows';
          return inner.next();
        },
        return: async () => (taken === 'document' ? NOTHING.return!() : inner.return!()),
      };
    },
  };
  return { rows, document };
}

const NOTHING: AsyncIterator<never> = {
  next: async () => ({ done: true, value: undefined }),
  return: async () => ({ done: true, value: undefined }),
};

async function* parsedRows(body: ReadAheadBody, mediaType: string): AsyncGenerator<SolutionRow[]> {
  const streamed = await streamSparqlResults(body.all(), mediaType);
  if (streamed.kind !== 'bindings') throw new ResultsFormatError('SPARQL JSON results: a boolean answer to a SELECT query');
  yield* streamed.rows;
}

/** The document's chunks with "typed-literal" respelled, and without a byte order mark (as TextDecoder reads it). */
async function* respelled(chunks: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
  const respeller = new TypedLiteralRespeller();
  let first = true;
  for await (const chunk of chunks) {
    const bytes = respeller.push(first ? withoutByteOrderMark(chunk) : chunk);
    first = false;
    if (bytes.length > 0) yield bytes;
  }
  const rest = respeller.end();
  if (rest !== undefined && rest.length > 0) yield rest;
}

/** The bytes without a leading UTF-8 byte order mark (as TextDecoder reads them: not part of the document). */
export function withoutByteOrderMark(bytes: Buffer): Buffer {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
