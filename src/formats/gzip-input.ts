/**
 * A gzip-compressed document read through its decompressor: what every RDF reader does with
 * `gzip: true` (Graph Store bodies sent with Content-Encoding: gzip, `.gz` files to LOAD).
 */
import { createGunzip } from 'node:zlib';
import { RdfSyntaxError } from './rdf-syntax-error.js';

/**
 * The input's bytes decompressed as they are read. A corrupt stream is the document's fault: its
 * error reaches `onError` as an RdfSyntaxError. The input's own errors are the caller's to handle.
 */
export function gunzipped(input: NodeJS.ReadableStream, onError: (error: RdfSyntaxError) => void): NodeJS.ReadableStream {
  const decompressor = input.pipe(createGunzip());
  decompressor.on('error', (error: Error) => onError(new RdfSyntaxError(`cannot decompress: ${error.message}`)));
  return decompressor;
}
