/**
 * The remote's answer as a QueryResult: its results or RDF document parsed as the bytes arrive, so
 * that the HTTP layer re-serializes it into whatever format our client asked for while the remote
 * is still sending. Reading stops (and the connection is closed) when our consumer stops.
 *
 * Results of a known, modest length are read whole and parsed in one go instead (JSON.parse for
 * JSON): several times faster than the incremental reader, and small enough to hold anyway.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { parseSparqlResults, ResultsFormatError, resultsFormatOf, streamSparqlResults, type ParsedResults } from '../formats/results-parser.js';
import { parseRdf } from '../formats/rdf-parser.js';
import { parseableRdfFormat } from '../formats/registry.js';
import type { Term } from '../rdf/terms.js';
import type { RemoteExchange, RemoteResponse } from './remote-endpoint.js';
import { RemoteEndpointError } from './remote-errors.js';
import type { QueryResult, SolutionRow } from './sparql-service.js';

/** What we ask the remote for: typed, streamable formats first; CSV (untyped) only as a last resort. */
export const SOLUTIONS_ACCEPT =
  'application/sparql-results+json, application/sparql-results+xml;q=0.9, text/tab-separated-values;q=0.5, text/csv;q=0.1';
export const QUADS_ACCEPT =
  'application/n-triples, text/turtle;q=0.9, application/n-quads;q=0.8, application/rdf+xml;q=0.5, application/ld+json;q=0.4';

export async function solutionsFromResponse(response: RemoteResponse, exchange: RemoteExchange, isAsk: boolean): Promise<QueryResult> {
  const { mediaType } = response;
  if (resultsFormatOf(mediaType) === undefined) {
    throw new RemoteEndpointError(`the remote endpoint ${exchange.endpoint} answered a query in ${mediaType || 'no media type'}, not a SPARQL results format`);
  }
  if (response.length !== undefined && response.length <= WHOLE_RESULTS_LIMIT) return wholeResults(response, exchange, isAsk);
  let streamed;
  try {
    streamed = await streamSparqlResults(bodyChunks(response, exchange), mediaType);
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

/** Bytes of results read whole rather than streamed (a few thousand rows). */
const WHOLE_RESULTS_LIMIT = 1024 * 1024;

/** The whole body of an answer of known, small length; the connection is released once it is read. */
async function readWhole(response: RemoteResponse, exchange: RemoteExchange): Promise<string> {
  let text: string;
  try {
    text = await wholeText(response.body);
    exchange.answeredCompletely();
  } catch (error) {
    throw exchange.failure(error);
  }
  exchange.release();
  return text;
}

async function wholeResults(response: RemoteResponse, exchange: RemoteExchange, isAsk: boolean): Promise<QueryResult> {
  const text = await readWhole(response, exchange);
  try {
    if (!isAsk && resultsFormatOf(response.mediaType) === 'json') return jsonAnswer(text, response.mediaType, exchange);
    return resultOf(parseSparqlResults(text, response.mediaType), isAsk);
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
 * length we checked). JSON.parse of BSBM Q2's 60 KB alone costs more than the rest of the request.
 * What does not look like SELECT results (a boolean) is read at once.
 */
function jsonAnswer(text: string, mediaType: string, exchange: RemoteExchange): QueryResult {
  if (!/^\s*\{/.test(text) || !text.includes('"bindings"')) return resultOf(parseSparqlResults(text, mediaType), false);
  let parsed: Extract<ParsedResults, { kind: 'bindings' }> | undefined;
  const read = (): Extract<ParsedResults, { kind: 'bindings' }> => {
    try {
      const results = parseSparqlResults(text, mediaType);
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
    document: { mediaType, text: withRecommendedLiteralTypes(text) },
  };
}

/**
 * "typed-literal", the term type of the 2007 draft that Virtuoso still writes, as the
 * Recommendation spells it. Only structure can match: inside a JSON string the quotes are escaped.
 */
function withRecommendedLiteralTypes(text: string): string {
  return text.includes('typed-literal') ? text.replace(/"type"(\s*):(\s*)"typed-literal"/g, '"type"$1:$2"literal"') : text;
}

/** The body as text, gathered from its events (no async iteration: a turn of the event loop less per chunk). */
function wholeText(body: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.once('end', () => {
      ended = true;
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      // As TextDecoder would: a byte order mark is not part of the text.
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    });
    body.once('error', reject);
    body.once('close', () => {
      if (!ended) reject(new RemoteEndpointError('the remote endpoint closed the connection before the end of its answer'));
    });
  });
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
    const text = await readWhole(response, exchange);
    return { kind: 'quads', prefixes, quads: releasingIterable(parseRdf(text, format), exchange) };
  }
  const quads = parseRdf(Readable.from(bodyChunks(response, exchange), { objectMode: false }), format);
  return { kind: 'quads', prefixes, quads: releasingIterable(quads, exchange) };
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
    for await (const chunk of response.body as AsyncIterable<Buffer>) yield chunk;
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
