/**
 * The remote's answer as a QueryResult: its results or RDF document parsed as the bytes arrive, so
 * that the HTTP layer re-serializes it into whatever format our client asked for while the remote
 * is still sending. Reading stops (and the connection is closed) when our consumer stops.
 *
 * Results of a known, modest length are read whole and parsed in one go instead (JSON.parse for
 * JSON): several times faster than the incremental reader, and small enough to hold anyway.
 */
import { Readable } from 'node:stream';
import { parseJsonResults, parseSparqlResults, ResultsFormatError, resultsFormatOf, streamSparqlResults, type ParsedResults } from '../formats/index.js';
import { parseRdf } from '../formats/index.js';
import { formatForMediaType, parseableRdfFormat } from '../formats/index.js';
import type { Quad, Term } from '../rdf/index.js';
import type { RemoteExchange, RemoteResponse } from './remote-endpoint.js';
import { RemoteEndpointError } from './remote-errors.js';
import { headVariables, passedOnJson, ReadAheadBody, withoutByteOrderMark } from './remote-pass-through.js';
import { respellTypedLiterals } from './remote-typed-literals.js';
import type { QueryResult, ResultDocument, SolutionRow } from './sparql-service.js';

/** What we ask the remote for: typed, streamable formats first; CSV (untyped) only as a last resort. */
export const SOLUTIONS_ACCEPT = 'application/sparql-results+json, application/sparql-results+xml;q=0.9, text/tab-separated-values;q=0.5, text/csv;q=0.1';
export const QUADS_ACCEPT = 'application/n-triples, text/turtle;q=0.9, application/n-quads;q=0.8, application/rdf+xml;q=0.5, application/ld+json;q=0.4';

export async function solutionsFromResponse(response: RemoteResponse, exchange: RemoteExchange, isAsk: boolean): Promise<QueryResult> {
  const { mediaType } = response;
  if (resultsFormatOf(mediaType) === undefined) {
    throw new RemoteEndpointError(`the remote endpoint ${exchange.endpoint} answered a query in ${mediaType || 'no media type'}, not a SPARQL results format`);
  }
  if (response.length !== undefined && response.length <= WHOLE_RESULTS_LIMIT) return wholeResults(response, exchange, isAsk);
  if (!isAsk && resultsFormatOf(mediaType) === 'json') return jsonResults(response, exchange);
  return streamedResults(bodyChunks(response, exchange), mediaType, exchange, isAsk);
}

/** Results parsed as their chunks arrive; a boolean answer releases the exchange at once. */
async function streamedResults(chunks: AsyncIterable<Uint8Array>, mediaType: string, exchange: RemoteExchange, isAsk: boolean): Promise<QueryResult> {
  let streamed;
  try {
    streamed = await streamSparqlResults(chunks, mediaType);
  } catch (error) {
    throw exchange.failure(error);
  }
  if (streamed.kind === 'boolean') {
    exchange.release();
    return streamed;
  }
  const rows = releasingIterable(streamed.rows, exchange);
  if (isAsk) return { kind: 'boolean', value: await askAnswerOf(rows) };
  return { kind: 'bindings', variables: streamed.variables, rows };
}

/**
 * A SELECT's SPARQL JSON answer too long to be read whole (or of unknown length): once its head has
 * arrived (the variables), the result is there. A client that asked for SPARQL JSON gets the
 * remote's document as it streams in (byte for byte but for the term type respelled, see
 * remote-pass-through.ts); one that asked for another format gets its rows. An answer that does not
 * start with its head is read as results.
 *
 * Not for answers read whole: passed on as a stream, BSBM Q2's 50-80 KB reached our client 0.1 ms
 * later after the remote's last byte than when sent in one write (the stream's pieces, its chunked
 * coding's last write), and small answers, which arrive in one read, 0.15 ms later.
 */
