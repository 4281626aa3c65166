/**
 * What the parse worker (parse-worker.ts) and the loading thread (file-loader.ts) say to each
 * other. The worker numbers the distinct terms it meets ("local numbers") and sends each term's key
 * once, with the statements as local numbers: the loading thread interns only new terms and maps
 * the rest through an array, and keys cross threads once per term instead of once per use. Keys go
 * as UTF-8 bytes with their dictionary hash (store/term-hash.ts), in transferred arrays: what the
 * store writes, with no string made, copied or hashed on the loading thread.
 */
import type { ParseableRdfFormat } from '../formats/index.js';

export interface ParseJob {
  /** A file path, or '-' for standard input (piped in by the parent). */
  source: string;
  format: ParseableRdfFormat;
  gzip: boolean;
  /** Base IRI for relative IRIs (Turtle, TriG, RDF/XML, JSON-LD). */
  baseIri?: string;
  /** Term key of the graph that receives default-graph statements ('D' for the default graph). */
  graphKey: string;
  /** Skip bad statements (line formats) instead of failing. */
  lenient: boolean;
  /** Prepended to blank node labels, so that blank nodes of different files never meet. */
  blankPrefix: string;
  /** Statements per batch. */
  batchSize: number;
  /** Terms the worker's term table holds before it starts over (tests lower it). */
  termLimit?: number;
}

export interface BatchMessage {
  type: 'batch';
  /** When true, the receiver forgets every local number before applying this batch. */
  reset: boolean;
  /** The local number of the first new term. */
  firstLocal: number;
  /**
   * Keys of the terms numbered firstLocal, firstLocal + 1, ...: UTF-8 bytes, one after the other;
   * term i ends at termEnds[i] and starts where term i - 1 ends (or at 0).
   */
  termBytes: Uint8Array;
  termEnds: Uint32Array;
  /** hashTermKeyBytes of term i: termHashes[2i] (high word), termHashes[2i + 1]. */
  termHashes: Uint32Array;
  /**
   * The stored values of the new terms that are long plain literals (store's codedPlainLiteral),
   * one after the other: term i's ends at codedEnds[i] and starts where term i - 1's ends; an
   * empty one for a term not coded.
   */
  codedBytes: Uint8Array;
  codedEnds: Uint32Array;
  /** count statements, four local numbers each (s, p, o, g). */
  quads: Uint32Array;
  count: number;
  /** Progress so far: bytes of the source (compressed, if it is), statements, skipped statements. */
  bytesRead: number;
  statements: number;
  skipped: number;
}

export interface SkippedMessage {
  type: 'skipped';
  message: string;
}

export interface EndMessage {
  type: 'end';
  bytesRead: number;
  statements: number;
  skipped: number;
}

export interface ErrorMessage {
  type: 'error';
  message: string;
  line?: number;
  column?: number;
}

export type ParseWorkerMessage = BatchMessage | SkippedMessage | EndMessage | ErrorMessage;

/** From the loading thread: a batch was consumed (the worker keeps a few in flight, no more). */
export interface AckMessage {
  type: 'ack';
}
