/**
 * Reading RDF documents into batches of quads: our own reader for N-Triples and N-Quads
 * (nquads-batches.ts, the bulk loader's reader too), N3.js for Turtle and TriG,
 * rdfxml-streaming-parser for RDF/XML, jsonld-streaming-parser for JSON-LD. Streams are read with
 * backpressure (at most a few batches wait for the consumer), so a large file never sits in memory.
 * Syntax errors become {@link RdfSyntaxError}s (HTTP 400) with the line, and the column when the
 * parser knows it. The parsers themselves (rdf-parser-setup.ts) are loaded when a document is first
 * read: a process that reads none, such as `quiver query`, does not pay for loading them.
 */
import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import type * as RDF from '@rdfjs/types';
import { ProtocolError } from '../errors.js';
import { factory, type Quad, type Term } from '../rdf/index.js';
import { parseableRdfFormat } from './format-table.js';
import { readNQuadsBatches } from './nquads-batches.js';
import type { ParseableRdfFormat } from './serializer.js';
import { RdfSyntaxError } from './rdf-syntax-error.js';
import { gunzipped } from './gzip-input.js';
import type { ParserSetup } from './rdf-parser-setup.js';

/** What N3.js's lexer needs to check IRIs (rdf-parser-setup.ts), typed without N3's own types so
 * that the package's declarations never reach `n3`, which ships none. */
export interface N3IriChecks {
  options: Record<string, unknown>;
  invalidIri(quad: Quad): { message: string; line?: number } | undefined;
}

/** The IRI checks, loaded with the parsers on first use so that importing this layer stays cheap. */
export async function loadN3IriChecks(): Promise<N3IriChecks> {
  return (await import('./rdf-parser-setup.js')).n3IriChecks() as N3IriChecks;
}

export { rdfFormatForFileName, rdfFormatForMediaType } from './format-table.js';
export { RdfSyntaxError } from './rdf-syntax-error.js';

export interface ParseRdfOptions {
  /** Base IRI against which relative IRIs are resolved. */
  baseIri?: string;
  /**
   * The graph that receives what the document puts in the default graph: every triple of a triple
   * format, and the default-graph part of TriG / N-Quads / JSON-LD (their named graphs stay).
   */
  graph?: Term;
  /** The stream is gzip-compressed (see `rdfFormatForFileName`). */
  gzip?: boolean;
  /** Quads per batch (default 1000). */
  batchSize?: number;
  /**
   * Every IRI of the document must be valid (RFC 3987, src/rdf/iri-syntax.ts): by default a quad
   * with an invalid one fails the document with an RdfSyntaxError naming the line. Given this, such
   * a quad is left out and reported here instead (`quiver load --lenient`).
   */
  skipInvalid?: (error: RdfSyntaxError) => void;
}

const DEFAULT_BATCH_SIZE = 1000;
/**
 * Characters of a document given as a string that go to the parser at a time. Handed over whole, a
 * large document was parsed in one synchronous run before its first batch came out, so its consumer
 * could not stop it (a Graph Store PUT past its time limit) before the end.
 */
const STRING_SLICE = 1 << 16;
/** Parsed batches that may wait for the consumer before the parser is paused. */
const MAX_WAITING_BATCHES = 4;

type ParserStream = NodeJS.ReadWriteStream & { destroy(error?: Error): unknown };

/**
 * Parses `input` (a byte or text stream, or a whole document as a string) in `format` (a format
 * name such as `turtle`, or a media type such as `text/turtle`). Batches come in document order;
 * the iterable can be read once. An unknown format throws a ProtocolError at once; syntax errors
 * reject the iteration with an {@link RdfSyntaxError}.
 */
export function parseRdf(input: NodeJS.ReadableStream | string, format: ParseableRdfFormat | string, options: ParseRdfOptions = {}): AsyncIterable<Quad[]> {
  const resolved = parseableRdfFormat(format);
  if (resolved === undefined) throw new ProtocolError(`unknown RDF format ${JSON.stringify(format)}`);
  if (resolved === 'ntriples' || resolved === 'nquads') {
    return readNQuadsBatches(input, resolved === 'nquads', {
      graph: options.graph,
      gzip: options.gzip,
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      skipInvalid: options.skipInvalid,
    });
  }
  return readBatches(input, async () => (await import('./rdf-parser-setup.js')).createParser(resolved, options.baseIri), options);
}

function readBatches(input: NodeJS.ReadableStream | string, setUp: () => Promise<ParserSetup>, options: ParseRdfOptions): AsyncIterable<Quad[]> {
  const skipInvalid = options.skipInvalid;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const target = options.graph;

  return {
    async *[Symbol.asyncIterator]() {
      const { entry, parser, toSyntaxError, invalidIri } = await setUp();
      type Events = EventEmitter & { pause(): void; resume(): void; isPaused(): boolean };
      const events = parser as unknown as Events;
      const ready: Quad[][] = [];
      let batch: Quad[] = [];
      let finished = false;
      let failure: Error | undefined;
      let wake: (() => void) | undefined;
      const notify = (): void => {
        const resume = wake;
        wake = undefined;
        resume?.();
      };
      const fail = (error: Error): void => {
        failure ??= error;
        finished = true;
        notify();
      };

      events.on('data', (quad: Quad) => {
        const invalid = invalidIri(quad);
        if (invalid !== undefined) {
          if (skipInvalid === undefined) fail(invalid);
          else skipInvalid(invalid);
          return;
        }
        batch.push(target !== undefined && quad.graph.termType === 'DefaultGraph' ? intoGraph(quad, target) : quad);
        if (batch.length >= batchSize) {
          ready.push(batch);
          batch = [];
          if (ready.length >= MAX_WAITING_BATCHES) events.pause();
          notify();
        }
      });
      events.on('end', () => {
        if (batch.length > 0) ready.push(batch);
        batch = [];
        finished = true;
        notify();
      });
      events.on('error', (error: Error) => fail(toSyntaxError(error)));

      let source: NodeJS.ReadableStream;
      if (typeof input === 'string') {
        source = Readable.from(stringSlices(input), { objectMode: false });
      } else {
        source = options.gzip ? gunzipped(input, fail) : input;
        input.on('error', fail);
      }
      source.pipe(entry);

      try {
        while (true) {
          if (failure !== undefined) throw failure;
          const next = ready.shift();
          if (next !== undefined) {
            if (events.isPaused() && ready.length < MAX_WAITING_BATCHES) events.resume();
            yield next;
            continue;
          }
          if (finished) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        // Stopped early (by the consumer or an error): release our streams, not the caller's input.
        if (!finished || failure !== undefined) {
          source.unpipe(entry);
          if (source !== input) (source as unknown as ParserStream).destroy();
          if (entry !== parser) (entry as unknown as ParserStream).destroy();
          parser.destroy();
        }
      }
    },
  };
}

/** A string in slices of about STRING_SLICE characters, no surrogate pair cut in two (it would not survive encoding). */
function* stringSlices(text: string): Generator<string> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + STRING_SLICE, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++;
    yield text.slice(at, end);
    at = end;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function intoGraph(quad: Quad, graph: Term): Quad {
  return factory.quad(quad.subject, quad.predicate, quad.object, graph as RDF.Quad['graph']);
}
