/** Shorthands for the function library's tests: build terms, call functions, print results. */
import { blankNode, literal, namedNode, termToString, type Term } from '../../rdf/index.js';
import { XSD } from '../../rdf/index.js';
import { callFunction, type FunctionContext } from './index.js';

export const XSD_NS = XSD;

export function ctx(overrides: Partial<FunctionContext> = {}): FunctionContext {
  return { now: new Date('2024-05-06T07:08:09.123Z'), bnodes: new Map(), ...overrides };
}

/** A literal: "abc", ["abc", "en"] for a language tag, or [lexical, "xsd:type"] / [lexical, iri]. */
export function lit(value: string, typeOrLang?: string): Term {
  if (typeOrLang === undefined) return literal(value);
  if (typeOrLang.startsWith('xsd:')) return literal(value, namedNode(XSD + typeOrLang.slice(4)));
  if (typeOrLang.includes(':')) return literal(value, namedNode(typeOrLang));
  return literal(value, typeOrLang);
}

export const int = (n: number | string): Term => lit(String(n), 'xsd:integer');
export const dec = (s: string): Term => lit(s, 'xsd:decimal');
export const dbl = (s: string): Term => lit(s, 'xsd:double');
export const flt = (s: string): Term => lit(s, 'xsd:float');
export const bool = (b: boolean): Term => lit(String(b), 'xsd:boolean');
export const dt = (s: string): Term => lit(s, 'xsd:dateTime');
export const iri = (s: string): Term => namedNode(s);
export const bnode = (s: string): Term => blankNode(s);

/** Calls a function and prints its result in N-Triples form with xsd: abbreviated. */
export function call(name: string, args: Term[], context: FunctionContext = ctx()): string {
  return show(callFunction(name, args, context));
}

export function show(term: Term): string {
  return termToString(term).replace(`<${XSD}`, '<xsd:');
}

/** Like call, but answers "error" when the function's value is an error. */
export function attempt(name: string, args: Term[], context: FunctionContext = ctx()): string {
  try {
    return call(name, args, context);
  } catch (e) {
    if ((e as Error).name === 'ExpressionError') return 'error';
    throw e;
  }
}
