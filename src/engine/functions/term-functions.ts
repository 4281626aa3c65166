/**
 * Functions on RDF terms (SPARQL 1.1 sections 17.4.1 and 17.4.2): accessors (STR, LANG,
 * DATATYPE, which is rdf:dirLangString for a literal with a base direction), constructors (IRI, BNODE, STRDT, STRLANG, UUID, STRUUID) and tests (isIRI...).
 */
import { directionOf, factory, newBlankNodeScope, termsEqual, type Term } from '../../rdf/index.js';
import { ExpressionError, type FunctionContext } from './function-context.js';
import { iriReferenceError, iriSyntaxError } from '../../rdf/index.js';
import { resolveIri } from './iri.js';
import { LANGUAGE_TAG } from './language-functions.js';
import { simpleLiteralArgument } from './strings.js';
import { rdf, xsd } from './xsd-types.js';
import { booleanLiteral, datatypeNode, describe, simpleLiteral, valueOf } from './literal-values.js';

/** Labels of BNODE() results: a label space of their own keeps them apart from other blank nodes. */
const bnodePrefix = newBlankNodeScope('b');
let bnodeCounter = 0;

/** node:crypto, loaded when a query first asks for a UUID (a one-shot command need not load it). */
function randomUUID(): string {
  return process.getBuiltinModule('node:crypto').randomUUID();
}

function freshBlankNode(): Term {
  return factory.blankNode(`${bnodePrefix}${(bnodeCounter++).toString(36)}`);
}

function str(term: Term): Term {
  if (term.termType === 'NamedNode' || term.termType === 'Literal') return simpleLiteral(term.value);
  throw new ExpressionError(`STR of ${describe(term)}`);
}

/** IRI()/URI(): the string resolved against the base; an invalid IRI (RFC 3987) is an error, so the variable stays unbound. */
function iri(term: Term, ctx: FunctionContext): Term {
  if (term.termType === 'NamedNode') return term;
  const reference = simpleLiteralArgument(term);
  const resolved = resolveIri(reference, ctx.baseIri);
  const invalid = iriReferenceError(reference) ?? iriSyntaxError(resolved);
  if (invalid !== undefined) throw new ExpressionError(`not an IRI: ${describe(term)}: ${invalid}`);
  return factory.namedNode(resolved);
}

function bnode(args: Term[], ctx: FunctionContext): Term {
  if (args.length === 0) return freshBlankNode();
  const label = simpleLiteralArgument(args[0]);
  let node = ctx.bnodes.get(label);
  if (node === undefined) {
    node = freshBlankNode();
    ctx.bnodes.set(label, node);
  }
  return node;
}

function strdt(lexical: Term, datatype: Term): Term {
  const value = simpleLiteralArgument(lexical);
  if (datatype.termType !== 'NamedNode') throw new ExpressionError(`STRDT datatype must be an IRI: ${describe(datatype)}`);
  if (datatype.value === rdf.langString) throw new ExpressionError('STRDT cannot make a language-tagged literal');
  return datatype.value === xsd.string ? simpleLiteral(value) : factory.literal(value, datatypeNode(datatype.value));
}

function strlang(lexical: Term, language: Term): Term {
  const value = simpleLiteralArgument(lexical);
  const tag = simpleLiteralArgument(language);
  if (!LANGUAGE_TAG.test(tag)) throw new ExpressionError(`not a language tag: ${JSON.stringify(tag)}`);
  return factory.literal(value, tag);
}

function literalOnly(term: Term, what: string) {
  if (term.termType !== 'Literal') throw new ExpressionError(`${what} of ${describe(term)}`);
  return term;
}

export const termFunctions: Record<string, (args: Term[], ctx: FunctionContext) => Term> = {
  str: ([a]) => str(a),
  lang: ([a]) => simpleLiteral(literalOnly(a, 'LANG').language),
  datatype: ([a]) => {
    const l = literalOnly(a, 'DATATYPE');
    if (!l.language) return l.datatype;
    return datatypeNode(directionOf(l) ? rdf.dirLangString : rdf.langString);
  },
  iri: ([a], ctx) => iri(a, ctx),
  uri: ([a], ctx) => iri(a, ctx),
  bnode: (args, ctx) => bnode(args, ctx),
  strdt: ([a, b]) => strdt(a, b),
  strlang: ([a, b]) => strlang(a, b),
  uuid: () => factory.namedNode(`urn:uuid:${randomUUID()}`),
  struuid: () => simpleLiteral(randomUUID()),
  isiri: ([a]) => booleanLiteral(a.termType === 'NamedNode'),
  isuri: ([a]) => booleanLiteral(a.termType === 'NamedNode'),
  isblank: ([a]) => booleanLiteral(a.termType === 'BlankNode'),
  isliteral: ([a]) => booleanLiteral(a.termType === 'Literal'),
  isnumeric: ([a]) => booleanLiteral(valueOf(a)?.kind === 'numeric'),
  sameterm: ([a, b]) => booleanLiteral(termsEqual(a, b)),
};
