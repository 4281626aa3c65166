/**
 * The remote's answer as a QueryResult: its results or RDF document parsed as the bytes arrive, so
 * that the HTTP layer re-serializes it into whatever format our client asked for while the remote
 * is still sending. Reading stops (and the connection is closed) when our consumer stops.
 */
import { Readable } from 'node:stream';
import { resultsFormatOf, streamSparqlResults } from '../formats/results-parser.js';
import { parseRdf } from '../formats/rdf-parser.js';
import { parseableRdfFormat } from '../formats/registry.js';
import type { Term } from '../rdf/terms.js';
import type { RemoteExchange } from './remote-endpoint.js';
import { RemoteEndpointError } from './remote-errors.js';
import type { QueryResult, SolutionRow } from './sparql-service.js';

/** What we ask the remote for: typed, streamable formats first; CSV (untyped) only as a last resort. */
export const SOLUTIONS_ACCEPT =
  'application/sparql-results+json, application/sparql-results+xml;q=0.9, text/tab-separated-values;q=0.5, text/csv;q=0.1';
export const QUADS_ACCEPT =
  'application/n-triples, text/turtle;q=0.9, application/n-quads;q=0.8, application/rdf+xml;q=0.5, application/ld+json;q=0.4';

export async function solutionsFromResponse(response: Response, exchange: RemoteExchange, isAsk: boolean): Promise<QueryResult> {
  const mediaType = mediaTypeOf(response);
  if (resultsFormatOf(mediaType) === undefined) {
    throw new RemoteEndpointError(`the remote endpoint ${exchange.endpoint} answered a query in ${mediaType || 'no media type'}, not a SPARQL results format`);
  }
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

export function quadsFromResponse(response: Response, exchange: RemoteExchange, prefixes: Record<string, string>): QueryResult {
  const mediaType = mediaTypeOf(response);
  const format = parseableRdfFormat(mediaType);
  if (format === undefined) {
    throw new RemoteEndpointError(`the remote endpoint ${exchange.endpoint} answered a graph query in ${mediaType || 'no media type'}, not an RDF format`);
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

function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

async function* bodyChunks(response: Response, exchange: RemoteExchange): AsyncGenerator<Uint8Array> {
  if (!response.body) {
    exchange.answeredCompletely();
    return;
  }
  const reader = response.body.getReader();
  let done = false;
  try {
    while (true) {
      const step = await reader.read();
      if (step.done) {
        done = true;
        exchange.answeredCompletely();
        return;
      }
      yield step.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
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
