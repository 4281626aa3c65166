/**
 * Estimated heap sizes of terms and quads, for memory budgets: what a sort's keys, a SERVICE
 * answer's rows or a LOAD document's quads hold. Estimates, erring high: a string counts two bytes a
 * character (V8 keeps Latin-1 strings in one), and a term that others share counts in full each time.
 */
import type * as RDF from '@rdfjs/types';
import type { Term } from './terms.js';
import { xsd } from './vocabulary.js';

/** A term object with its few fields, beside its strings. */
const TERM_OBJECT_BYTES = 64;
/** A quad object and its four references. */
const QUAD_OBJECT_BYTES = 64;

export function termBytes(term: Term | undefined): number {
  if (term === undefined) return 0;
  const value = TERM_OBJECT_BYTES + 2 * term.value.length;
  switch (term.termType) {
    case 'Literal': {
      const datatype = term.language || term.datatype.value === xsd.string ? 0 : TERM_OBJECT_BYTES + 2 * term.datatype.value.length;
      return value + 2 * term.language.length + datatype;
    }
    case 'Quad':
      return quadBytes(term);
    default:
      return value;
  }
}

export function quadBytes(quad: RDF.BaseQuad): number {
  const graph = quad.graph.termType === 'DefaultGraph' ? 0 : termBytes(quad.graph);
  return QUAD_OBJECT_BYTES + termBytes(quad.subject) + termBytes(quad.predicate) + termBytes(quad.object) + graph;
}

/** A row of terms (a solution): its array and its terms. */
export function rowBytes(row: readonly (Term | undefined)[]): number {
  let bytes = 16 + 8 * row.length;
  for (const term of row) bytes += termBytes(term);
  return bytes;
}
