/**
 * The SPARQL 1.2 functions on triple terms: TRIPLE builds one, SUBJECT, PREDICATE and OBJECT take
 * one apart, isTRIPLE tests for one. A triple term's subject is an IRI or a blank node, its
 * predicate an IRI, its object any term (another triple term too); anything else is an error.
 */
import type { BaseQuad, Quad_Object } from '@rdfjs/types';
import { factory, type Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { booleanLiteral, describe } from './literal-values.js';

function triple(subject: Term, predicate: Term, object: Term): Term {
  if (subject.termType !== 'NamedNode' && subject.termType !== 'BlankNode') {
    throw new ExpressionError(`the subject of a triple term must be an IRI or a blank node, not ${describe(subject)}`);
  }
  if (predicate.termType !== 'NamedNode') throw new ExpressionError(`the predicate of a triple term must be an IRI, not ${describe(predicate)}`);
  if (object.termType === 'Variable' || object.termType === 'DefaultGraph') throw new ExpressionError(`not an RDF term: ${describe(object)}`);
  return factory.quad(subject, predicate, object as Quad_Object);
}

function tripleTerm(term: Term, what: string): BaseQuad {
  if (term.termType !== 'Quad') throw new ExpressionError(`${what} of ${describe(term)}, which is not a triple term`);
  return term;
}

export const tripleTermFunctions: Record<string, (args: Term[]) => Term> = {
  triple: ([s, p, o]) => triple(s, p, o),
  subject: ([t]) => tripleTerm(t, 'SUBJECT').subject,
  predicate: ([t]) => tripleTerm(t, 'PREDICATE').predicate,
  object: ([t]) => tripleTerm(t, 'OBJECT').object,
  istriple: ([t]) => booleanLiteral(t.termType === 'Quad'),
};
