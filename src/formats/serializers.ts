/** The two entry points the server and the CLI call to write results in a chosen format. */
import { HtmlQuadsSerializer, HtmlSolutionsSerializer } from './html-serializer.js';
import { JsonLdSerializer } from './jsonld-serializer.js';
import { NTriplesSerializer } from './ntriples-serializer.js';
import { RdfXmlSerializer } from './rdfxml-serializer.js';
import type { HtmlOptions, QuadsSerializer, RdfFormat, ResultsFormat, SolutionsSerializer, TextSink } from './serializer.js';
import { SparqlCsvSerializer, SparqlTsvSerializer } from './sparql-csv-tsv-serializer.js';
import { SparqlJsonSerializer } from './sparql-json-serializer.js';
import { SparqlXmlSerializer } from './sparql-xml-serializer.js';
import { TurtleSerializer } from './turtle-serializer.js';

/** A serializer for SELECT/ASK results. `options` is read by `html` only. */
export function createSolutionsSerializer(format: ResultsFormat, sink: TextSink, options?: HtmlOptions): SolutionsSerializer {
  switch (format) {
    case 'json':
      return new SparqlJsonSerializer(sink);
    case 'xml':
      return new SparqlXmlSerializer(sink);
    case 'csv':
      return new SparqlCsvSerializer(sink);
    case 'tsv':
      return new SparqlTsvSerializer(sink);
    case 'html':
      return new HtmlSolutionsSerializer(sink, options);
    default:
      throw new Error(`unknown results format ${String(format)}`);
  }
}

/** A serializer for CONSTRUCT/DESCRIBE results and dumps. `options` is read by `html` only. */
export function createQuadsSerializer(format: RdfFormat, sink: TextSink, options?: HtmlOptions): QuadsSerializer {
  switch (format) {
    case 'turtle':
      return new TurtleSerializer(sink, false);
    case 'trig':
      return new TurtleSerializer(sink, true);
    case 'ntriples':
      return new NTriplesSerializer(sink, false);
    case 'nquads':
      return new NTriplesSerializer(sink, true);
    case 'jsonld':
      return new JsonLdSerializer(sink);
    case 'rdfxml':
      return new RdfXmlSerializer(sink);
    case 'html':
      return new HtmlQuadsSerializer(sink, options);
    default:
      throw new Error(`unknown RDF format ${String(format)}`);
  }
}
