/**
 * What every reader of SPARQL results shares: the parsed shape, the error, the events of an
 * incremental reader, and the terms of the formats that carry typed terms.
 */
import type { SolutionRow, Term } from '../rdf/index.js';
import type { Quad_Object } from '@rdfjs/types';
import { directionalLiteral, literal, tripleTerm, typedLiteral } from '../rdf/index.js';

export type ParsedResults = { kind: 'bindings'; variables: string[]; rows: SolutionRow[] } | { kind: 'boolean'; value: boolean };

/** A results document that does not follow its format. */
export class ResultsFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResultsFormatError';
  }
}

/** What a format's incremental reader finds in the text it has been given so far. */
export type ResultsEvent = { type: 'head'; variables: string[] } | { type: 'boolean'; value: boolean } | { type: 'row'; row: SolutionRow };

/** Reads a results document chunk by chunk (streamSparqlResults). */
export interface IncrementalReader {
  push(text: string): ResultsEvent[];
  end(): ResultsEvent[];
}

export function literalOf(value: string, language: string | undefined, datatype: string | undefined, direction?: string): Term {
  if (language && (direction === 'ltr' || direction === 'rtl')) return directionalLiteral(value, language, direction);
  if (language) return literal(value, language);
  if (datatype) return typedLiteral(value, datatype);
  return literal(value);
}

/** A triple term read from results: its subject must be an IRI or blank node, its predicate an IRI. */
export function tripleTermOf(subject: Term, predicate: Term, object: Term, format: string): Term {
  if ((subject.termType !== 'NamedNode' && subject.termType !== 'BlankNode') || predicate.termType !== 'NamedNode') {
    throw new ResultsFormatError(`SPARQL ${format} results: a triple term needs an IRI or blank node subject and an IRI predicate`);
  }
  return tripleTerm(subject, predicate, object as Quad_Object);
}
