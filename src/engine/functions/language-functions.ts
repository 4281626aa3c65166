/**
 * The SPARQL 1.2 functions on language tags and base directions ("abc"@ar--rtl): LANGDIR,
 * hasLANG, hasLANGDIR and STRLANGDIR. LANG, STRLANG and DATATYPE live with the other term
 * accessors (term-functions.ts).
 */
import { directionOf, type Direction, type Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { simpleLiteralArgument } from './strings.js';
import { booleanLiteral, describe, languageLiteral, simpleLiteral } from './literal-values.js';

/** A language tag as BCP 47 writes one (the grammar's LANGTAG without the @). */
export const LANGUAGE_TAG = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;

/** The base directions RDF 1.2 knows; case matters ("LTR" is not one). */
const DIRECTIONS: ReadonlySet<string> = new Set(['ltr', 'rtl']);

function langdir(term: Term): Term {
  if (term.termType !== 'Literal') throw new ExpressionError(`LANGDIR of ${describe(term)}`);
  return simpleLiteral(directionOf(term) ?? '');
}

function strlangdir(lexical: Term, language: Term, direction: Term): Term {
  const value = simpleLiteralArgument(lexical);
  const tag = simpleLiteralArgument(language);
  const dir = simpleLiteralArgument(direction);
  if (!LANGUAGE_TAG.test(tag)) throw new ExpressionError(`not a language tag: ${JSON.stringify(tag)}`);
  if (!DIRECTIONS.has(dir)) throw new ExpressionError(`not a base direction: ${JSON.stringify(dir)}`);
  return languageLiteral(value, tag, dir as Direction);
}

export const languageFunctions: Record<string, (args: Term[]) => Term> = {
  langdir: ([a]) => langdir(a),
  haslang: ([a]) => booleanLiteral(a.termType === 'Literal' && a.language !== ''),
  haslangdir: ([a]) => booleanLiteral(a.termType === 'Literal' && directionOf(a) !== undefined),
  strlangdir: ([a, b, c]) => strlangdir(a, b, c),
};
