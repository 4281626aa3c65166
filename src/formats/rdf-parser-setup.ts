/**
 * The RDF parsers behind parseRdf (rdf-parser.ts) but N-Triples and N-Quads' (nquads-batches.ts):
 * N3.js for Turtle and TriG,
 * rdfxml-streaming-parser for RDF/XML, jsonld-streaming-parser for JSON-LD, each set up with its
 * IRI checks and its syntax errors. Loaded only when a document is read.
 */
import { Lexer as N3Lexer, StreamParser } from 'n3';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { DataFactory } from 'rdf-data-factory';
import type * as RDF from '@rdfjs/types';
import { SparqlSyntaxError } from '../errors.js';
import { invalidIriInQuad } from '../rdf/index.js';
import { factory, type Quad } from '../rdf/index.js';
import { documentBlankPrefix } from './document-blank-nodes.js';
import { LineTracker } from './line-tracker.js';
import { RdfSyntaxError } from './rdf-syntax-error.js';
import type { ParseableRdfFormat } from './serializer.js';

type ParserStream = NodeJS.ReadWriteStream & { destroy(error?: Error): unknown };

export interface ParserSetup {
  /** Where the document goes in. */
  entry: NodeJS.WritableStream;
  /** Where quads come out. */
  parser: ParserStream;
  toSyntaxError: (error: Error) => Error;
  /** The error for a quad with an invalid IRI, naming its line where the parser knows it. */
  invalidIri: (quad: Quad) => RdfSyntaxError | undefined;
}

export function createParser(format: ParseableRdfFormat, baseIri: string | undefined): ParserSetup {
  switch (format) {
    case 'ntriples':
    case 'nquads':
      throw new Error(`${format} is read by nquads-batches.ts`);
    case 'turtle':
    case 'trig': {
      const checked = n3IriChecks();
      const parser = new StreamParser({
        format: N3_FORMAT_NAMES[format],
        baseIRI: baseIri,
        blankNodePrefix: documentBlankPrefix(),
        ...checked.options,
      } as never) as unknown as ParserStream;
      return { entry: parser, parser, toSyntaxError: n3SyntaxError, invalidIri: checked.invalidIri };
    }
    case 'rdfxml': {
      const parser = new RdfXmlParser({ baseIRI: baseIri, dataFactory: scopedBlankNodeFactory(), trackPosition: true });
      const line = (): number | undefined => (parser as unknown as { saxParser?: { line?: number } }).saxParser?.line;
      return {
        entry: parser as unknown as ParserStream,
        parser: parser as unknown as ParserStream,
        toSyntaxError: xmlSyntaxError,
        invalidIri: checkedAt(line),
      };
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
        if (error instanceof SparqlSyntaxError) return error;
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
export function n3IriChecks(): {
  options: { factory: RDF.DataFactory; lexer: N3Lexer };
  invalidIri: (quad: Quad) => RdfSyntaxError | undefined;
} {
  const lexer = new N3Lexer();
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

const N3_FORMAT_NAMES = { turtle: 'Turtle', trig: 'TriG' } as const;

/**
 * N3.js gives each document its own blank node label space; the JSON-LD and RDF/XML parsers keep
 * the labels written in the document, so two documents that both say `_:b0` would share a node.
 * This factory prefixes labels per document.
 */
function scopedBlankNodeFactory(): RDF.DataFactory {
  const prefix = documentBlankPrefix();
  const scoped = new DataFactory();
  const blankNode = scoped.blankNode.bind(scoped);
  scoped.blankNode = (label?: string) => blankNode(label === undefined ? undefined : prefix + label);
  return scoped;
}

/** JSON-LD remote contexts would mean network access from a load: refused. */
class OfflineDocumentLoader {
  load(url: string): Promise<never> {
    return Promise.reject(new RdfSyntaxError(`remote JSON-LD contexts are not fetched (${url}); inline the context in the document instead`));
  }
}

function n3SyntaxError(error: Error): Error {
  const line = (error as { context?: { line?: number } }).context?.line;
  if (line === undefined) return error instanceof SparqlSyntaxError ? error : new RdfSyntaxError(error.message);
  return new RdfSyntaxError(error.message.replace(/ on line \d+\.?$/, ''), line);
}

function xmlSyntaxError(error: Error): Error {
  const match = /^(?:Line (\d+) column (\d+): |(\d+):(\d+): )/.exec(error.message);
  if (match === null) return new RdfSyntaxError(error.message);
  const line = Number(match[1] ?? match[3]);
  const column = Number(match[2] ?? match[4]);
  return new RdfSyntaxError(error.message.slice(match[0].length), line, column);
}
