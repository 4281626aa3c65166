/**
 * The parse worker of `quiver load`: reads one source (decompressing it when gzip), parses it and
 * sends statements as local term numbers (see parse-messages.ts). It runs beside the loading thread,
 * so parsing and index writing use two cores. At most MAX_IN_FLIGHT batches wait for the loader:
 * reading pauses meanwhile, so memory stays flat however large the file.
 *
 * N-Triples and N-Quads are read as bytes (byte-line-parser.ts) into a byte-keyed term map
 * (byte-term-table.ts); a line the byte parser leaves alone (escapes, errors) goes through the
 * N-Triples / N-Quads reader every other reading uses (formats/nquads-reader.ts), as term keys,
 * which join the same map.
 *
 * Both fast paths of this worker have a switch, read here only, for comparison (file-loader.test.ts
 * loads the same files both ways) or if one of them is ever suspected: QUIVER_BYTE_LINES=0 sends
 * every line through the string parser, QUIVER_WORD_HASH=0 hashes new terms a byte at a time with
 * the store's own function instead of term-hash-words.ts. A worker reads its environment when the
 * load starts it.
 */
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { createGunzip } from 'node:zlib';
import { Transform } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { ByteLineParser, NEEDS_STRING_PARSER, STATEMENT, type KeyBuffer } from './byte-line-parser.js';
import { NQuadsReader, TERM_KEYS } from '../formats/index.js';
import { RdfSyntaxError } from '../formats/index.js';
import type { AckMessage, ParseJob, ParseWorkerMessage } from './parse-messages.js';
import { codedPlainLiteral, hashTermKeyBytes, hashTermKeysWords } from '../store/index.js';
import { TermTable, copyBytes, hashKey, viewOf } from './byte-term-table.js';

const MAX_IN_FLIGHT = 8;
/** Statements in the first batch (see BatchBuilder.batchSize). */
const FIRST_BATCH = 1024;
/** Local numbers before the worker starts over (bounds the term map on both sides). */
const LOCAL_LIMIT = 1 << 21;
/**
 * Key bytes before the worker starts over: long literals would otherwise fill memory first. The
 * term table keeps each key's UTF-8 bytes once (it was ~2.5 bytes of heap per character in a
 * Map<string, number>). Restarting costs: after it, every key the loader meets again takes a
 * dictionary look-up (held-back dictionary entries are searched in memory, so new terms are still
 * appended in hash order at the end).
 */
const LOCAL_BYTES_LIMIT = 1 << 27;
/** Skipped statements reported one by one; the rest are only counted. */
const REPORTED_SKIPS = 10;

const port = parentPort!;
const byteLines = process.env.QUIVER_BYTE_LINES !== '0';
const wordHash = process.env.QUIVER_WORD_HASH !== '0';

/*
 * Detaches a throw-away buffer before any code runs hot. V8 compiles typed-array accesses on the
 * assumption that no ArrayBuffer was ever detached in this thread (its "detaching protector"); the
 * first batch posted transfers (detaches) its arrays, which invalidated every optimized function of
 * the parser at once, and all of it was compiled again (~0.08 s of CPU on a load of BSBM 1k).
 */
const detached = new ArrayBuffer(8);
structuredClone(detached, { transfer: [detached] });
const job = workerData as ParseJob;

class BatchBuilder {
  statements = 0;
  skipped = 0;
  bytesRead = 0;
  // A batch's new terms may take the table a little past the limit before the flush that clears it.
  private readonly table = new TermTable(LOCAL_BYTES_LIMIT + (1 << 24));
  /** The local number of job.graphKey, looked up once per table (-1: not yet). */
  private defaultGraphLocal = -1;
  /** UTF-8 of string keys (document formats, lines of the string parser) before their look-up. */
  private keyBytes = new Uint8Array(1024);
  private firstLocal = 0;
  private quads: Uint32Array;
  private count = 0;
  private reset = false;
  private inFlight = 0;
  private wake: (() => void) | undefined;

  /**
   * Statements in the current batch: the first batches are small and each is twice the previous
   * one up to the job's size, so that the loader gets work while this thread still runs its first
   * (not yet compiled) lines, instead of waiting idle for a whole batch.
   */
  private batchSize: number;

