/**
 * The RDF term model shared by every layer: RDF/JS terms (the interface Traqula, N3.js and the
 * JSON-LD and RDF/XML parsers all speak), plus a compact canonical string key per term that the
 * store's dictionary and the engine's hash tables use.
 *
 * RDF 1.2 adds two kinds of term, both in their RDF/JS form: a triple term is an RDF/JS `Quad`
 * whose graph is the default graph (only an object may be one), and a directional language-tagged
 * string is a literal with `direction` 'ltr' or 'rtl' (datatype rdf:dirLangString).
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
/** An RDF 1.2 triple term: a quad in the default graph, used as a term. */
export type TripleTerm = RDF.Quad;
/** A term that can stand in a stored quad (no variables; a triple term only as an object). */
export type GroundTerm = RDF.NamedNode | RDF.BlankNode | RDF.Literal | TripleTerm;
/** The base direction of a directional language-tagged string. */
export type Direction = 'ltr' | 'rtl';

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
/** A language-tagged string with a base direction, `"abc"@ar--rtl`. */
export function directionalLiteral(value: string, language: string, direction: Direction): RDF.Literal {
  return factory.literal(value, { language, direction });
}
/** A triple term `<<( s p o )>>`. */
export function tripleTerm(subject: RDF.Quad_Subject, predicate: RDF.Quad_Predicate, object: RDF.Quad_Object): TripleTerm {
  return factory.quad(subject, predicate, object, factory.defaultGraph());
}
export function isTripleTerm(term: RDF.Term): term is TripleTerm {
  return term.termType === 'Quad';
}
/** The base direction of a literal, or undefined for one without ('' and null count as none). */
export function directionOf(term: RDF.Literal): Direction | undefined {
  const direction = term.direction;
  return direction === 'ltr' || direction === 'rtl' ? direction : undefined;
}

/**
 * Canonical key of a term. One character of tag, then the parts; unambiguous because IRIs and
 * language tags never contain a double quote.
 *   IRI `<iri`, blank node `_label`, xsd:string literal `"lex`, language literal `@lang"lex`,
 *   other typed literal `^datatype"lex`, default graph `D`, variable `?name`;
 *   RDF 1.2: directional literal `/lang--dir"lex` (dir is `ltr` or `rtl`, always three letters),
 *   triple term `[` then the subject's and the predicate's keys each behind its length and a colon,
 *   then the object's key: `[5:<urn:s5:<urn:p"o`. The lengths make nesting unambiguous whatever
 *   the parts hold.
 * The RDF 1.1 keys are unchanged: the store's dictionary holds keys, so stores written before RDF
 * 1.2 read the same, and the new kinds only add the tags `/` and `[`.
 */
export function termKey(term: RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '<' + term.value;
    case 'BlankNode':
      return '_' + term.value;
    case 'Literal':
      return literalKey(term);
    case 'Quad':
      return tripleTermKey(term);
    case 'DefaultGraph':
      return 'D';
    case 'Variable':
      return '?' + term.value;
    default:
      throw new Error(`no key for term type ${(term as RDF.Term).termType}`);
  }
}

function literalKey(term: RDF.Literal): string {
  if (term.language) {
    const direction = directionOf(term);
    return direction === undefined ? '@' + term.language + '"' + term.value : '/' + term.language + '--' + direction + '"' + term.value;
  }
  const dt = term.datatype.value;
  return dt === xsd.string ? '"' + term.value : '^' + dt + '"' + term.value;
}

function tripleTermKey(term: RDF.BaseQuad): string {
  if (term.graph.termType !== 'DefaultGraph') throw new Error('a triple term has no graph');
  const subject = termKey(term.subject);
  const predicate = termKey(term.predicate);
  return '[' + subject.length + ':' + subject + predicate.length + ':' + predicate + termKey(term.object);
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
    case 47 /* / */: {
      const q = key.indexOf('"');
      const direction = key.slice(q - 3, q);
      if (direction !== 'ltr' && direction !== 'rtl') throw malformedKey(key);
      return factory.literal(key.slice(q + 1), { language: key.slice(1, q - 5), direction });
    }
    case 91 /* [ */:
      return tripleTermFromKey(key);
    case 68 /* D */:
      return factory.defaultGraph();
    case 63 /* ? */:
      return factory.variable(key.slice(1));
    default:
      throw malformedKey(key);
  }
}

