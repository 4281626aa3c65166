/**
 * The parse worker's paths for document formats (Turtle, TriG, RDF/XML, JSON-LD), through N3.js and
 * the streaming parsers. A module of its own so that the worker imports it only for those formats:
 * loading these parsers costs ~150 ms of CPU and ~0.3 s before the first statement, which an
 * N-Triples or N-Quads load (parse-worker.ts's own line parser) does not need to pay.
 */
import { StreamParser } from 'n3';
import type * as RDF from '@rdfjs/types';
import { parseRdf } from '../formats/index.js';
import { loadN3IriChecks } from '../formats/index.js';
import { blankNode, termKey, tripleTerm, type Quad } from '../rdf/index.js';
import { LenientTurtleParser, TurtleStatementSplitter } from './lenient-turtle.js';
import type { ParseJob } from './parse-messages.js';
import { StringDecoder } from 'node:string_decoder';

/** What the document parsers feed: the worker's batch builder. */
export interface StatementBuilder {
  readonly statements: number;
  add(s: string, p: string, o: string, g: string): void;
  skip(message: string): void;
  /** Resolves once the loader has room for another batch. */
  room(): Promise<void>;
}

/** The source as read (compressed or not), and decompressed. */
export interface SourceStreams {
  raw(): NodeJS.ReadableStream;
  decompressed(): NodeJS.ReadableStream;
}

export async function parseDocument(job: ParseJob, builder: StatementBuilder, source: SourceStreams): Promise<void> {
  if ((job.format === 'turtle' || job.format === 'trig') && job.lenient) await parseTurtleLeniently(job, builder, source);
  else if (job.format === 'turtle' || job.format === 'trig') await parseTurtle(job, builder, source);
  else await parseOther(job, builder, source);
}

/** The key of a parsed term, with blank nodes (those inside RDF 1.2 triple terms too) moved into this file's label space. */
function keyOf(job: ParseJob, term: RDF.Term): string {
  if (term.termType === 'BlankNode') return '_' + job.blankPrefix + term.value;
  return term.termType === 'Quad' ? termKey(relabelled(job, term)) : termKey(term);
}

function relabelled<T extends RDF.Term>(job: ParseJob, term: T): T {
  if (term.termType === 'BlankNode') return blankNode(job.blankPrefix + term.value) as T;
  if (term.termType !== 'Quad') return term;
  const quad = term as RDF.Term as RDF.Quad;
  return tripleTerm(relabelled(job, quad.subject), quad.predicate, relabelled(job, quad.object)) as RDF.Term as T;
}

function addQuad(job: ParseJob, builder: StatementBuilder, quad: Quad): void {
  const graph = quad.graph.termType === 'DefaultGraph' ? job.graphKey : keyOf(job, quad.graph);
  builder.add(keyOf(job, quad.subject), keyOf(job, quad.predicate), keyOf(job, quad.object), graph);
}

/** Turtle and TriG through N3.js directly: its errors carry the token's column, which parseRdf drops. */
async function parseTurtle(job: ParseJob, builder: StatementBuilder, source: SourceStreams): Promise<void> {
  const checked = await loadN3IriChecks();
  const parser = new StreamParser({ format: job.format === 'trig' ? 'TriG' : 'Turtle', baseIRI: job.baseIri, ...checked.options } as never);
  source.decompressed().pipe(parser as unknown as NodeJS.WritableStream);
  try {
    for await (const quad of parser as AsyncIterable<Quad>) {
      const invalid = checked.invalidIri(quad);
      if (invalid !== undefined) throw Object.assign(new Error(invalid.message.replace(/ \(line \d+\)$/, '')), { context: { line: invalid.line } });
      addQuad(job, builder, quad);
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
async function parseTurtleLeniently(job: ParseJob, builder: StatementBuilder, source: SourceStreams): Promise<void> {
  const splitter = new TurtleStatementSplitter();
  const parser = new LenientTurtleParser(job.format === 'trig' ? 'TriG' : 'Turtle', job.baseIri, {
    quad: (quad) => addQuad(job, builder, quad),
    skipped: (message) => builder.skip(message),
  });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of source.decompressed()) {
    parser.add(splitter.push(decoder.write(chunk as Buffer)));
    await builder.room();
  }
  parser.add(splitter.push(decoder.end()));
  parser.add(splitter.end());
  parser.flush();
}

async function parseOther(job: ParseJob, builder: StatementBuilder, source: SourceStreams): Promise<void> {
  // --lenient: a statement with an invalid IRI is skipped (other errors still stop these formats' parsers).
  const skipInvalid = job.lenient ? (error: Error): void => builder.skip(error.message) : undefined;
  for await (const batch of parseRdf(source.raw(), job.format, { baseIri: job.baseIri, gzip: job.gzip, batchSize: 1024, skipInvalid })) {
    for (const quad of batch) addQuad(job, builder, quad);
    await builder.room();
  }
}
