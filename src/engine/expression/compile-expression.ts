/**
 * Compiles an algebra expression once into a closure over a solution row. Terms are decoded from
 * IDs only here, where a value is needed. An evaluation error (type error, unbound variable) is
 * an ExpressionError: FILTER treats it as false, BIND leaves the variable unbound.
 */
import type { Algebra } from '../../sparql/index.js';
import type { Term } from '../../rdf/index.js';
import { Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import type { Operator } from '../operators/operator.js';
import { ExpressionError, booleanLiteral, effectiveBooleanValue, isFunctionKnown, rdfTermEqual, resolveFunction } from '../functions/index.js';

export type Evaluate = (data: Float64Array, offset: number, ctx: ExecContext) => Term;

export interface CompiledExpression {
  evaluate: Evaluate;
  /** Slots the expression reads. */
  slots: Set<number>;
  /** Whether BNODE() appears: its labels are scoped to one solution. */
  usesBnode: boolean;
  /** The plans of its EXISTS / NOT EXISTS, for explain. */
  subPlans: Operator[];
}

/** What the expression compiler needs from the planner. */
export interface ExpressionScope {
  slotOf(variable: string): number;
  /** Plans the pattern of EXISTS / NOT EXISTS; the operator is run with the current solution. */
  planExists(pattern: Algebra.Operation): Operator;
  /** Shortcuts that compare IDs instead of terms (the optimizer's; off for differential testing). */
  compareIds?: boolean;
  /** Whether values are kept while the variables' IDs repeat (lastValueOf). */
  memoizeValues?: boolean;
  /** Whether EXISTS of an operator that can tell (Operator.anyMatch) asks it instead of evaluating it. */
  existsByFirstMatch?: boolean;
  /**
   * For a prepared plan (plan/prepared-plans.ts): a holder for a constant that each query of the
   * template sets to its own term before evaluation, or undefined for a constant of the template.
   */
  constantRef?(term: Term): ConstantRef | undefined;
}

/** A constant of the expression that is set per query (the term of one query of a template). */
export interface ConstantRef {
  term: Term;
}

const booleanTerm = booleanLiteral;

const UNBOUND_ERROR = new ExpressionError('unbound variable');

/** Functions whose every call gives a new value (BNODE() is tracked on its own, as usesBnode). */
const FRESH_PER_CALL: ReadonlySet<string> = new Set(['rand', 'uuid', 'struuid']);

/**
 * A pure expression of one or two variables (slot -1: none), evaluated again only when the
 * variables' IDs change: within one evaluation an ID names one term. Solutions often repeat a value
 * in neighbouring rows (a value of the one resource a query is about, as in BSBM Q5's
 * `?origProperty1 + 120`; an offer's price on each of its product's types, issue 23's a03:
 * `AVG(xsd:double(str(?price)))` over a million rows and two hundred thousand prices), and each
 * evaluation may decode a term and build a new one. Errors are not kept: they are thrown again.
 */
function lastValueOf(evaluate: Evaluate, slotA: number, slotB = -1): Evaluate {
  // The evaluation by its serial number: holding the context would keep its memos alive.
  let lastEvaluation = -1;
  let lastA = 0;
  let lastB = 0;
  let lastResult: Term | undefined;
  return (data, offset, ctx) => {
    const a = slotA >= 0 ? data[offset + slotA] : 0;
    const b = slotB >= 0 ? data[offset + slotB] : 0;
    if (a === lastA && b === lastB && ctx.serial === lastEvaluation && lastResult !== undefined) return lastResult;
    const result = evaluate(data, offset, ctx);
    lastEvaluation = ctx.serial;
    lastA = a;
    lastB = b;
    lastResult = result;
    return result;
  };
}

/**
 * A pure expression of one variable, its value kept per ID of the variable for the evaluation: a
 * filter or a BIND over an attribute with few values (BSBM 10k's 200,000 offers have 187
 * validFrom dates; issue 23's a05 compares each with a day) decodes and compares each value once,
 * not once per solution. The last value is tried first, as in lastValueOf. At most MEMO_IDS values
 * are kept; when that many are and fewer than half the look-ups found theirs, the rest of the
 * evaluation stops looking (a million rows of 200,000 prices, a03, would only pay for the map).
 */
function valueByIdOf(evaluate: Evaluate, slot: number): Evaluate {
  let evaluation = -1;
  let lastId = 0;
  let lastValue: Term | undefined;
  // Made for the second ID of an evaluation: one that sees a single ID (a small query's) needs none.
  let values: Map<number, Term> | undefined;
  let found = 0;
  let lookups = 0;
  let looking = true;
  return (data, offset, ctx) => {
    const id = data[offset + slot];
    if (ctx.serial === evaluation) {
      if (id === lastId && lastValue !== undefined) return lastValue;
    } else {
      evaluation = ctx.serial;
      values = undefined;
      found = lookups = 0;
      looking = true;
    }
    let value = values?.get(id);
    if (value !== undefined) found++;
    else {
      // Not kept when it throws: an error is raised again each time.
      lastValue = undefined;
      value = evaluate(data, offset, ctx);
      if (looking && lookups > 0) {
        values ??= new Map();
        if (values.size < MEMO_IDS) values.set(id, value);
        else if (found * 2 < lookups) {
          looking = false;
          values = undefined;
        }
      }
    }
    lookups++;
    lastId = id;
    lastValue = value;
    return value;
  };
}

/** Values a pure expression of one variable keeps per evaluation (valueByIdOf). */
const MEMO_IDS = 16_384;

/** The arithmetic operators (binary, and Traqula's unary forms). */
export const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/', 'uplus', 'uminus']);

export function compileExpression(expression: Algebra.Expression, scope: ExpressionScope): CompiledExpression {
  const slots = new Set<number>();
  const subPlans: Operator[] = [];
  let usesBnode = false;
  /** Whether the value is a function of the variables' terms (no RAND(), UUID(), STRUUID()). */
  let pure = true;

  const compile = (expr: Algebra.Expression): Evaluate => {
    switch (expr.subType) {
      case 'term':
        return compileTerm((expr as Algebra.TermExpression).term);
      case 'operator':
        return compileOperator(expr as Algebra.OperatorExpression);
      case 'named':
        return compileNamed(expr as Algebra.NamedExpression);
      case 'existence':
        return compileExists(expr as Algebra.ExistenceExpression);
      default:
        throw new ExpressionError(`unsupported expression ${expr.subType}`);
    }
  };

  const compileTerm = (term: Term): Evaluate => {
    if (term.termType === 'Variable') {
      const slot = scope.slotOf(term.value);
      slots.add(slot);
      return (data, offset, ctx) => {
        const id = data[offset + slot];
        if (id === 0) throw UNBOUND_ERROR;
        return ctx.termOf(id);
      };
    }
    const ref = scope.constantRef?.(term);
    if (ref) return () => ref.term;
    return () => term;
  };

  const compileNamed = (expr: Algebra.NamedExpression): Evaluate => {
    const name = expr.name.value;
    const args = expr.args.map(compile);
    if (!isFunctionKnown(name)) {
      return () => {
        throw new ExpressionError(`unknown function <${name}>`);
      };
    }
    return applyAll(name, args);
  };

  const compileExists = (expr: Algebra.ExistenceExpression): Evaluate => {
    const op = scope.planExists(expr.input);
    subPlans.push(op);
    const negate = expr.not;
    if (op.anyMatch && scope.existsByFirstMatch) return (data, offset, ctx) => booleanTerm(op.anyMatch!(data, offset, ctx) !== negate);
    return (data, offset, ctx) => {
      const seed = new Batch(ctx.width, 1);
      seed.appendRow(data, offset);
      let found = false;
      for (const batch of op.execute([seed], ctx)) {
        if (batch.length > 0) {
          found = true;
          break;
        }
      }
      return booleanTerm(found !== negate);
    };
  };

  /**
   * ?x = <iri>, ?x != <iri>, sameTerm(?x, <iri>): an IRI equals only itself, and equal terms have
   * equal IDs within one evaluation, so the comparison needs no term decoded.
   */
  const compileIdComparison = (op: string, expr: Algebra.OperatorExpression): Evaluate | undefined => {
    if (!scope.compareIds || (op !== '=' && op !== '!=' && op !== 'sameterm') || expr.args.length !== 2) return undefined;
    const [a, b] = expr.args.map((x) => (x.subType === 'term' ? (x as Algebra.TermExpression).term : undefined));
    const variable = a?.termType === 'Variable' ? a : b?.termType === 'Variable' ? b : undefined;
    const iri = a?.termType === 'NamedNode' ? a : b?.termType === 'NamedNode' ? b : undefined;
    if (!variable || !iri) return undefined;
    const slot = scope.slotOf(variable.value);
    slots.add(slot);
    const negated = op === '!=';
    const ref = scope.constantRef?.(iri) ?? { term: iri };
    // The evaluation by its serial number, as in lastValueOf: a kept plan must not hold its last context.
    let idEvaluation = -1;
    let iriId = 0;
    return (data, offset, ctx) => {
      const id = data[offset + slot];
      if (id === 0) throw UNBOUND_ERROR;
      if (idEvaluation !== ctx.serial) {
        idEvaluation = ctx.serial;
        iriId = ctx.idOf(ref.term);
      }
      return booleanTerm((id === iriId) !== negated);
    };
  };

  /** Values kept by lastValueOf below the root: the root is not wrapped a second time. */
  const kept = new Set<Evaluate>();

  /** Arithmetic over variables and constants, its value kept while its variables' IDs repeat (lastValueOf). */
  const compileArithmetic = (op: string, expr: Algebra.OperatorExpression): Evaluate | undefined => {
    if (!scope.memoizeValues || !ARITHMETIC.has(op) || expr.args.length === 0 || expr.args.length > 2 || !expr.args.every((a) => a.subType === 'term'))
      return undefined;
    const terms = expr.args.map((a) => (a as Algebra.TermExpression).term);
    if (terms.some((t) => t.termType === 'BlankNode')) return undefined;
    const slotA = terms[0].termType === 'Variable' ? scope.slotOf(terms[0].value) : -1;
    const slotB = terms.length > 1 && terms[1].termType === 'Variable' ? scope.slotOf(terms[1].value) : -1;
    const evaluate = lastValueOf(applyAll(op, expr.args.map(compile)), slotA, slotB);
    kept.add(evaluate);
    return evaluate;
  };

  const compileOperator = (expr: Algebra.OperatorExpression): Evaluate => {
    const op = expr.operator.toLowerCase();
    const byId = compileIdComparison(op, expr);
    if (byId) return byId;
    const arithmetic = compileArithmetic(op, expr);
    if (arithmetic) return arithmetic;
    switch (op) {
      case '&&':
      case '||':
        return logical(op, expr.args.map(compile));
      case 'bound': {
        const v = (expr.args[0] as Algebra.TermExpression).term;
        const slot = scope.slotOf(v.value);
        slots.add(slot);
        return (data, offset) => booleanTerm(data[offset + slot] !== 0);
      }
      case 'if': {
        const [c, a, b] = expr.args.map(compile);
        return (data, offset, ctx) => (effectiveBooleanValue(c(data, offset, ctx)) ? a : b)(data, offset, ctx);
      }
      case 'coalesce': {
        const args = expr.args.map(compile);
        return (data, offset, ctx) => {
          for (const a of args) {
            try {
              return a(data, offset, ctx);
            } catch (e) {
              if (!(e instanceof ExpressionError)) throw e;
            }
          }
          throw new ExpressionError('COALESCE: no argument has a value');
        };
      }
      case 'in':
      case 'notin':
        return membership(op === 'notin', compile(expr.args[0]), expr.args.slice(1).map(compile));
      case 'sameterm': {
        const [a, b] = expr.args.map(compile);
        return (data, offset, ctx) => booleanTerm(a(data, offset, ctx).equals(b(data, offset, ctx)));
      }
      case 'bnode': {
        usesBnode = true;
        return applyAll('bnode', expr.args.map(compile));
      }
      default:
        if (FRESH_PER_CALL.has(op)) pure = false;
        return applyAll(op, expr.args.map(compile));
    }
  };

  const compiled = compile(expression);
  const pureOfOneSlot = scope.memoizeValues === true && pure && !usesBnode && subPlans.length === 0 && slots.size === 1;
  const evaluate = pureOfOneSlot && !kept.has(compiled) ? valueByIdOf(compiled, slots.values().next().value!) : compiled;
  return { evaluate, slots, usesBnode, subPlans };
}

/** A call of a library function, looked up once here rather than by name for every solution. */
function applyAll(name: string, args: Evaluate[]): Evaluate {
  const call = resolveFunction(name, args.length);
  if (!call) {
    return () => {
      throw new ExpressionError(`${name}: unknown function or wrong number of arguments (${args.length})`);
    };
  }
  switch (args.length) {
    case 0:
      return (_d, _o, ctx) => call([], ctx.functions);
    case 1: {
      const [a] = args;
      return (d, o, ctx) => call([a(d, o, ctx)], ctx.functions);
    }
    case 2: {
      const [a, b] = args;
      return (d, o, ctx) => call([a(d, o, ctx), b(d, o, ctx)], ctx.functions);
    }
    default:
      return (d, o, ctx) =>
        call(
          args.map((a) => a(d, o, ctx)),
          ctx.functions,
        );
  }
}

/** && and || with SPARQL's three-valued logic: an error only matters when it decides the result. */
function logical(op: '&&' | '||', args: Evaluate[]): Evaluate {
  const decisive = op === '||';
  return (data, offset, ctx) => {
    let error: unknown = null;
    for (const arg of args) {
      let value: boolean;
      try {
        value = effectiveBooleanValue(arg(data, offset, ctx));
      } catch (e) {
        if (!(e instanceof ExpressionError)) throw e;
        error = e;
        continue;
      }
      if (value === decisive) return booleanTerm(decisive);
    }
    if (error) throw error;
    return booleanTerm(!decisive);
  };
}

/** IN and NOT IN: equality with each candidate; an error counts only when no candidate matched. */
function membership(negated: boolean, needle: Evaluate, candidates: Evaluate[]): Evaluate {
  return (data, offset, ctx) => {
    const value = needle(data, offset, ctx);
    let error: unknown = null;
    for (const c of candidates) {
      try {
        if (rdfTermEqual(value, c(data, offset, ctx))) return booleanTerm(!negated);
      } catch (e) {
        if (!(e instanceof ExpressionError)) throw e;
        error = e;
      }
    }
    if (error) throw error;
    return booleanTerm(negated);
  };
}

/** Evaluates a filter condition: errors count as false. */
export function passes(evaluate: Evaluate, data: Float64Array, offset: number, ctx: ExecContext): boolean {
  try {
    return effectiveBooleanValue(evaluate(data, offset, ctx));
  } catch (e) {
    if (e instanceof ExpressionError) return false;
    throw e;
  }
}

/** Evaluates an expression for BIND / projection: errors leave the variable unbound. */
export function valueOrUndefined(evaluate: Evaluate, data: Float64Array, offset: number, ctx: ExecContext): Term | undefined {
  try {
    return evaluate(data, offset, ctx);
  } catch (e) {
    if (e instanceof ExpressionError) return undefined;
    throw e;
  }
}