async function jsonResults(response: RemoteResponse, exchange: RemoteExchange): Promise<QueryResult> {
  const body = new ReadAheadBody(bodyChunks(response, exchange));
  let variables: string[] | undefined;
  try {
    variables = await headVariables(body);
  } catch (error) {
    throw exchange.failure(error);
  }
  if (variables !== undefined) {
    const { rows, document } = passedOnJson(body, response.mediaType, exchange, releasingIterable);
    return { kind: 'bindings', variables, rows, document };
  }
  return streamedResults(body.all(), response.mediaType, exchange, false);
}

/** Bytes of results read whole rather than streamed (a few thousand rows). */
const WHOLE_RESULTS_LIMIT = 1024 * 1024;

/** The whole body of an answer of known, small length; the connection is released once it is read. */
async function readWhole(response: RemoteResponse, exchange: RemoteExchange): Promise<WholeBody> {
  let body: WholeBody;
  try {
    const bytes = await response.body.whole();
    exchange.answeredCompletely();
    body = new WholeBody(withoutByteOrderMark(bytes));
  } catch (error) {
    throw exchange.failure(error);
  }
  exchange.release();
  return body;
}

async function wholeResults(response: RemoteResponse, exchange: RemoteExchange, isAsk: boolean): Promise<QueryResult> {
  const body = await readWhole(response, exchange);
  try {
    if (!isAsk && resultsFormatOf(response.mediaType) === 'json') return jsonAnswer(body, response.mediaType, exchange);
    return resultOf(await parseSparqlResults(body.text, response.mediaType), isAsk);
  } catch (error) {
    throw exchange.failure(error);
  }
}

function resultOf(parsed: ParsedResults, isAsk: boolean): QueryResult {
  if (parsed.kind === 'boolean') return parsed;
  if (isAsk) return { kind: 'boolean', value: parsed.rows.length > 0 && isTrue(parsed.rows[0]![0]) };
  return { kind: 'bindings', variables: parsed.variables, rows: oneBatch(() => parsed.rows, undefined) };
}

/**
 * A SPARQL JSON answer to a SELECT, read only when someone needs its rows or variables: a client
 * that asked for JSON gets the document itself, as a gateway passes on its origin's answer (whose
 * length we checked), byte for byte but for the term type (remote-typed-literals.ts). Decoding, parsing and encoding
 * BSBM Q2's 60 KB again each cost more than the rest of the request.
 * What does not look like SELECT results (a boolean) is read at once.
 */
function jsonAnswer(body: WholeBody, mediaType: string, exchange: RemoteExchange): QueryResult {
  if (!startsWithBrace(body.bytes) || !body.bytes.includes('"bindings"')) return resultOf(parseJsonResults(body.text), false);
  let parsed: Extract<ParsedResults, { kind: 'bindings' }> | undefined;
  const read = (): Extract<ParsedResults, { kind: 'bindings' }> => {
    try {
      const results = parseJsonResults(body.text);
      if (results.kind !== 'bindings') throw new ResultsFormatError('SPARQL JSON results: a boolean answer to a SELECT query');
      return results;
    } catch (error) {
      // Read after the exchange ended: still the remote's failure (a 502), not ours.
      throw exchange.failure(error);
    }
  };
  return {
    kind: 'bindings',
    get variables(): string[] {
      parsed ??= read();
      return parsed.variables;
    },
    rows: oneBatch(() => (parsed ??= read()).rows, undefined),
    document: documentOf(mediaType, respellTypedLiterals(body.bytes) as Buffer),
  };
}

function startsWithBrace(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte === 0x7b) return true;
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  }
  return false;
}

/** The remote's document as it is sent on: its bytes, and its text only if someone asks for it. */
function documentOf(mediaType: string, bytes: Buffer): ResultDocument {
  let text: string | undefined;
  return {
    mediaType,
    bytes,
    get text(): string {
      return (text ??= bytes.toString('utf8'));
    },
  };
}

/** A body read whole: its bytes (a byte order mark left out), and its text when first asked for. */
class WholeBody {
  private decoded: string | undefined;
  constructor(readonly bytes: Buffer) {}

  get text(): string {
    return (this.decoded ??= this.bytes.toString('utf8'));
  }
}

