/**
 * GROUP BY with aggregates (COUNT, SUM, MIN, MAX, AVG, SAMPLE, GROUP_CONCAT, and their DISTINCT
 * forms), per SPARQL 1.1 section 18.5. Without GROUP BY, all solutions form one group, which
 * exists even when there are no solutions (COUNT(*) = 0).
 */
import { type Batch, BatchWriter } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import { rowKey } from '../row-buffer.js';
import { type CompiledExpression, valueOrUndefined } from '../expression/compile-expression.js';
import {
  ExpressionError,
  arithmetic,
  callFunction,
  literalValue,
  numericLiteral,
  orderByCompare,
  type FunctionContext,
  type NumericValue,
} from '../functions/index.js';
import { literal, termKey, typedLiteral, type Term } from '../../rdf/index.js';
import { xsd } from '../../rdf/index.js';
import { termBytes } from '../../rdf/index.js';
import { Operator, slotLabel, slotList } from './operator.js';

export type AggregatorName = 'count' | 'sum' | 'min' | 'max' | 'avg' | 'sample' | 'group_concat';

export interface AggregateSpec {
  slot: number;
  aggregator: AggregatorName;
  distinct: boolean;
  /** null for COUNT(*). */
  expression: CompiledExpression | null;
  separator: string;
  /**
   * The slot when the expression is a plain variable: COUNT(?x) and COUNT(DISTINCT ?x) then count
   * IDs, decoding no term (equal terms have equal IDs within one evaluation).
   */
  variableSlot?: number;
}

/** COUNT over a variable's IDs. */
interface IdCounter extends Accumulator {
  addId(id: number, weight: number): void;
}

interface Accumulator {
  /** `weight`: how many solutions the value stands for (counted-rows.ts); only COUNT reads it. */
  add(value: Term | undefined, weight?: number): void;
  result(): Term | undefined;
}

export class Group extends Operator {
  readonly maybe: Set<number>;
  readonly certain: Set<number>;

  constructor(
    readonly child: Operator,
    readonly keySlots: number[],
    readonly aggregates: AggregateSpec[],
    /** Slots that make a solution distinct for COUNT(DISTINCT *). */
    readonly solutionSlots: number[],
    /**
     * The slot where the input keeps how many solutions each one stands for (counted-rows.ts), or
     * -1: one each. Only with aggregates that a count of alike solutions leaves right (COUNT,
     * COUNT(DISTINCT ?x), MIN, MAX, SAMPLE).
     */
    readonly weightSlot = -1,
  ) {
    super();
    this.maybe = new Set([...keySlots, ...aggregates.map((a) => a.slot)]);
    // A group exists only for some input solution, so a key its input always binds is always bound
    // (and a join on it can hash: joins of grouped sub-selects on their group keys).
    this.certain = new Set([
      ...aggregates.filter((a) => a.aggregator === 'count').map((a) => a.slot),
      ...(keySlots.length > 0 ? keySlots.filter((s) => child.certain.has(s)) : []),
    ]);
    this.estimate = keySlots.length === 0 ? 1 : Math.max(1, Math.sqrt(child.estimate || 1));
  }

  describe(slotNames: readonly string[]): string {
    const keys = this.keySlots.length ? `by ${slotList(this.keySlots, slotNames)}` : 'one group';
    return `${keys}; ${this.aggregates.map((a) => `${a.aggregator.toUpperCase()} as ${slotLabel(a.slot, slotNames)}`).join(', ')}`;
  }

