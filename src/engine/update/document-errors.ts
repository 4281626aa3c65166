/**
 * What a LOAD says about a document it could not read. Never the parser's own message: it quotes
 * the text it stumbled on, and the document may be anything the server can reach (an internal
 * page, a secret in a file) that the requester has no right to see. The line is enough to find it.
 */
import { EvaluationError, QuiverError, SparqlSyntaxError } from '../../errors.js';

const FORMAT_NAMES: Record<string, string> = {
  turtle: 'Turtle',
  ntriples: 'N-Triples',
  nquads: 'N-Quads',
  trig: 'TriG',
  jsonld: 'JSON-LD',
  rdfxml: 'RDF/XML',
};

/** The error of a LOAD whose document failed to parse; limits and refusals pass as they are. */
export function unreadableDocument(iri: string, format: string, error: unknown): Error {
  if (error instanceof QuiverError && !(error instanceof SparqlSyntaxError)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return new EvaluationError(`LOAD <${iri}> failed: ${code}`);
  const line = error instanceof SparqlSyntaxError && error.line !== undefined ? ` (line ${error.line})` : '';
  return new EvaluationError(`LOAD <${iri}>: the document is not valid ${FORMAT_NAMES[format] ?? format}${line}`);
}
