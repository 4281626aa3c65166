/** What every function may rely on, and how a function reports that its value is "error". */
import type { Term } from '../../rdf/index.js';

/**
 * A type error or an invalid argument: the SPARQL value "error". FILTER treats it as false,
 * BIND leaves the variable unbound, and || / && may still recover from it.
 */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

export interface FunctionContext {
  /** Fixed for one query: NOW() returns the same value throughout. */
  now: Date;
  /** For IRI()/URI() resolution of relative IRIs. */
  baseIri?: string;
  /** BNODE("x") scope: the evaluator gives a fresh Map per solution row. */
  bnodes: Map<string, Term>;
}
