/**
 * Readers for the four SPARQL 1.1 query result formats: XML (.srx), JSON (.srj), CSV and TSV, one
 * file each (sparql-json-parser.ts, sparql-xml-parser.ts, sparql-csv-tsv-parser.ts). The W3C
 * conformance runner reads expected results with them, and remote mode reads the answers of other
 * endpoints. Each reader takes the whole document as a string and returns rows of RDF/JS terms in
 * the order of `variables`, the same shape the engine produces; or reads it incrementally. The XML
 * reader, which brings an XML parser, is loaded when XML results are first read, as the RDF parsers
 * are (rdf-parser.ts): a process that reads none does not pay for loading it.
 */
import type { SolutionRow } from '../rdf/index.js';
import { resultsFormatOf } from './format-table.js';
import { ResultsFormatError, type IncrementalReader, type ParsedResults, type ResultsEvent } from './results-reading.js';
import { JsonReader, parseJsonResults } from './sparql-json-parser.js';
import { CsvReader, parseCsvResults, parseTsvResults, tsvReader } from './sparql-csv-tsv-parser.js';

export { ResultsFormatError, type ParsedResults } from './results-reading.js';
export { csvValueOf, parseTsvTerm } from './sparql-csv-tsv-parser.js';

/**
 * Parses a complete results document in the format named by a media type or file extension.
 * Asynchronous for XML's reader, loaded on first use; a document known to be SPARQL JSON can be
 * read at once with parseJsonResults.
 */
export async function parseSparqlResults(text: string, mediaTypeOrExtension: string): Promise<ParsedResults> {
  const format = resultsFormatOf(mediaTypeOrExtension);
  switch (format) {
    case 'xml':
      return (await loadXmlReader()).parseXmlResults(text);
    case 'json':
      return parseJsonResults(text);
    case 'csv':
      return parseCsvResults(text);
    case 'tsv':
      return parseTsvResults(text);
    default:
      throw new ResultsFormatError(`not a SPARQL results format: ${mediaTypeOrExtension}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Streaming: rows as they arrive, for answers of other endpoints that may be large

export type StreamedResults = { kind: 'bindings'; variables: string[]; rows: AsyncIterable<SolutionRow[]> } | { kind: 'boolean'; value: boolean };

/**
 * Reads a results document from a stream of chunks. Resolves once the variables (or the boolean)
 * are known; the rows then arrive in batches as the chunks do. Only one row batch is parsed
 * ahead of the consumer, and a consumer that stops early stops reading the stream.
 */
export async function streamSparqlResults(chunks: AsyncIterable<string | Uint8Array>, mediaTypeOrExtension: string): Promise<StreamedResults> {
  const reader = await incrementalReaderFor(mediaTypeOrExtension);
  const decoder = new TextDecoder();
  const iterator = chunks[Symbol.asyncIterator]();
  let pending: ResultsEvent[] = [];
  let finished = false;
  const pull = async (): Promise<void> => {
    const next = await iterator.next();
    if (next.done) {
      pending.push(...reader.push(decoder.decode()), ...reader.end());
      finished = true;
    } else {
      const text = typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
      pending.push(...reader.push(text));
    }
  };
  while (!pending.some((e) => e.type !== 'row')) {
    if (finished) throw new ResultsFormatError('SPARQL results: the stream ended before the variables were known');
    await pull();
  }
  const first = pending.find((e) => e.type !== 'row')!;
  if (first.type === 'boolean') {
    await iterator.return?.();
    return { kind: 'boolean', value: first.value };
  }
  pending = pending.filter((e) => e !== first);
  async function* rows(): AsyncGenerator<SolutionRow[]> {
    try {
      while (true) {
        const batch = pending.flatMap((e) => (e.type === 'row' ? [e.row] : []));
        pending = [];
        if (batch.length > 0) yield batch;
        if (finished) return;
        await pull();
      }
    } finally {
      if (!finished) await iterator.return?.();
    }
  }
  return { kind: 'bindings', variables: first.type === 'head' ? first.variables : [], rows: rows() };
}

async function incrementalReaderFor(mediaTypeOrExtension: string): Promise<IncrementalReader> {
  switch (resultsFormatOf(mediaTypeOrExtension)) {
    case 'tsv':
      return tsvReader();
    case 'csv':
      return new CsvReader();
    case 'xml':
      return new (await loadXmlReader()).XmlReader();
    case 'json':
      return new JsonReader();
    default:
      throw new ResultsFormatError(`not a SPARQL results format: ${mediaTypeOrExtension}`);
  }
}

function loadXmlReader(): Promise<typeof import('./sparql-xml-parser.js')> {
  return import('./sparql-xml-parser.js');
}