function malformedKey(key: string): Error {
  return new Error(`malformed term key ${JSON.stringify(key.slice(0, 40))}`);
}

function tripleTermFromKey(key: string): TripleTerm {
  const [subjectKey, afterSubject] = lengthPrefixed(key, 1);
  const [predicateKey, objectAt] = lengthPrefixed(key, afterSubject);
  const subject = termFromKey(subjectKey);
  const predicate = termFromKey(predicateKey);
  const object = termFromKey(key.slice(objectAt));
  if (!isSubject(subject) || predicate.termType !== 'NamedNode' || !isObject(object)) throw malformedKey(key);
  return tripleTerm(subject, predicate, object);
}

/** The part of `key` written at `at` as `length:part`, and where what follows it starts. */
function lengthPrefixed(key: string, at: number): [string, number] {
  const colon = key.indexOf(':', at);
  const length = Number(key.slice(at, colon));
  if (colon < 0 || !Number.isInteger(length) || colon + 1 + length > key.length) throw malformedKey(key);
  return [key.slice(colon + 1, colon + 1 + length), colon + 1 + length];
}

function isSubject(term: RDF.Term): term is RDF.Quad_Subject {
  return term.termType === 'NamedNode' || term.termType === 'BlankNode' || term.termType === 'Quad' || term.termType === 'Variable';
}
function isObject(term: RDF.Term): term is RDF.Quad_Object {
  return isSubject(term) || term.termType === 'Literal';
}

/**
 * RDF term equality (SPARQL's sameTerm): the same kind, the same value, and for literals the same
 * datatype, language and direction; triple terms are equal when their parts are. Field by field
 * rather than `a.equals(b)`: terms come from several factories (ours, Traqula's, N3.js').
 */
export function termsEqual(a: RDF.Term, b: RDF.Term): boolean {
  if (a === b) return true;
  if (a.termType !== b.termType || a.value !== b.value) return false;
  switch (a.termType) {
    case 'Literal': {
      const l = b as RDF.Literal;
      return a.language === l.language && a.datatype.value === l.datatype.value && directionOf(a) === directionOf(l);
    }
    case 'Quad':
      return sameParts(a, b as RDF.Quad, termsEqual);
    default:
      return true;
  }
}

/**
 * Whether two triple terms' subjects, predicates and objects agree by `equal`: how SPARQL 1.2
 * extends both sameTerm and `=` (RDFterm-equal applied to the parts) to triple terms.
 */
export function sameParts(a: RDF.BaseQuad, b: RDF.BaseQuad, equal: (x: RDF.Term, y: RDF.Term) => boolean): boolean {
  return equal(a.subject, b.subject) && equal(a.predicate, b.predicate) && equal(a.object, b.object);
}

/**
 * SPARQL 1.2's ORDER BY rank of a term's kind: unbound < blank nodes < IRIs < literals < triple
 * terms. Within literals the engine orders by value; triple terms order by {@link compareTripleTerms}.
 */
export function orderRank(term: RDF.Term | undefined): number {
  if (term === undefined) return 0;
  switch (term.termType) {
    case 'BlankNode':
      return 1;
    case 'NamedNode':
      return 2;
    case 'Literal':
      return 3;
    case 'Quad':
      return 4;
    default:
      return 5;
  }
}

/**
 * The ORDER BY order of two triple terms: by subject, then predicate, then object, each compared
 * by the order ORDER BY uses for terms (`compare`, the engine's, which knows literal values).
 */
export function compareTripleTerms(a: RDF.BaseQuad, b: RDF.BaseQuad, compare: (x: RDF.Term, y: RDF.Term) => number): number {
  return compare(a.subject, b.subject) || compare(a.predicate, b.predicate) || compare(a.object, b.object);
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
      const direction = directionOf(term);
      if (term.language) return direction === undefined ? `${lex}@${term.language}` : `${lex}@${term.language}--${direction}`;
      return term.datatype.value === xsd.string ? lex : `${lex}^^<${term.datatype.value}>`;
    }
    case 'Quad':
      return `<<( ${termToString(term.subject)} ${termToString(term.predicate)} ${termToString(term.object)} )>>`;
    case 'Variable':
      return `?${term.value}`;
    case 'DefaultGraph':
      return 'DEFAULT';
    default:
      return String((term as RDF.Term).value);
  }
}