  constructor(private readonly fullBatchSize: number) {
    this.batchSize = Math.min(FIRST_BATCH, fullBatchSize);
    this.quads = new Uint32Array(this.batchSize * 4);
    port.on('message', (message: AckMessage) => {
      if (message.type !== 'ack') return;
      this.inFlight--;
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });
  }

  /** A statement as four term keys. */
  readonly add = (s: string, p: string, o: string, g: string): void => {
    const sLocal = this.localOfString(s);
    const pLocal = this.localOfString(p);
    const oLocal = this.localOfString(o);
    this.addLocals(sLocal, pLocal, oLocal, g === job.graphKey ? this.defaultGraph() : this.localOfString(g));
  };

  /**
   * A statement of the byte parser, whose keys are in its key buffers; false (and nothing added)
   * when a new key fails its deferred check, for the string parser to read the line.
   */
  addParsed(parser: ByteLineParser): boolean {
    const { subject, predicate, object, graph } = parser;
    const sameSubject = this.isLastSubject(subject);
    const s = sameSubject ? this.lastSubjectLocal : this.find(subject, 0);
    const p = this.find(predicate, 1);
    const o = this.find(object, 2);
    const g = parser.hasGraph ? this.find(graph, 3) : this.defaultGraph();
    if (!this.newKeysValid(parser, s, p, o, g)) return false;
    const table = this.table;
    const sLocal = s >= 0 ? s : table.localWithHash(subject, subject.from, subject.to, this.hashes[0]);
    const pLocal = p >= 0 ? p : table.localWithHash(predicate, predicate.from, predicate.to, this.hashes[1]);
    const oLocal = o >= 0 ? o : table.localWithHash(object, object.from, object.to, this.hashes[2]);
    const gLocal = g >= 0 ? g : table.localWithHash(graph, graph.from, graph.to, this.hashes[3]);
    // Before addLocals, whose flush may start the table over (which forgets the remembered subject).
    if (!sameSubject) this.rememberSubject(subject, sLocal);
    this.addLocals(sLocal, pLocal, oLocal, gLocal);
    return true;
  }

  /**
   * The last subject of the byte parser and its local number: in most files statements about one
   * subject come together (9 in 10 in BSBM), and comparing with the previous subject costs less
   * than hashing it and probing the table (a cache miss or two).
   */
  private lastSubject = new Uint8Array(256);
  private lastSubjectView = viewOf(this.lastSubject);
  /** -1: none (at the start, and after the table starts over). */
  private lastSubjectLength = -1;
  private lastSubjectLocal = -1;

  private isLastSubject(key: KeyBuffer): boolean {
    const length = key.to - key.from;
    if (length !== this.lastSubjectLength) return false;
    const last = this.lastSubjectView;
    const view = key.view;
    const from = key.from;
    // From the end: the subjects of a file usually share a long prefix.
    let i = length - 4;
    for (; i >= 0; i -= 4) if (last.getInt32(i, true) !== view.getInt32(from + i, true)) return false;
    for (i += 3; i >= 0; i--) if (last.getUint8(i) !== view.getUint8(from + i)) return false;
    return true;
  }

  private rememberSubject(key: KeyBuffer, local: number): void {
    const length = key.to - key.from;
    if (length > this.lastSubject.length) {
      this.lastSubject = new Uint8Array(Math.max(length, this.lastSubject.length * 2));
      this.lastSubjectView = viewOf(this.lastSubject);
    }
    copyBytes(key.bytes, key.from, key.to, this.lastSubject, 0);
    this.lastSubjectLength = length;
    this.lastSubjectLocal = local;
  }

  /** Hashes of the keys being looked up, by statement position. */
  private readonly hashes = new Int32Array(4);

  /** The key's local number or -1, keeping its hash for the insert. */
  private find(key: KeyBuffer, position: number): number {
    const hash = hashKey(key.view, key.from, key.to);
    this.hashes[position] = hash;
    return this.table.find(key, key.from, key.to, hash);
  }

