/**
 * Where a grouping that only counts may have its input's solutions merged (operators/counted-rows.ts):
 * inside the BGP below it, after a step past which some variable bound so far is read by no later
 * step, no group key and no aggregate, when the solutions there are expected to be many and to
 * repeat on the variables still read, by at least half. How often they repeat is estimated from the
 * store's distinct subjects and objects per predicate: the variables still read can take at most
 * the product of their distinct values. A merge also shrinks what the steps after it are expected
 * to yield, so a later merge is weighed on the solutions left.
 *
 * The aggregates must give the same answer over merged solutions with their counts as over the
 * solutions themselves: COUNT (of anything but DISTINCT *) adds the counts; MIN, MAX, SAMPLE and
 * every DISTINCT aggregate see each value once either way. SUM, AVG and GROUP_CONCAT would need
 * each value repeated, so a grouping with them is left alone.
 */
import type { AggregateSpec } from '../operators/group.js';
import { CountedRows } from '../operators/counted-rows.js';
import { EqualityBind } from '../operators/equality-bind.js';
import { FilterStep } from '../operators/filter.js';
import type { Operator } from '../operators/operator.js';
import { PatternScan } from '../operators/pattern-scan.js';
import { Sequence } from '../operators/sequence.js';
import type { StoreStatistics } from '../../store/index.js';

/** Solutions a step must be expected to yield for merging after it to be worth a hash per solution. */
const MIN_EXPECTED_ROWS = 2048;
/** Merge only where the solutions are expected to shrink to this share at most. */
const MAX_KEPT_SHARE = 0.5;

/**
 * The group's input with merging steps put in, and the slot of the counts; undefined where the
 * input is not a BGP's sequence, an aggregate needs every solution, or no step qualifies.
 */
export function withCountedRows(
  input: Operator,
  keySlots: readonly number[],
  aggregates: readonly AggregateSpec[],
  /** Slots the incoming solution binds (sub-plans evaluated per solution). */
  boundBefore: Iterable<number>,
  statistics: StoreStatistics,
  weightSlot: () => number,
): { input: Operator; weightSlot: number } | undefined {
  if (!(input instanceof Sequence) || !aggregates.every(countsMergedSolutions)) return undefined;
  const reads = input.steps.map(slotsRead);
  if (reads.some((r) => r === undefined)) return undefined;
  const boundFirst = [...boundBefore];
  const groupReads = new Set<number>([...keySlots, ...boundFirst]);
  for (const a of aggregates) {
    if (a.expression) for (const slot of a.expression.slots) groupReads.add(slot);
    if (a.variableSlot !== undefined) groupReads.add(a.variableSlot);
  }
  const steps = input.steps;
  // What each step's successors (and the grouping) still read, from the last step back.
  const readAfter: Set<number>[] = new Array(steps.length);
  let later = groupReads;
  for (let i = steps.length - 1; i >= 0; i--) {
    readAfter[i] = later;
    later = new Set([...later, ...reads[i]!]);
  }
  const withMerges: Operator[] = [];
  // Each bound slot's estimated distinct values (Infinity: not known).
  const distinct = new Map<number, number>(boundFirst.map((slot) => [slot, Infinity]));
  // What the merges so far leave of the solutions the steps' estimates expect.
  let kept = 1;
  let deadBefore = 0;
  let slot = -1;
  steps.forEach((step, i) => {
    withMerges.push(step);
    const rows = step.estimate * kept;
    for (const s of step.maybe) if (!distinct.has(s)) distinct.set(s, Math.min(distinctValues(step, s, statistics), rows));
    if (i === steps.length - 1) return;
    const live = [...distinct.keys()].filter((s) => readAfter[i].has(s)).sort((a, b) => a - b);
    const dead = distinct.size - live.length;
    // Only where one more variable stops being needed: merging again on the same slots finds nothing new.
    if (dead === deadBefore || !(rows >= MIN_EXPECTED_ROWS)) return;
    const left = Math.min(
      rows,
      live.reduce((product, s) => product * distinct.get(s)!, 1),
    );
    if (left > rows * MAX_KEPT_SHARE) return;
    if (slot < 0) slot = weightSlot();
    const merge = new CountedRows(live, slot);
    merge.estimate = left;
    withMerges.push(merge);
    kept *= left / rows;
    deadBefore = dead;
  });
  if (slot < 0) return undefined;
  const merged = new Sequence(withMerges);
  merged.estimate = input.estimate;
  return { input: merged, weightSlot: slot };
}

/** The distinct values a step's variable can take, from its predicate's figures where it has some. */
function distinctValues(step: Operator, slot: number, statistics: StoreStatistics): number {
  if (!(step instanceof PatternScan) || step.p.kind !== 'id') return Infinity;
  if (step.s.kind === 'slot' && step.s.slot === slot) return statistics.predicateSubjects?.get(step.p.id) ?? Infinity;
  if (step.o.kind === 'slot' && step.o.slot === slot) return statistics.predicateObjects?.get(step.p.id) ?? Infinity;
  return Infinity;
}

/** Whether the aggregate's answer over merged solutions, their counts added, is its answer over all of them. */
function countsMergedSolutions(a: AggregateSpec): boolean {
  if (a.expression?.subPlans.length) return false;
  if (a.aggregator === 'count') return a.expression !== null || !a.distinct;
  return a.distinct || a.aggregator === 'min' || a.aggregator === 'max' || a.aggregator === 'sample';
}

/** The slots a step of a BGP reads or binds; undefined for a kind of step this rule does not know. */
function slotsRead(step: Operator): Set<number> | undefined {
  if (step instanceof PatternScan) {
    const slots = new Set<number>();
    for (const t of [step.s, step.p, step.o]) if (t.kind === 'slot') slots.add(t.slot);
    if (step.graph.kind === 'slot') slots.add(step.graph.slot);
    for (const bound of step.objectBounds) for (const s of bound.expression.slots) slots.add(s);
    return slots;
  }
  if (step instanceof FilterStep) return step.condition.subPlans.length > 0 ? undefined : new Set(step.condition.slots);
  if (step instanceof EqualityBind) return new Set([step.from, step.to]);
  return undefined;
}