/** The rows, read when first asked for; a failure to read them is the remote's (a 502). */
async function* oneBatch(read: () => SolutionRow[], exchange: RemoteExchange | undefined): AsyncGenerator<SolutionRow[]> {
  let rows: SolutionRow[];
  try {
    rows = read();
  } catch (error) {
    throw exchange ? exchange.failure(error) : error;
  }
  if (rows.length > 0) yield rows;
}

export async function quadsFromResponse(response: RemoteResponse, exchange: RemoteExchange, prefixes: Record<string, string>): Promise<QueryResult> {
  const { mediaType } = response;
  const format = parseableRdfFormat(mediaType);
  if (format === undefined) {
    throw new RemoteEndpointError(`the remote endpoint ${exchange.endpoint} answered a graph query in ${mediaType || 'no media type'}, not an RDF format`);
  }
  if (response.length !== undefined && response.length <= WHOLE_RESULTS_LIMIT) {
    const body = await readWhole(response, exchange);
    // Parsed only when a client wants another format than the remote's (the parser is not even made before).
    const quads: AsyncIterable<Quad[]> = { [Symbol.asyncIterator]: () => parseRdf(body.text, format)[Symbol.asyncIterator]() };
    return { kind: 'quads', prefixes, quads: releasingIterable(quads, exchange), document: graphDocument(body, mediaType) };
  }
  const quads = parseRdf(Readable.from(bodyChunks(response, exchange), { objectMode: false }), format);
  return { kind: 'quads', prefixes, quads: releasingIterable(quads, exchange) };
}

/**
 * The remote's RDF document, passed on as it is to a client that asked for its format (as a gateway
 * passes on its origin's answer), under our name of that format's media type (`text/plain` is
 * N-Triples' old name).
 */
function graphDocument(body: WholeBody, mediaType: string): ResultDocument | undefined {
  const ours = formatForMediaType(mediaType, 'rdf')?.mediaTypes[0];
  return ours === undefined ? undefined : documentOf(ours, body.bytes);
}

/**
 * Some endpoints (Virtuoso 7.2) answer ASK with a table of one cell (`__ASK_RETVAL` = 1) or no
 * row at all instead of a boolean document: the answer is whether a row says something true.
 */
async function askAnswerOf(rows: AsyncIterable<SolutionRow[]>): Promise<boolean> {
  const iterator = rows[Symbol.asyncIterator]();
  try {
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      if (step.value.length > 0) return isTrue(step.value[0]![0]);
    }
    return false;
  } finally {
    await iterator.return?.();
  }
}

function isTrue(term: Term | undefined): boolean {
  return term !== undefined && !['0', 'false', ''].includes(term.value.trim().toLowerCase());
}

/** The body's bytes; read to its end, the exchange is told so (its connection may serve again). */
async function* bodyChunks(response: RemoteResponse, exchange: RemoteExchange): AsyncGenerator<Uint8Array> {
  let done = false;
  try {
    for await (const chunk of response.body.chunks()) yield chunk;
    done = true;
    exchange.answeredCompletely();
  } finally {
    // Abandoned or failed halfway: the connection cannot serve another request.
    if (!done) response.body.destroy();
  }
}

/**
 * The source's items, with errors turned into ours and the exchange released once the answer
 * is read to its end, fails, or is abandoned — even by a consumer that never asked for an item.
 */
function releasingIterable<T>(source: AsyncIterable<T>, exchange: RemoteExchange): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let inner: AsyncIterator<T> | undefined;
      return {
        async next(): Promise<IteratorResult<T>> {
          try {
            inner ??= source[Symbol.asyncIterator]();
            const step = await inner.next();
            if (step.done) exchange.release();
            return step;
          } catch (error) {
            const failure = exchange.failure(error);
            exchange.release();
            throw failure;
          }
        },
        async return(): Promise<IteratorResult<T>> {
          try {
            await inner?.return?.();
          } catch {
            // Closing a stream that already failed: nothing left to report.
          } finally {
            exchange.release();
          }
          return { done: true, value: undefined };
        },
      };
    },
  };
}