  private newKeysValid(parser: ByteLineParser, s: number, p: number, o: number, g: number): boolean {
    const { subject, predicate, object, graph } = parser;
    if (s < 0 && subject.unchecked && !parser.isValidIri(subject)) return false;
    if (p < 0 && predicate.unchecked && !parser.isValidIri(predicate)) return false;
    if (o < 0 && object.unchecked && !parser.isValidIri(object)) return false;
    return !(g < 0 && graph.unchecked && !parser.isValidIri(graph));
  }

  private addLocals(s: number, p: number, o: number, g: number): void {
    const at = this.count * 4;
    const quads = this.quads;
    quads[at] = s;
    quads[at + 1] = p;
    quads[at + 2] = o;
    quads[at + 3] = g;
    this.statements++;
    if (++this.count === this.batchSize) this.flush();
  }

  private defaultGraph(): number {
    if (this.defaultGraphLocal < 0) this.defaultGraphLocal = this.localOfString(job.graphKey);
    return this.defaultGraphLocal;
  }

  private localOfString(key: string): number {
    // At most 3 bytes of UTF-8 per UTF-16 code unit.
    if (key.length * 3 > this.keyBytes.length) this.keyBytes = new Uint8Array(key.length * 3);
    const { written } = encoder.encodeInto(key, this.keyBytes);
    return this.table.local(this.keyBytes, 0, written);
  }

  flush(): void {
    const table = this.table;
    if (this.count === 0 && table.size === this.firstLocal) return;
    const quads = this.quads;
    const { bytes, ends } = table.newTermsSince(this.firstLocal);
    const hashes = hashesOf(bytes, ends);
    const coded = codedValuesOf(bytes, ends);
    post(
      {
        type: 'batch',
        reset: this.reset,
        firstLocal: this.firstLocal,
        termBytes: bytes,
        termEnds: ends,
        termHashes: hashes,
        codedBytes: coded.bytes,
        codedEnds: coded.ends,
        quads,
        count: this.count,
        bytesRead: this.bytesRead,
        statements: this.statements,
        skipped: this.skipped,
      },
      [quads.buffer, bytes.buffer, ends.buffer, hashes.buffer, coded.bytes.buffer, coded.ends.buffer] as ArrayBuffer[],
    );
    this.inFlight++;
    this.batchSize = Math.min(this.batchSize * 2, this.fullBatchSize);
    this.quads = new Uint32Array(this.batchSize * 4);
    this.count = 0;
    this.reset = false;
    if (table.size >= (job.termLimit ?? LOCAL_LIMIT) || table.bytes >= LOCAL_BYTES_LIMIT) {
      table.clear();
      this.defaultGraphLocal = -1;
      this.lastSubjectLength = -1;
      this.reset = true;
    }
    this.firstLocal = table.size;
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

const encoder = new TextEncoder();

/** The dictionary hash of each new term: computed here, so that the loading thread does not. */
function hashesOf(bytes: Uint8Array, ends: Uint32Array): Uint32Array {
  const hashes = new Uint32Array(ends.length * 2);
  if (wordHash) hashTermKeysWords(bytes, viewOf(bytes), ends, hashes);
  else for (let i = 0; i < ends.length; i++) hashTermKeyBytes(bytes, i === 0 ? 0 : ends[i - 1], ends[i], hashes.subarray(2 * i, 2 * i + 2));
  return hashes;
}

/**
 * The stored value of each new term that is a long plain literal, coded here so that the loading
 * thread does not (a few µs a value, and most of a dataset's bytes).
 */
function codedValuesOf(bytes: Uint8Array, ends: Uint32Array): { bytes: Uint8Array; ends: Uint32Array } {
  const codedEnds = new Uint32Array(ends.length);
  let coded = new Uint8Array(0);
  let used = 0;
  for (let i = 0, start = 0; i < ends.length; start = ends[i++]) {
    const value = codedPlainLiteral(bytes.subarray(start, ends[i]));
    if (value !== undefined) {
      if (used + value.length > coded.length) {
        const grown = new Uint8Array(Math.max(1 << 16, (used + value.length) * 2));
        grown.set(coded.subarray(0, used));
        coded = grown;
      }
      coded.set(value, used);
      used += value.length;
    }
    codedEnds[i] = used;
  }
  return { bytes: coded, ends: codedEnds };
}

function post(message: ParseWorkerMessage, transfer?: ArrayBuffer[]): void {
  port.postMessage(message, transfer as never);
}

/**
 * The raw bytes of the source, counted as they are read. Counted in a transform, not by a 'data'
 * listener: a listener starts the flow at once, and what flows before the parser (loaded on
 * demand, see rdf-parser.ts) reads is lost.
 */
function openSource(builder: BatchBuilder): NodeJS.ReadableStream {
  const raw = job.source === '-' ? process.stdin : createReadStream(job.source, { highWaterMark: 1 << 20 });
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      builder.bytesRead += chunk.length;
      done(null, chunk);
    },
  });
  raw.on('error', (error) => counted.destroy(error));
  return raw.pipe(counted);
}

