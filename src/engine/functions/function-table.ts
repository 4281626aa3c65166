/**
 * The function table: every operator and function name the evaluator may call, with its arity.
 * Names are Traqula's operator names (lowercase keywords and operator symbols) or function IRIs.
 */
import type { Term } from '../../rdf/index.js';
import { ExpressionError, type FunctionContext } from './function-context.js';
import { castFunction, isCastFunction } from './casts.js';
import { dateTimeFunctions } from './datetime.js';
import { hashFunctions } from './hash.js';
import { numericFunctions } from './numeric.js';
import { operatorFunctions } from './operators.js';
import { stringFunctions } from './strings.js';
import { termFunctions } from './term-functions.js';
import { languageFunctions } from './language-functions.js';
import { tripleTermFunctions } from './triple-term-functions.js';

export type Implementation = (args: Term[], ctx: FunctionContext) => Term;

interface Entry {
  min: number;
  max: number;
  call: Implementation;
}

const ARITY: Record<string, [number, number]> = {
  '!': [1, 1],
  uplus: [1, 1],
  uminus: [1, 1],
  '+': [1, 2],
  '-': [1, 2],
  '*': [2, 2],
  '/': [2, 2],
  '=': [2, 2],
  '!=': [2, 2],
  '<': [2, 2],
  '>': [2, 2],
  '<=': [2, 2],
  '>=': [2, 2],
  str: [1, 1],
  lang: [1, 1],
  langmatches: [2, 2],
  datatype: [1, 1],
  iri: [1, 1],
  uri: [1, 1],
  bnode: [0, 1],
  rand: [0, 0],
  abs: [1, 1],
  ceil: [1, 1],
  floor: [1, 1],
  round: [1, 1],
  concat: [0, Infinity],
  strlen: [1, 1],
  ucase: [1, 1],
  lcase: [1, 1],
  encode_for_uri: [1, 1],
  contains: [2, 2],
  strstarts: [2, 2],
  strends: [2, 2],
  strbefore: [2, 2],
  strafter: [2, 2],
  year: [1, 1],
  month: [1, 1],
  day: [1, 1],
  hours: [1, 1],
  minutes: [1, 1],
  seconds: [1, 1],
  timezone: [1, 1],
  tz: [1, 1],
  now: [0, 0],
  uuid: [0, 0],
  struuid: [0, 0],
  md5: [1, 1],
  sha1: [1, 1],
  sha256: [1, 1],
  sha384: [1, 1],
  sha512: [1, 1],
  strlang: [2, 2],
  strdt: [2, 2],
  sameterm: [2, 2],
  isiri: [1, 1],
  isuri: [1, 1],
  isblank: [1, 1],
  isliteral: [1, 1],
  isnumeric: [1, 1],
  regex: [2, 3],
  substr: [2, 3],
  replace: [3, 4],
  // SPARQL 1.2
  langdir: [1, 1],
  haslang: [1, 1],
  haslangdir: [1, 1],
  strlangdir: [3, 3],
  triple: [3, 3],
  subject: [1, 1],
  predicate: [1, 1],
  object: [1, 1],
  istriple: [1, 1],
};

const implementations: Record<string, Implementation> = {
  ...operatorFunctions,
  ...numericFunctions,
  ...stringFunctions,
  ...hashFunctions,
  ...dateTimeFunctions,
  ...termFunctions,
  ...languageFunctions,
  ...tripleTermFunctions,
};

const table = new Map<string, Entry>();
for (const [name, [min, max]] of Object.entries(ARITY)) {
  const call = implementations[name];
  if (!call) throw new Error(`function ${name} has an arity but no implementation`);
  table.set(name, { min, max, call });
}

function lookup(name: string): Entry | undefined {
  let entry = table.get(name);
  if (entry === undefined && !name.includes(':')) entry = table.get(name.toLowerCase());
  if (entry === undefined) {
    const cast = castFunction(name);
    if (cast) {
      entry = { min: 1, max: 1, call: ([arg]) => cast(arg) };
      table.set(name, entry);
    }
  }
  return entry;
}

export function isFunctionKnown(name: string): boolean {
  return table.has(name) || (!name.includes(':') && table.has(name.toLowerCase())) || isCastFunction(name);
}

/** Every name callFunction accepts, except the integer-derived cast IRIs (xsd:int, xsd:byte...). */
export function knownFunctionNames(): string[] {
  return [...Object.keys(ARITY)];
}

/**
 * Resolves a function once, for an expression compiler: the implementation for `arity` arguments,
 * or undefined when the name is unknown or does not take that many arguments.
 */
export function resolveFunction(name: string, arity: number): Implementation | undefined {
  const entry = lookup(name);
  return entry && arity >= entry.min && arity <= entry.max ? entry.call : undefined;
}

export function callFunction(name: string, args: Term[], ctx: FunctionContext): Term {
  const entry = lookup(name);
  if (entry === undefined) throw new ExpressionError(`unknown function ${name}`);
  if (args.length < entry.min || args.length > entry.max) {
    throw new ExpressionError(`${name} takes ${describeArity(entry)} arguments, not ${args.length}`);
  }
  return entry.call(args, ctx);
}

function describeArity(entry: Entry): string {
  if (entry.min === entry.max) return String(entry.min);
  return entry.max === Infinity ? `at least ${entry.min}` : `${entry.min} to ${entry.max}`;
}
