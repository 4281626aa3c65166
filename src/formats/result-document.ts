/**
 * A whole (small) result written at once in one format, as UTF-8 bytes: what a query worker sends
 * instead of leaving the writing to the main thread, which then only has to send the bytes.
 */
import type { Quad, SolutionRow } from '../rdf/index.js';
import { createQuadsSerializer, createSolutionsSerializer } from './serializers.js';
import { StringSink, type RdfFormat, type ResultsFormat } from './serializer.js';

/** HTML needs what only the HTTP layer knows (the query, a nonce, the time taken): never written ahead. */
export function isDocumentFormat(format: string): boolean {
  return format !== 'html';
}

export function solutionsDocument(format: string, variables: string[], rows: SolutionRow[]): Uint8Array {
  const sink = new StringSink();
  const serializer = createSolutionsSerializer(format as ResultsFormat, sink);
  serializer.begin(variables);
  serializer.rows(rows);
  serializer.end();
  return utf8(sink.text);
}

export function quadsDocument(format: string, prefixes: Record<string, string>, quads: Quad[]): Uint8Array {
  const sink = new StringSink();
  const serializer = createQuadsSerializer(format as RdfFormat, sink);
  serializer.begin(prefixes);
  serializer.quads(quads);
  serializer.end();
  return utf8(sink.text);
}

const encoder = new TextEncoder();

/** Bytes in a buffer of their own (Buffer.from may hand out a slice of a shared pool, which cannot be transferred). */
function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