function decompressed(raw: NodeJS.ReadableStream): NodeJS.ReadableStream {
  if (!job.gzip) return raw;
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  raw.on('error', (error) => gunzip.destroy(error));
  return raw.pipe(gunzip);
}

async function parseLines(builder: BatchBuilder): Promise<void> {
  const lines = new LineReader(builder);
  /** The start of a line that the previous chunks did not finish. */
  let rest: Buffer | undefined;
  let first = true;
  for await (const data of decompressed(openSource(builder))) {
    const chunk = data as Buffer;
    let from = 0;
    // A byte order mark before the first line is read past, as parseRdf does (nquads-batches.ts).
    if (first && chunk.length > 0) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) from = 3;
    }
    if (rest !== undefined) {
      // Only the line across the chunk boundary is copied together, not the whole chunk.
      const first = chunk.indexOf(NEWLINE);
      if (first < 0) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      const line = Buffer.concat([rest, chunk.subarray(0, first + 1)]);
      lines.read(line, 0, line.length);
      from = first + 1;
      rest = undefined;
    }
    const end = chunk.lastIndexOf(NEWLINE);
    if (end >= from) lines.read(chunk, from, end + 1);
    const restStart = Math.max(from, end + 1);
    // A copy: the chunk's buffer may be reused by the stream.
    if (restStart < chunk.length) rest = Buffer.from(chunk.subarray(restStart));
    await builder.room();
  }
  if (rest !== undefined) lines.read(rest, 0, rest.length);
}

const NEWLINE = 0x0a;

/** Reads whole lines: each through the byte parser, or the string parser when it must. */
class LineReader {
  private readonly bytes = new ByteLineParser(job.format === 'nquads', job.blankPrefix);
  private readonly strings = new NQuadsReader(TERM_KEYS, { quads: job.format === 'nquads', blankPrefix: job.blankPrefix, defaultGraph: job.graphKey });
  private line = 0;

  constructor(private readonly builder: BatchBuilder) {}

  /** Reads the lines in bytes[start, end); the last one may end without a line break. */
  read(bytes: Buffer, start: number, end: number): void {
    const parser = this.bytes;
    const builder = this.builder;
    while (start < end) {
      let lineEnd = bytes.indexOf(NEWLINE, start);
      if (lineEnd < 0 || lineEnd > end) lineEnd = end;
      this.line++;
      const result = byteLines ? parser.parse(bytes, start, lineEnd) : NEEDS_STRING_PARSER;
      if (result === NEEDS_STRING_PARSER || (result === STATEMENT && !builder.addParsed(parser))) this.parseString(bytes.toString('utf8', start, lineEnd));
      start = lineEnd + 1;
    }
  }

  private parseString(text: string): void {
    this.strings.line = this.line - 1;
    try {
      this.strings.parseLine(text, this.builder.add);
    } catch (error) {
      if (!(error instanceof RdfSyntaxError) || !job.lenient) throw error;
      this.builder.skip(error.message);
    }
  }
}

/** The document formats' parsers are imported only when needed (see document-parsers.ts). */
async function parseDocumentLazily(builder: BatchBuilder): Promise<void> {
  const { parseDocument } = await import('./document-parsers.js');
  await parseDocument(job, builder, { raw: () => openSource(builder), decompressed: () => decompressed(openSource(builder)) });
}

async function run(): Promise<void> {
  const builder = new BatchBuilder(job.batchSize);
  try {
    if (job.format === 'ntriples' || job.format === 'nquads') await parseLines(builder);
    else await parseDocumentLazily(builder);
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
