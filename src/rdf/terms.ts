/**
 * The RDF term model shared by every layer: RDF/JS terms (the interface Traqula, N3.js and the
 * JSON-LD and RDF/XML parsers all speak), plus a compact canonical string key per term that the
 * store's dictionary and the engine's hash tables use.
 */
import { DataFactory } from 'rdf-data-factory';
import type * as RDF from '@rdfjs/types';
import { xsd, rdf } from './vocabulary.js';

export type Term = RDF.Term;
export type NamedNode = RDF.NamedNode;
export type BlankNode = RDF.BlankNode;
export type Literal = RDF.Literal;
export type Variable = RDF.Variable;
export type Quad = RDF.Quad;
/** One solution: a term (or nothing, when unbound) per variable of its result, in the result's order. */
export type SolutionRow = (RDF.Term | undefined)[];
/** A term that can stand in a stored quad (no variables, no quoted triples). */
export type GroundTerm = RDF.NamedNode | RDF.BlankNode | RDF.Literal;

export const factory = new DataFactory();

export const XSD_STRING = factory.namedNode(xsd.string);
export const RDF_LANG_STRING = factory.namedNode(rdf.langString);

export function namedNode(iri: string): RDF.NamedNode {
  return factory.namedNode(iri);
}
export function blankNode(label?: string): RDF.BlankNode {
  return factory.blankNode(label);
}
export function literal(value: string, languageOrDatatype?: string | RDF.NamedNode): RDF.Literal {
  return factory.literal(value, languageOrDatatype);
}
export function typedLiteral(value: string, datatype: string): RDF.Literal {
  return datatype === xsd.string ? factory.literal(value) : factory.literal(value, factory.namedNode(datatype));
}
export function defaultGraph(): RDF.DefaultGraph {
  return factory.defaultGraph();
}

/**
 * Canonical key of a term. One character of tag, then the parts; unambiguous because IRIs and
 * language tags never contain a double quote.
 *   IRI `<iri`, blank node `_label`, xsd:string literal `"lex`, language literal `@lang"lex`,
 *   other typed literal `^datatype"lex`, default graph `D`.
 */
export function termKey(term: RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '<' + term.value;
    case 'BlankNode':
      return '_' + term.value;
    case 'Literal': {
      if (term.language) return '@' + term.language + '"' + term.value;
      const dt = term.datatype.value;
      return dt === xsd.string ? '"' + term.value : '^' + dt + '"' + term.value;
    }
    case 'DefaultGraph':
      return 'D';
    case 'Variable':
      return '?' + term.value;
    default:
      throw new Error(`no key for term type ${term.termType}`);
  }
}

/** Inverse of {@link termKey}. */
export function termFromKey(key: string): RDF.Term {
  const tag = key.charCodeAt(0);
  switch (tag) {
    case 60 /* < */:
      return factory.namedNode(key.slice(1));
    case 95 /* _ */:
      return factory.blankNode(key.slice(1));
    case 34 /* " */:
      return factory.literal(key.slice(1));
    case 64 /* @ */: {
      const q = key.indexOf('"');
      return factory.literal(key.slice(q + 1), key.slice(1, q));
    }
    case 94 /* ^ */: {
      const q = key.indexOf('"');
      return factory.literal(key.slice(q + 1), factory.namedNode(key.slice(1, q)));
    }
    case 68 /* D */:
      return factory.defaultGraph();
    case 63 /* ? */:
      return factory.variable(key.slice(1));
    default:
      throw new Error(`malformed term key ${JSON.stringify(key.slice(0, 40))}`);
  }
}

/** N-Triples form of a term, for messages and debugging (formats/ has the fast serializers). */
export function termToString(term: RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal': {
      const lex = JSON.stringify(term.value);
      if (term.language) return `${lex}@${term.language}`;
      return term.datatype.value === xsd.string ? lex : `${lex}^^<${term.datatype.value}>`;
    }
    case 'Variable':
      return `?${term.value}`;
    case 'DefaultGraph':
      return 'DEFAULT';
    default:
      return String((term as RDF.Term).value);
  }
}
