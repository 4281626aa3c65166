/**
 * Term forms shared by the N-Triples family (N-Triples, N-Quads, Turtle, TriG, TSV): IRIs,
 * literals (RDF 1.2 directional ones `"abc"@ar--rtl` too), triple terms `<<( s p o )>>`, blank
 * node labels that are always valid, and the bare numbers Turtle allows.
 */
import { directionOf, termsEqual, type Term, type Literal } from '../rdf/index.js';
import { xsd } from '../rdf/index.js';
import { escapeIri, escapeNTriplesString } from './escaping.js';
import { SerializationError } from './serialization-error.js';

// Labels that are valid everywhere we write them (N-Triples, Turtle, and XML NCNames for
// rdf:nodeID) pass through unchanged; every other label, and every label that starts with the
// reserved `x_`, is hex-encoded behind `x_`. The mapping is injective, so distinct blank nodes stay
// distinct, and stable, so the same node keeps its label across batches.
const PORTABLE_LABEL = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const ENCODED_PREFIX = 'x_';

/** A blank node label valid in N-Triples, Turtle, TriG and as an XML NCName. */
export function portableBlankNodeLabel(label: string): string {
  if (PORTABLE_LABEL.test(label) && !label.startsWith(ENCODED_PREFIX)) return label;
  let hex = ENCODED_PREFIX;
  for (let i = 0; i < label.length; i++) hex += label.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}

export function ntriplesIri(iri: string): string {
  return '<' + escapeIri(iri) + '>';
}

/** A literal in N-Triples form, with a caller-chosen rendering of the datatype IRI. */
export function ntriplesLiteral(term: Literal, datatype: (iri: string) => string = ntriplesIri): string {
  const quoted = '"' + escapeNTriplesString(term.value) + '"';
  if (term.language) {
    const direction = directionOf(term);
    return direction === undefined ? quoted + '@' + term.language : quoted + '@' + term.language + '--' + direction;
  }
  const dt = term.datatype.value;
  return dt === xsd.string ? quoted : quoted + '^^' + datatype(dt);
}

/** A term in N-Triples form (subject, predicate, object or graph). */
export function ntriplesTerm(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '<' + escapeIri(term.value) + '>';
    case 'BlankNode':
      return '_:' + portableBlankNodeLabel(term.value);
    case 'Literal':
      return ntriplesLiteral(term);
    case 'Quad':
      // RDF 1.2 triple term, as N-Triples 1.2 writes it (the canonical form has these spaces).
      return '<<( ' + ntriplesTerm(term.subject) + ' ' + ntriplesTerm(term.predicate) + ' ' + ntriplesTerm(term.object) + ' )>>';
    default:
      throw unsupportedTerm(term);
  }
}

export function unsupportedTerm(term: Term): SerializationError {
  if (term.termType === 'Quad') return new SerializationError('an RDF 1.2 triple term can only be an object');
  return new SerializationError(`cannot serialize a ${term.termType} term`);
}

/** The error of a format that has no way to write an RDF 1.2 triple term. */
export function tripleTermRefused(format: string): SerializationError {
  return new SerializationError(`${format} cannot carry RDF 1.2 triple terms; choose N-Triples, N-Quads, Turtle, TriG or RDF/XML for data that holds them`);
}

const INTEGER = /^[+-]?[0-9]+$/;
const DECIMAL = /^[+-]?[0-9]*\.[0-9]+$/;
const DOUBLE = /^[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+$/;

/**
 * The bare Turtle form of a numeric literal (xsd:integer, xsd:decimal, xsd:double) when its
 * lexical form is one Turtle reads back as exactly that literal; otherwise undefined.
 */
export function bareNumber(term: Literal): string | undefined {
  const dt = term.datatype.value;
  const v = term.value;
  if (dt === xsd.integer) return INTEGER.test(v) ? v : undefined;
  if (dt === xsd.decimal) return DECIMAL.test(v) ? v : undefined;
  if (dt === xsd.double) return DOUBLE.test(v) ? v : undefined;
  return undefined;
}

/** Like {@link bareNumber}, plus the Turtle keywords `true` and `false`. */
export function bareTurtleLiteral(term: Literal): string | undefined {
  if (term.datatype.value === xsd.boolean) {
    return term.value === 'true' || term.value === 'false' ? term.value : undefined;
  }
  return bareNumber(term);
}

/** Whether two terms are the same RDF term (cheaper than building keys on the hot path). */
export const sameTerm = termsEqual;
