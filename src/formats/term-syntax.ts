/**
 * Term forms shared by the N-Triples family (N-Triples, N-Quads, Turtle, TriG, TSV): IRIs,
 * literals, blank node labels that are always valid, and the bare numbers Turtle allows.
 */
import type { Term, Literal } from '../rdf/index.js';
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
  if (term.language) return quoted + '@' + term.language;
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
    default:
      throw unsupportedTerm(term);
  }
}

export function unsupportedTerm(term: Term): SerializationError {
  return new SerializationError(`cannot serialize a ${term.termType} term`);
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
export function sameTerm(a: Term, b: Term): boolean {
  if (a === b) return true;
  if (a.termType !== b.termType || a.value !== b.value) return false;
  if (a.termType === 'Literal') {
    const l = b as Literal;
    return a.language === l.language && a.datatype.value === l.datatype.value;
  }
  return true;
}
