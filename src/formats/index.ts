/**
 * What formats/ offers to the layers above it: the one table of formats (names, media types,
 * extensions, labels, W3C IRIs: format-table.ts), the streaming serializers of SPARQL results and
 * RDF, the RDF parsers, and the readers of SPARQL results documents. The export list is kept up to
 * date by scripts/layer-imports.mjs; this paragraph is not.
 */
export { RESULT_PAGE_STYLE } from './html-page.js';
export { loadN3IriChecks, type N3IriChecks, parseRdf } from './rdf-parser.js';
export {
  defaultFormatFor,
  downloadChoices,
  type DownloadChoice,
  type QueryKind,
  formatForMediaType,
  outputChoices,
  PARSEABLE_RDF_FORMATS,
  resultsFormatOf,
  w3cFormatIris,
  formatForOutputName,
  type FormatInfo,
  outputNamesFor,
  parseableRdfFormat,
  queryKindOf,
  RDF_FORMATS,
  rdfFormatForFileName,
  rdfFormatForMediaType,
  RESULTS_FORMATS,
} from './format-table.js';
export { isDocumentFormat, quadsDocument, solutionsDocument } from './result-document.js';
export { type ParsedResults, parseSparqlResults, ResultsFormatError, streamSparqlResults } from './results-parser.js';
export { SerializationError } from './serialization-error.js';
export { type HtmlOptions, type ParseableRdfFormat, type RdfFormat, type ResultsFormat, StringSink, type TextSink } from './serializer.js';
export { createQuadsSerializer, createSolutionsSerializer } from './serializers.js';
export { ntriplesTerm } from './term-syntax.js';
export { NQuadsReader, TERM_KEYS } from './nquads-reader.js';
export { RdfSyntaxError } from './rdf-syntax-error.js';
export { parseJsonResults } from './sparql-json-parser.js';
