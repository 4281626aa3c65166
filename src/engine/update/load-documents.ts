/**
 * LOAD fetches and parses its documents before the update's transaction begins, and before the
 * update takes the single writer (see prepareUpdate): the write transaction is synchronous and
 * must not wait on the network, and no other write should wait on a slow document either.
 *
 * What is fetched is bounded (net/outbound-http.ts): the documents of one update share the fetch
 * byte limit, stream into the parser as they arrive, and stop at the fetch time limit.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Algebra } from '../../sparql/index.js';
import type { Quad } from '../../rdf/index.js';
import { EvaluationError, ProtocolError, ResourceLimitError } from '../../errors.js';
import { quadBytes } from '../../rdf/index.js';
import { parseRdf, rdfFormatForFileName, rdfFormatForMediaType } from '../../formats/index.js';
import { FetchBudget, fetchOutbound, formatBytes } from '../../net/index.js';
import { checkLimits } from '../exec-context.js';
import type { EngineUpdateOptions } from '../engine-api.js';
import { readLoadDirectoryFile } from './load-directory.js';
import { unreadableDocument } from './document-errors.js';

const ACCEPT =
  'text/turtle, application/n-triples;q=0.9, application/trig;q=0.9, application/n-quads;q=0.9, application/rdf+xml;q=0.8, application/ld+json;q=0.7, text/plain;q=0.1';

export type LoadedDocuments = Map<Algebra.Load, Quad[] | Error>;

/**
 * The statements of an update's documents, held from their parsing to the transaction, against the
 * update's memory budget (on top of what it already holds: its parsed text).
 */
export class StatementMemory {
  constructor(
    private readonly budget: number | undefined,
    /** Bytes held so far. */
    public held = 0,
  ) {}

  charge(quads: readonly Quad[], purpose: string): void {
    if (this.budget === undefined) return;
    for (const quad of quads) this.held += quadBytes(quad);
    if (this.held > this.budget) {
      throw new ResourceLimitError(`${purpose}: the statements need more than the update's memory budget of ${formatBytes(this.budget)}`);
    }
  }
}

export async function fetchLoadDocuments(
  operations: Algebra.Operation[],
  options: EngineUpdateOptions,
  memory = new StatementMemory(undefined),
): Promise<LoadedDocuments> {
  const loaded: LoadedDocuments = new Map();
  const budget = new FetchBudget(options.fetchSettings);
  for (const op of operations) {
    if (op.type !== 'load') continue;
    const load = op as Algebra.Load;
    checkLimits(options);
    try {
      if (options.allowLoad === false) throw new ProtocolError('LOAD is disabled on this server');
      loaded.set(load, await fetchDocument(load.source.value, options, budget, memory));
    } catch (error) {
      // A request out of time or cancelled stops here: that is no failed LOAD for SILENT to hide.
      checkLimits(options);
      loaded.set(load, error instanceof Error ? error : new EvaluationError(String(error)));
    }
  }
  return loaded;
}

async function fetchDocument(url: string, options: EngineUpdateOptions, budget: FetchBudget, memory: StatementMemory): Promise<Quad[]> {
  const purpose = `LOAD <${url}>`;
  if (new URL(url).protocol === 'file:') {
    // A large file takes a while to parse: the time limit holds meanwhile (a fetched body's reads check it).
    const quads = await readLoadDirectoryFile(url, options.loadDirectory, () => checkLimits(options));
    memory.charge(quads, purpose);
    return quads;
  }
  const response = await fetchOutbound({
    url,
    purpose,
    headers: { accept: ACCEPT },
    settings: options.fetchSettings,
    budget,
    deadline: options.deadline,
    checkpoint: () => checkLimits(options),
  });
  try {
    if (response.status < 200 || response.status >= 300) throw new EvaluationError(`${purpose} answered ${response.status}`);
    const format = rdfFormatForMediaType(response.contentType) ?? rdfFormatForFileName(new URL(response.url).pathname)?.format;
    if (!format) throw new EvaluationError(`${purpose}: cannot tell the RDF format of ${describeMediaType(response.contentType)}`);
    return await parseDocument(response.body, format, url, response.url, (quads) => memory.charge(quads, purpose));
  } finally {
    response.close();
  }
}

async function parseDocument(body: NodeJS.ReadableStream, format: string, iri: string, baseIri: string, charge: (quads: Quad[]) => void): Promise<Quad[]> {
  const quads: Quad[] = [];
  try {
    for await (const batch of parseRdf(body, format, { baseIri })) {
      charge(batch);
      for (const quad of batch) quads.push(quad);
      // The writer thread parses while it commits other updates: let them through between batches.
      await nextTurn();
    }
  } catch (error) {
    throw unreadableDocument(iri, format, error);
  }
  return quads;
}

/** A media type as an error may quote it: only when it looks like one (it is the target's text). */
function describeMediaType(contentType: string): string {
  const bare = contentType.split(';')[0].trim();
  return /^[\w.+-]{1,60}\/[\w.+-]{1,60}$/.test(bare) ? bare : 'the document';
}