  override children(): Operator[] {
    return [this.child];
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const groups = new Map<number | string, { keys: Float64Array; accumulators: Accumulator[] }>();
    for (const batch of this.child.execute(input, ctx)) {
      ctx.checkpoint();
      const data = batch.data;
      const weightSlot = this.weightSlot;
      for (let r = 0; r < batch.length; r++) {
        const offset = r * width;
        const weight = weightSlot < 0 ? 1 : data[offset + weightSlot] || 1;
        const key = this.keySlots.length === 0 ? '' : rowKey(data, offset, this.keySlots);
        let group = groups.get(key);
        if (!group) {
          const keys = new Float64Array(this.keySlots.length);
          this.keySlots.forEach((s, i) => (keys[i] = data[offset + s]));
          group = { keys, accumulators: this.aggregates.map((a) => newAccumulator(a, ctx)) };
          groups.set(key, group);
          ctx.reserve(groupBytes(key, this.aggregates.length));
        }
        for (let i = 0; i < this.aggregates.length; i++) {
          const spec = this.aggregates[i];
          if (spec.expression === null) {
            // COUNT(*): a solution counts; COUNT(DISTINCT *) counts distinct solutions.
            group.accumulators[i].add(spec.distinct ? solutionTerm(data, offset, this.solutionSlots) : COUNTED, weight);
          } else if (countsIds(spec)) {
            (group.accumulators[i] as IdCounter).addId(data[offset + spec.variableSlot!], weight);
          } else {
            group.accumulators[i].add(valueOrUndefined(spec.expression.evaluate, data, offset, ctx), weight);
          }
        }
      }
    }
    if (groups.size === 0 && this.keySlots.length === 0) {
      groups.set('', { keys: new Float64Array(0), accumulators: this.aggregates.map((a) => newAccumulator(a, ctx)) });
    }
    const out = new BatchWriter(width);
    for (const group of groups.values()) {
      const target = out.target();
      const row = target.length++;
      const base = row * width;
      target.data.fill(0, base, base + width);
      this.keySlots.forEach((s, i) => (target.data[base + s] = group.keys[i]));
      this.aggregates.forEach((spec, i) => {
        const value = group.accumulators[i].result();
        target.data[base + spec.slot] = value === undefined ? 0 : ctx.idOf(value);
      });
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}

const COUNTED = literal('1');

/**
 * A group's map entry, its key (a string when it has several slots), its typed array of key IDs
 * (an array buffer object besides its bytes) and an accumulator (closures) per aggregate.
 */
function groupBytes(key: number | string, aggregates: number): number {
  return 256 + (typeof key === 'string' ? 2 * key.length : 0) + 128 * aggregates;
}

/** A stand-in term for a whole solution, so that DISTINCT * can compare solutions. */
function solutionTerm(data: Float64Array, offset: number, slots: number[]): Term {
  return literal(String(rowKey(data, offset, slots.length ? slots : [])));
}

function countsIds(spec: AggregateSpec): boolean {
  return spec.aggregator === 'count' && spec.variableSlot !== undefined;
}

function idCounter(distinct: boolean, ctx: ExecContext): IdCounter {
  let n = 0;
  const seen = distinct ? new Set<number>() : undefined;
  return {
    addId(id, weight) {
      if (id === 0) return;
      if (seen) {
        if (seen.has(id)) return;
        seen.add(id);
        ctx.reserve(16);
        n++;
      } else n += weight;
    },
    add() {
      throw new Error('an ID counter counts IDs');
    },
    result: () => typedLiteral(String(n), xsd.integer),
  };
}

function newAccumulator(spec: AggregateSpec, ctx: ExecContext): Accumulator {
  if (countsIds(spec)) return idCounter(spec.distinct, ctx);
  const inner = baseAccumulator(spec, ctx);
  if (!spec.distinct) return inner;
  const seen = new Set<string>();
  return {
    // A DISTINCT aggregate counts a value once, however many solutions brought it.
    add(value) {
      if (value === undefined) return inner.add(value);
      const key = termKey(value);
      if (seen.has(key)) return;
      seen.add(key);
      // The set's entry and key, and the value the accumulator may keep (a GROUP_CONCAT part).
      ctx.reserve(48 + 2 * key.length + termBytes(value));
      inner.add(value);
    },
    result: () => inner.result(),
  };
}

const ZERO = typedLiteral('0', xsd.integer);
const ZERO_VALUE: NumericValue = { type: 'integer', value: 0n };

/**
 * SUM's and AVG's running total, as `+` would add it value by value (SPARQL 1.1 section 18.5.1.3).
 * While every value is a number it is kept as a number: building a literal per row, to be parsed
 * again by the next addition, cost more than the additions. A value that is not a number hands the
 * total to `+` as a term (so whatever `+` does with it, an error included, stays its business); an
 * error or an unbound value leaves the total unbound.
 */
class RunningSum {
  private number: NumericValue | undefined = ZERO_VALUE;
  private term: Term | undefined;
  private failed = false;

  constructor(private readonly functions: FunctionContext) {}

  add(value: Term | undefined): void {
    if (this.failed) return;
    if (value === undefined) {
      this.failed = true;
      return;
    }
    if (this.number !== undefined) {
      const known = value.termType === 'Literal' ? literalValue(value) : undefined;
      if (known?.kind === 'numeric') {
        this.number = arithmetic('+', this.number, known.value);
        return;
      }
      this.term = numericLiteral(this.number);
      this.number = undefined;
    }
    const next = safe(() => callFunction('+', [this.term!, value], this.functions));
    if (next === undefined) this.failed = true;
    else this.term = next;
  }

  total(): Term | undefined {
    if (this.failed) return undefined;
    return this.number !== undefined ? numericLiteral(this.number) : this.term;
  }
}

function baseAccumulator(spec: AggregateSpec, ctx: ExecContext): Accumulator {
  const f = ctx.functions;
  switch (spec.aggregator) {
    case 'count': {
      let n = 0;
      return {
        add: (v, weight = 1) => {
          if (v !== undefined) n += weight;
        },
        result: () => typedLiteral(String(n), xsd.integer),
      };
    }
    case 'sum': {
      const sum = new RunningSum(f);
      return { add: (v) => sum.add(v), result: () => sum.total() };
    }
    case 'avg': {
      const sum = new RunningSum(f);
      let n = 0;
      return {
        add: (v) => {
          n++;
          sum.add(v);
        },
        result: () => {
          const total = sum.total();
          return total === undefined ? undefined : n === 0 ? ZERO : safe(() => callFunction('/', [total, typedLiteral(String(n), xsd.integer)], f));
        },
      };
    }
    case 'min':
    case 'max': {
      const sign = spec.aggregator === 'min' ? 1 : -1;
      let best: Term | undefined;
      let failed = false;
      return {
        add: (v) => {
          if (v === undefined) {
            failed = true;
            return;
          }
          if (best === undefined || sign * orderByCompare(v, best) < 0) best = v;
        },
        result: () => (failed ? undefined : best),
      };
    }
    case 'sample': {
      let sample: Term | undefined;
      return {
        add: (v) => {
          if (sample === undefined) sample = v;
        },
        result: () => sample,
      };
    }
    case 'group_concat': {
      // The result is a simple literal, whatever the values' language tags (SPARQL 1.1 section 18.5.1.7).
      const parts: string[] = [];
      let failed = false;
      return {
        add: (v) => {
          if (v === undefined || v.termType !== 'Literal') failed = true;
          else {
            // The part and, at the end, its copy in the joined string.
            ctx.reserve(8 + 2 * (v.value.length + spec.separator.length));
            parts.push(v.value);
          }
        },
        result: () => (failed ? undefined : literal(parts.join(spec.separator))),
      };
    }
  }
}

function safe(fn: () => Term): Term | undefined {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ExpressionError) return undefined;
    throw e;
  }
}
