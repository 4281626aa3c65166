/**
 * Reading RDF documents into batches of quads: N3.js for Turtle, TriG, N-Triples and N-Quads,
 * rdfxml-streaming-parser for RDF/XML, jsonld-streaming-parser for JSON-LD. Streams are read with
 * backpressure (at most a few batches wait for the consumer), so a large file never sits in memory.
 * Syntax errors become {@link RdfSyntaxError}s (HTTP 400) with the line, and the column when the
 * parser knows it.
 */
import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Lexer as N3Lexer, StreamParser } from 'n3';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { DataFactory } from 'rdf-data-factory';
import type * as RDF from '@rdfjs/types';
import { ProtocolError, SyntaxError as QuiverSyntaxError } from '../errors.js';
import { invalidIriInQuad } from '../rdf/index.js';
import { factory, type Quad, type Term } from '../rdf/index.js';
import { LineTracker } from './line-tracker.js';
import { parseableRdfFormat } from './registry.js';
import type { ParseableRdfFormat } from './serializer.js';

export { rdfFormatForFileName, rdfFormatForMediaType } from './registry.js';

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

/** A syntax error in an RDF document. */
export class RdfSyntaxError extends QuiverSyntaxError {
  constructor(message: string, line?: number, column?: number) {
    super(message, line, column);
    this.name = 'RdfSyntaxError';
    // The base class always mentions a column; ours may not know one.
    if (line !== undefined && column === undefined) this.message = `${message} (line ${line})`;
  }
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
export function parseRdf(
  input: NodeJS.ReadableStream | string,
  format: ParseableRdfFormat | string,
  options: ParseRdfOptions = {},
): AsyncIterable<Quad[]> {
  const resolved = parseableRdfFormat(format);
  if (resolved === undefined) throw new ProtocolError(`unknown RDF format ${JSON.stringify(format)}`);
  return readBatches(input, createParser(resolved, options.baseIri), options);
}

interface ParserSetup {
  /** Where the document goes in. */
  entry: NodeJS.WritableStream;
  /** Where quads come out. */
  parser: ParserStream;
  toSyntaxError: (error: Error) => Error;
  /** The error for a quad with an invalid IRI, naming its line where the parser knows it. */
  invalidIri: (quad: Quad) => RdfSyntaxError | undefined;
}

function createParser(format: ParseableRdfFormat, baseIri: string | undefined): ParserSetup {
  switch (format) {
    case 'turtle':
    case 'trig':
    case 'ntriples':
    case 'nquads': {
      const checked = n3IriChecks(format === 'ntriples' || format === 'nquads');
      const parser = new StreamParser({ format: N3_FORMAT_NAMES[format], baseIRI: baseIri, ...checked.options } as never) as unknown as ParserStream;
      return { entry: parser, parser, toSyntaxError: n3SyntaxError, invalidIri: checked.invalidIri };
    }
    case 'rdfxml': {
      const parser = new RdfXmlParser({ baseIRI: baseIri, dataFactory: scopedBlankNodeFactory(), trackPosition: true });
      const line = (): number | undefined => (parser as unknown as { saxParser?: { line?: number } }).saxParser?.line;
      return { entry: parser as unknown as ParserStream, parser: parser as unknown as ParserStream, toSyntaxError: xmlSyntaxError, invalidIri: checkedAt(line) };
    }
    case 'jsonld': {
      const parser = new JsonLdParser({
        baseIRI: baseIri,
        dataFactory: scopedBlankNodeFactory(),
        documentLoader: new OfflineDocumentLoader(),
      });
      const tracker = new LineTracker();
      tracker.pipe(parser as unknown as NodeJS.WritableStream);
      // The JSON tokenizer reports no position in its messages, but counts bytes as it goes.
      const position = (): { line: number; column?: number } | undefined => {
        const offset = (parser as unknown as { jsonParser?: { offset?: number } }).jsonParser?.offset;
        return typeof offset === 'number' && offset >= 0 ? tracker.position(offset) : undefined;
      };
      const toSyntaxError = (error: Error): Error => {
        if (error instanceof QuiverSyntaxError) return error;
        const at = position();
        const message = `invalid JSON-LD: ${error.message.replace(/ at position \d+/, '')}`;
        return new RdfSyntaxError(message, at?.line, at?.column);
      };
      return { entry: tracker, parser: parser as unknown as ParserStream, toSyntaxError, invalidIri: checkedAt(() => position()?.line) };
    }
  }
}

/** Checks each quad as it arrives, naming the line the parser has reached (where the quad's statement ends). */
function checkedAt(line: () => number | undefined): (quad: Quad) => RdfSyntaxError | undefined {
  return (quad) => {
    const invalid = invalidIriInQuad(quad);
    return invalid === undefined ? undefined : new RdfSyntaxError(invalid, line());
  };
}

/**
 * N3.js options that check each quad's IRIs as the parser makes it, when its lexer is on the
 * statement's line (a stream hands quads on later, from its buffer): a data factory that notes
 * the error of each invalid quad, and the lexer it reads the line from. `invalidIri` looks it up.
 */
export function n3IriChecks(lineMode: boolean): { options: { factory: RDF.DataFactory; lexer: N3Lexer }; invalidIri: (quad: Quad) => RdfSyntaxError | undefined } {
  const lexer = new N3Lexer({ lineMode });
  const errors = new WeakMap<Quad, RdfSyntaxError>();
  const checking: RDF.DataFactory = Object.create(factory) as RDF.DataFactory;
  checking.quad = ((subject, predicate, object, graph) => {
    const quad = factory.quad(subject, predicate, object, graph);
    const invalid = invalidIriInQuad(quad);
    if (invalid !== undefined) errors.set(quad, new RdfSyntaxError(invalid, (lexer as unknown as { _line?: number })._line));
    return quad;
  }) as RDF.DataFactory['quad'];
  return { options: { factory: checking, lexer }, invalidIri: (quad) => errors.get(quad) };
}

const N3_FORMAT_NAMES = { turtle: 'Turtle', trig: 'TriG', ntriples: 'N-Triples', nquads: 'N-Quads' } as const;

let documentCounter = 0;

/**
 * N3.js gives each document its own blank node label space; the JSON-LD and RDF/XML parsers keep
 * the labels written in the document, so two documents that both say `_:b0` would share a node.
 * This factory prefixes labels per document.
 */
function scopedBlankNodeFactory(): RDF.DataFactory {
  const prefix = `d${documentCounter++}_`;
  const scoped = new DataFactory();
  const blankNode = scoped.blankNode.bind(scoped);
  scoped.blankNode = (label?: string) => blankNode(label === undefined ? undefined : prefix + label);
  return scoped;
}

/** JSON-LD remote contexts would mean network access from a load: refused. */
class OfflineDocumentLoader {
  load(url: string): Promise<never> {
    return Promise.reject(
      new RdfSyntaxError(`remote JSON-LD contexts are not fetched (${url}); inline the context in the document instead`),
    );
  }
}

function n3SyntaxError(error: Error): Error {
  const line = (error as { context?: { line?: number } }).context?.line;
  if (line === undefined) return error instanceof QuiverSyntaxError ? error : new RdfSyntaxError(error.message);
  return new RdfSyntaxError(error.message.replace(/ on line \d+\.?$/, ''), line);
}

function xmlSyntaxError(error: Error): Error {
  const match = /^(?:Line (\d+) column (\d+): |(\d+):(\d+): )/.exec(error.message);
  if (match === null) return new RdfSyntaxError(error.message);
  const line = Number(match[1] ?? match[3]);
  const column = Number(match[2] ?? match[4]);
  return new RdfSyntaxError(error.message.slice(match[0].length), line, column);
}

function readBatches(input: NodeJS.ReadableStream | string, setup: ParserSetup, options: ParseRdfOptions): AsyncIterable<Quad[]> {
  const { entry, parser, toSyntaxError, invalidIri } = setup;
  const skipInvalid = options.skipInvalid;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const target = options.graph;
  const events = parser as unknown as EventEmitter & { pause(): void; resume(): void; isPaused(): boolean };

  return {
    async *[Symbol.asyncIterator]() {
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
        source = options.gzip ? input.pipe(createGunzip()) : input;
        input.on('error', fail);
        if (source !== input) source.on('error', (error: Error) => fail(new RdfSyntaxError(`cannot decompress: ${error.message}`)));
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
  for (let at = 0; at < text.length; ) {
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
