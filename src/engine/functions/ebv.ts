/** Effective boolean value (SPARQL 1.1 section 17.2.2), used by FILTER, &&, ||, ! and IF. */
import type { Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { numericTypeOf, xsd } from './xsd-types.js';
import { FALSE, TRUE, describe, literalValue, numericIsTrue } from './literal-values.js';

export function effectiveBooleanValue(term: Term): boolean {
  // The comparisons and connectives return these two terms: no value to look up.
  if (term === TRUE) return true;
  if (term === FALSE) return false;
  if (term.termType !== 'Literal') throw new ExpressionError(`no effective boolean value for ${describe(term)}`);
  const v = literalValue(term);
  switch (v.kind) {
    case 'boolean':
      return v.value;
    case 'numeric':
      return numericIsTrue(v.value);
    case 'string':
    case 'langString':
      return v.value.length > 0;
    case 'invalid':
      // An ill-typed boolean or number has the EBV false rather than no EBV at all.
      if (v.datatype === xsd.boolean || numericTypeOf(v.datatype)) return false;
      throw new ExpressionError(`no effective boolean value for ${describe(term)}`);
    default:
      throw new ExpressionError(`no effective boolean value for ${describe(term)}`);
  }
}
