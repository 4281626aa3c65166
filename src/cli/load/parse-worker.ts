/**
 * The parse worker of `quiver load`: reads one source (decompressing it when gzip), parses it and
 * sends statements as local term numbers (see parse-messages.ts). It runs beside the loading thread,
 * so parsing and index writing use two cores. At most MAX_IN_FLIGHT batches wait for the loader:
 * reading pauses meanwhile, so memory stays flat however large the file.
 */
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { parentPort, workerData } from 'node:worker_threads';
import { StreamParser } from 'n3';
import type * as RDF from '@rdfjs/types';
import { parseRdf } from '../../formats/rdf-parser.js';
import { factory, termKey, type Quad } from '../../rdf/terms.js';
import { NQuadsLineParser, LineSyntaxError } from './nquads-line-parser.js';
import { LenientTurtleParser, TurtleStatementSplitter } from './lenient-turtle.js';
import type { AckMessage, ParseJob, ParseWorkerMessage } from './parse-messages.js';

const MAX_IN_FLIGHT = 8;
/** Local numbers before the worker starts over (bounds the term map on both sides). */
const LOCAL_LIMIT = 1 << 21;
/**
 * Key characters before the worker starts over: long literals would otherwise fill memory first.
 * The map costs about 2.5 bytes of heap per character, and V8 lets the previous map's garbage
 * linger: at 2^27 characters the worker's heap peaks near 400 MiB. A quarter of that (2^25) was
 * tried: the heap stayed near 100 MiB, but the worker started over every ~1.3M statements and a 3M
 * load took 10% more CPU and 9% more disk (each restart turns appends into B-tree inserts).
 */
const LOCAL_CHARS_LIMIT = 1 << 27;
/** Keys from this length on are copied before their look-up in the term map (see `local`). */
const LONG_KEY = 64;
/** Skipped statements reported one by one; the rest are only counted. */
const REPORTED_SKIPS = 10;

const port = parentPort!;
const job = workerData as ParseJob;

class BatchBuilder {
  statements = 0;
  skipped = 0;
  bytesRead = 0;
  private locals = new Map<string, number>();
  private nextLocal = 0;
  /** Characters of the keys in `locals`, to bound the map by memory as well as by count. */
  private localChars = 0;
  private lastSubject = '';
  private lastSubjectLocal = 0;
  private lastGraph = '';
  private lastGraphLocal = 0;
  private firstLocal = 0;
  private newTerms: string[] = [];
  private quads: Uint32Array;
  private count = 0;
  private reset = false;
  private inFlight = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly batchSize: number) {
    this.quads = new Uint32Array(batchSize * 4);
    port.on('message', (message: AckMessage) => {
      if (message.type !== 'ack') return;
      this.inFlight--;
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });
  }

  readonly add = (s: string, p: string, o: string, g: string): void => {
    const at = this.count * 4;
    const quads = this.quads;
    // Statements about one subject (and in one graph) usually come together: no map look-up then.
    if (s !== this.lastSubject) {
      this.lastSubject = s;
      this.lastSubjectLocal = this.local(s);
    }
    if (g !== this.lastGraph) {
      this.lastGraph = g;
      this.lastGraphLocal = this.local(g);
    }
    quads[at] = this.lastSubjectLocal;
    quads[at + 1] = this.local(p);
    quads[at + 2] = this.local(o);
    quads[at + 3] = this.lastGraphLocal;
    this.statements++;
    if (++this.count === this.batchSize) this.flush();
  };

  private local(key: string): number {
    // A key may be a slice of a whole chunk of the file: the map keeps a copy, not the chunk. Long
    // keys (literals, mostly met once) are copied before the look-up, so that the copy's hash,
    // which V8 caches in the string, serves both the look-up and the insert: hashing a long key
    // is most of what the map costs.
    const long = key.length >= LONG_KEY;
    const probe = long ? ownCopy(key) : key;
    let n = this.locals.get(probe);
    if (n === undefined) {
      n = this.nextLocal++;
      const own = long ? probe : ownCopy(key);
      this.locals.set(own, n);
      this.newTerms.push(own);
      this.localChars += key.length;
    }
    return n;
  }

  flush(): void {
    if (this.count === 0 && this.newTerms.length === 0) return;
    const quads = this.quads;
    post({
      type: 'batch',
      reset: this.reset,
      firstLocal: this.firstLocal,
      newTerms: this.newTerms,
      quads,
      count: this.count,
      bytesRead: this.bytesRead,
      statements: this.statements,
      skipped: this.skipped,
    }, [quads.buffer as ArrayBuffer]);
    this.inFlight++;
    this.quads = new Uint32Array(this.batchSize * 4);
    this.count = 0;
    this.newTerms = [];
    this.reset = false;
    if (this.nextLocal >= LOCAL_LIMIT || this.localChars >= LOCAL_CHARS_LIMIT) {
      this.locals = new Map();
      this.nextLocal = 0;
      this.localChars = 0;
      this.lastSubject = this.lastGraph = '';
      this.reset = true;
    }
    this.firstLocal = this.nextLocal;
  }

  /** Resolves once the loader has room for another batch. */
  async room(): Promise<void> {
    while (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  skip(message: string): void {
    this.skipped++;
    if (this.skipped <= REPORTED_SKIPS) post({ type: 'skipped', message });
  }
}

/**
 * The string's characters in a string of their own. V8 represents a slice of a long string as a
 * view of it, and a kept view keeps the whole parent alive.
 */
function ownCopy(key: string): string {
  return key.length < 13 ? key : (' ' + key).slice(1);
}

function post(message: ParseWorkerMessage, transfer?: ArrayBuffer[]): void {
  port.postMessage(message, transfer as never);
}

/** The raw bytes of the source, counted as they are read. */
function openSource(builder: BatchBuilder): NodeJS.ReadableStream {
  const raw = job.source === '-' ? process.stdin : createReadStream(job.source, { highWaterMark: 1 << 20 });
  raw.on('data', (chunk: Buffer) => (builder.bytesRead += chunk.length));
  return raw;
}

function decompressed(raw: NodeJS.ReadableStream): NodeJS.ReadableStream {
  if (!job.gzip) return raw;
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  raw.on('error', (error) => gunzip.destroy(error));
  return raw.pipe(gunzip);
}

async function parseLines(builder: BatchBuilder): Promise<void> {
  const parser = new NQuadsLineParser(job.format === 'nquads', job.blankPrefix, job.graphKey);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const parseText = (text: string): void => {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      parseOneLine(parser, text.slice(start, end), builder);
      start = end + 1;
    }
    rest = text.slice(start);
  };
  for await (const chunk of decompressed(openSource(builder))) {
    parseText(rest + decoder.write(chunk as Buffer));
    await builder.room();
  }
  const last = rest + decoder.end();
  if (last !== '') parseOneLine(parser, last, builder);
}

