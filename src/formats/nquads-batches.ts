/**
 * parseRdf for N-Triples and N-Quads: a document (a byte or text stream, gzip-compressed or not, or
 * a whole string) read line by line with nquads-reader.ts into batches of RDF/JS quads. Reading is
 * pulled by the consumer: the next chunk is read only when the batches of the last are taken, so a
 * large document never sits in memory and a consumer that stops (a Graph Store PUT past its time
 * limit) stops the reading.
 */
import { StringDecoder } from 'node:string_decoder';
import { defaultGraph, factory, type Quad, type Term } from '../rdf/index.js';
import { documentBlankPrefix } from './document-blank-nodes.js';
import { NQuadsReader, RdfTermBuilder, type StatementSink } from './nquads-reader.js';
import { RdfSyntaxError } from './rdf-syntax-error.js';
import { gunzipped } from './gzip-input.js';

export interface NQuadsBatchOptions {
  /** The graph of statements that name none (default: the default graph). */
  graph?: Term;
  gzip?: boolean;
  batchSize: number;
  skipInvalid?: (error: RdfSyntaxError) => void;
}

const NEWLINE = '\n';
/** Characters of a string document read at a time. */
const STRING_SLICE = 1 << 16;
/** A byte order mark, allowed before the first line (N3.js read past it, as decoders of UTF-8 may). */
const BOM = 0xfeff;

export function readNQuadsBatches(input: NodeJS.ReadableStream | string, quads: boolean, options: NQuadsBatchOptions): AsyncIterable<Quad[]> {
  return {
    async *[Symbol.asyncIterator]() {
      const batchSize = options.batchSize;
      const reader = new NQuadsReader<Term>(new RdfTermBuilder(), {
        quads,
        blankPrefix: documentBlankPrefix(),
        defaultGraph: options.graph ?? defaultGraph(),
        skipInvalidIri: options.skipInvalid,
      });
      // Full batches wait here until the end of the line that filled them (a line may hold more
      // than one statement, where a carriage return separates them).
      const ready: Quad[][] = [];
      let batch: Quad[] = [];
      const sink = (s: Term, p: Term, o: Term, g: Term): void => {
        batch.push(factory.quad(s as Quad['subject'], p as Quad['predicate'], o as Quad['object'], g as Quad['graph']));
        if (batch.length === batchSize) {
          ready.push(batch);
          batch = [];
        }
      };
      const decoder = new StringDecoder('utf8');
      let rest = '';
      let first = true;
      const chunks = typeof input === 'string' ? stringSlices(input) : chunksOf(input, options.gzip === true);
      for await (const chunk of chunks) {
        let text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
        if (first && text.length > 0) {
          first = false;
          if (text.charCodeAt(0) === BOM) text = text.slice(1);
        }
        const lastLineFeed = text.lastIndexOf(NEWLINE);
        if (lastLineFeed < 0) {
          rest = text;
          continue;
        }
        readLines(reader, text, lastLineFeed, sink);
        rest = text.slice(lastLineFeed + 1);
        while (ready.length > 0) yield ready.shift()!;
      }
      rest += decoder.end();
      if (rest.length > 0) readLines(reader, rest, rest.length, sink);
      while (ready.length > 0) yield ready.shift()!;
      if (batch.length > 0) yield batch;
    },
  };
}

/** Reads the lines of text[0, end), the last one ending at a line feed or at `end`. */
function readLines(reader: NQuadsReader<Term>, text: string, end: number, sink: StatementSink<Term>): void {
  let start = 0;
  while (start <= end) {
    let lineEnd = text.indexOf(NEWLINE, start);
    if (lineEnd < 0 || lineEnd > end) lineEnd = end;
    reader.parseLine(text.slice(start, lineEnd), sink);
    start = lineEnd + 1;
  }
}

/**
 * A document given as a string, in slices that end at a line feed: batches come out (and the
 * consumer may stop) as it goes, rather than after the whole document was read in one run.
 */
function* stringSlices(text: string): Generator<string> {
  for (let at = 0; at < text.length;) {
    const lineFeed = text.indexOf(NEWLINE, Math.min(at + STRING_SLICE, text.length - 1));
    const end = lineFeed < 0 ? text.length : lineFeed + 1;
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * The chunks of a stream (decompressed when `gzip`), read as they are asked for. Stopped early (by
 * the consumer or an error), it lets go of the caller's stream without destroying it, and destroys
 * only the decompressor it made.
 */
async function* chunksOf(input: NodeJS.ReadableStream, gzip: boolean): AsyncGenerator<Buffer | string> {
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const onInputError = (error: Error): void => {
    failure ??= error;
    notify();
  };
  const onEnd = (): void => {
    ended = true;
    notify();
  };
  const source = gzip ? gunzipped(input, onInputError) : input;
  input.on('error', onInputError);
  source.on('readable', notify);
  source.on('end', onEnd);
  try {
    for (;;) {
      if (failure !== undefined) throw failure;
      const chunk = source.read() as Buffer | string | null;
      if (chunk !== null) {
        yield chunk;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    input.off('error', onInputError);
    source.off('readable', notify);
    source.off('end', onEnd);
    if (source !== input) {
      input.unpipe(source as unknown as NodeJS.WritableStream);
      (source as unknown as { destroy(): void }).destroy();
    }
  }
}
