/**
 * LOAD fetches and parses its documents before the update's transaction begins: the write
 * transaction is synchronous and must not wait on the network.
 */
import type { Algebra } from '../../sparql/parse.js';
import type { Quad } from '../../rdf/terms.js';
import { EvaluationError, ProtocolError, TimeoutError } from '../../errors.js';
import { parseRdf, rdfFormatForFileName, rdfFormatForMediaType } from '../../formats/rdf-parser.js';
import type { EngineUpdateOptions } from '../engine-api.js';
import { readLoadDirectoryFile } from './load-directory.js';

const ACCEPT =
  'text/turtle, application/n-triples;q=0.9, application/trig;q=0.9, application/n-quads;q=0.9, application/rdf+xml;q=0.8, application/ld+json;q=0.7, text/plain;q=0.1';
const MAX_REDIRECTS = 5;

export type LoadedDocuments = Map<Algebra.Load, Quad[] | Error>;

export async function fetchLoadDocuments(operations: Algebra.Operation[], options: EngineUpdateOptions): Promise<LoadedDocuments> {
  const loaded: LoadedDocuments = new Map();
  for (const op of operations) {
    if (op.type !== 'load') continue;
    const load = op as Algebra.Load;
    try {
      if (options.allowLoad === false) throw new ProtocolError('LOAD is disabled on this server');
      loaded.set(load, await fetchDocument(load.source.value, options));
    } catch (error) {
      loaded.set(load, error instanceof Error ? error : new EvaluationError(String(error)));
    }
  }
  return loaded;
}

async function fetchDocument(url: string, options: EngineUpdateOptions): Promise<Quad[]> {
  if (new URL(url).protocol === 'file:') return readLoadDirectoryFile(url, options.loadDirectory);
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.deadline !== undefined ? Math.max(1, options.deadline - Date.now()) : 60_000;
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const protocol = new URL(target).protocol;
    // Only the web: never other schemes, and never local files through a redirect. A refusal by
    // policy is the client's to fix (400), like LOAD on a server where it is switched off.
    if (protocol !== 'http:' && protocol !== 'https:') throw new ProtocolError(`LOAD only fetches http(s) documents, not ${protocol}`);
    let response: Response;
    try {
      response = await doFetch(target, { headers: { accept: ACCEPT }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw new TimeoutError(`LOAD <${url}> did not answer in time`);
      throw new EvaluationError(`LOAD <${url}> failed: ${(error as Error).message}`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      target = new URL(response.headers.get('location')!, target).toString();
      continue;
    }
    if (!response.ok) throw new EvaluationError(`LOAD <${url}> answered ${response.status} ${response.statusText}`);
    const contentType = response.headers.get('content-type') ?? '';
    const format = rdfFormatForMediaType(contentType) ?? rdfFormatForFileName(new URL(target).pathname)?.format;
    if (!format) throw new EvaluationError(`LOAD <${url}>: cannot tell the RDF format of ${contentType || 'the document'}`);
    const text = await response.text();
    const quads: Quad[] = [];
    try {
      for await (const batch of parseRdf(text, format, { baseIri: target })) quads.push(...batch);
    } catch (error) {
      throw new EvaluationError(`LOAD <${url}>: ${(error as Error).message}`);
    }
    return quads;
  }
  throw new EvaluationError(`LOAD <${url}>: too many redirects`);
}