function parseOneLine(parser: NQuadsLineParser, line: string, builder: BatchBuilder): void {
  try {
    parser.parseLine(line, builder.add);
  } catch (error) {
    if (!(error instanceof LineSyntaxError) || !job.lenient) throw error;
    builder.skip(error.message);
  }
}

/** The key of a parsed term, with blank nodes moved into this file's label space. */
function keyOf(term: RDF.Term): string {
  return term.termType === 'BlankNode' ? '_' + job.blankPrefix + term.value : termKey(term);
}

function addQuad(builder: BatchBuilder, quad: Quad): void {
  const graph = quad.graph.termType === 'DefaultGraph' ? job.graphKey : keyOf(quad.graph);
  builder.add(keyOf(quad.subject), keyOf(quad.predicate), keyOf(quad.object), graph);
}

/** Turtle and TriG through N3.js directly: its errors carry the token's column, which parseRdf drops. */
async function parseTurtle(builder: BatchBuilder): Promise<void> {
  const parser = new StreamParser({ format: job.format === 'trig' ? 'TriG' : 'Turtle', baseIRI: job.baseIri, factory });
  decompressed(openSource(builder)).pipe(parser as unknown as NodeJS.WritableStream);
  try {
    for await (const quad of parser as AsyncIterable<Quad>) {
      addQuad(builder, quad);
      if (builder.statements % 1024 === 0) await builder.room();
    }
  } catch (error) {
    throw turtleError(error as Error);
  }
}

function turtleError(error: Error): Error {
  const context = (error as { context?: { line?: number; token?: { start?: number } | null } }).context;
  if (context?.line === undefined) return error;
  const column = context.token?.start !== undefined ? context.token.start + 1 : undefined;
  const message = error.message.replace(/ on line \d+\.?$/, '');
  return Object.assign(new Error(message), { line: context.line, column });
}

/** Turtle and TriG with --lenient: statement by statement where needed (see lenient-turtle.ts). */
async function parseTurtleLeniently(builder: BatchBuilder): Promise<void> {
  const splitter = new TurtleStatementSplitter();
  const parser = new LenientTurtleParser(job.format === 'trig' ? 'TriG' : 'Turtle', job.baseIri, {
    quad: (quad) => addQuad(builder, quad),
    skipped: (message) => builder.skip(message),
  });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of decompressed(openSource(builder))) {
    parser.add(splitter.push(decoder.write(chunk as Buffer)));
    await builder.room();
  }
  parser.add(splitter.push(decoder.end()));
  parser.add(splitter.end());
  parser.flush();
}

async function parseOther(builder: BatchBuilder): Promise<void> {
  for await (const batch of parseRdf(openSource(builder), job.format, { baseIri: job.baseIri, gzip: job.gzip, batchSize: 1024 })) {
    for (const quad of batch) addQuad(builder, quad);
    await builder.room();
  }
}

async function run(): Promise<void> {
  const builder = new BatchBuilder(job.batchSize);
  try {
    if (job.format === 'ntriples' || job.format === 'nquads') await parseLines(builder);
    else if ((job.format === 'turtle' || job.format === 'trig') && job.lenient) await parseTurtleLeniently(builder);
    else if (job.format === 'turtle' || job.format === 'trig') await parseTurtle(builder);
    else await parseOther(builder);
  } catch (error) {
    const { line, column } = error as { line?: number; column?: number };
    if (!job.lenient || line === undefined) {
      post({ type: 'error', message: (error as Error).message, line, column });
      return;
    }
    // RDF/XML and JSON-LD parsers cannot resume after an error: keep what came before it.
    builder.skip(`${(error as Error).message}; the rest of the document is skipped`);
  }
  builder.flush();
  post({ type: 'end', bytesRead: builder.bytesRead, statements: builder.statements, skipped: builder.skipped });
  await once(port, 'close').catch(() => undefined);
}

void run();
