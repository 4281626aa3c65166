/**
 * Query results as a stream of text chunks, one per batch, written by the formats layer. The
 * consumer (Fastify piping into the socket) pulls, so a slow client slows evaluation instead of
 * filling memory; returning early (client gone) closes the result's iterator, which stops evaluation.
 */
import type { QueryResult, SolutionRow } from '../service/index.js';
import type { Quad } from '../rdf/index.js';
import type { HtmlOptions, TextSink } from '../formats/index.js';
import { createQuadsSerializer, createSolutionsSerializer } from '../formats/index.js';
import type { RdfFormat, ResultsFormat } from '../formats/index.js';

/** Collects what a serializer writes for one batch. */
class ChunkSink implements TextSink {
  private parts: string[] = [];
  write(chunk: string): void {
    this.parts.push(chunk);
  }
  take(): string {
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [];
    return text;
  }
}

/**
 * A started result, its first batch already computed: errors that happen before any output can still
 * be answered with a proper status instead of a cut-off body.
 */
export interface PreparedResult {
  result: QueryResult;
  first: IteratorResult<SolutionRow[] | Quad[]> | undefined;
  iterator: AsyncIterator<SolutionRow[] | Quad[]> | undefined;
}

export async function prepareResult(result: QueryResult): Promise<PreparedResult> {
  if (result.kind === 'boolean' || result.kind === 'explain') return { result, first: undefined, iterator: undefined };
  const source: AsyncIterable<SolutionRow[] | Quad[]> = result.kind === 'bindings' ? result.rows : result.quads;
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  return { result, first, iterator };
}

/** Stops evaluation of a result nobody will read (e.g. after a 406). */
export async function discardResult(result: QueryResult): Promise<void> {
  if (result.kind === 'boolean' || result.kind === 'explain') return;
  const source: AsyncIterable<unknown> = result.kind === 'bindings' ? result.rows : result.quads;
  await source[Symbol.asyncIterator]().return?.();
}

export async function discardPrepared(prepared: PreparedResult): Promise<void> {
  await prepared.iterator?.return?.();
}

export async function* serializeResult(prepared: PreparedResult, format: string, htmlOptions: HtmlOptions): AsyncGenerator<string> {
  const sink = new ChunkSink();
  const { result } = prepared;
  if (result.kind === 'boolean') {
    createSolutionsSerializer(format as ResultsFormat, sink, htmlOptions).boolean(result.value);
    yield sink.take();
    return;
  }
  // An explanation is answered as JSON by the query handler, never in a result format.
  if (result.kind === 'explain') return;
  const iterator = prepared.iterator!;
  try {
    if (result.kind === 'bindings') {
      const serializer = createSolutionsSerializer(format as ResultsFormat, sink, htmlOptions);
      serializer.begin(result.variables);
      for (let step = prepared.first!; !step.done; step = await iterator.next()) {
        serializer.rows(step.value as SolutionRow[]);
        const chunk = sink.take();
        if (chunk) yield chunk;
      }
      serializer.end();
    } else {
      const serializer = createQuadsSerializer(format as RdfFormat, sink, htmlOptions);
      serializer.begin(result.prefixes);
      for (let step = prepared.first!; !step.done; step = await iterator.next()) {
        serializer.quads(step.value as Quad[]);
        const chunk = sink.take();
        if (chunk) yield chunk;
      }
      serializer.end();
    }
    yield sink.take();
  } finally {
    // Reached early when the client went away or serialization failed: stop evaluation.
    await iterator.return?.();
  }
}
