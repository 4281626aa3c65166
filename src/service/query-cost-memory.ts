/**
 * What recent queries of each shape cost, to pick out the ones cheap enough to evaluate on the
 * main thread. Handing a query to a worker and its answer back costs two thread wake-ups, which on
 * a busy machine take longer than evaluating a one-look-up query. A shape is the query's template
 * (its text with IRIs, strings and integers taken out), so the instances of an application's
 * query share one history.
 *
 * The estimate is a moving average that rises faster than it falls: measured in wall-clock time on
 * a shared machine, single runs are often stretched by preemption, so a maximum would brand every
 * shape expensive sooner or later; a shape that is expensive for real rises above the threshold within
 * a run or two, and a run that overstays its budget on the main thread resets it (markExpensive).
 * A shape must have run a few times (on a worker, where a surprise costs no one else) before it
 * counts as cheap.
 */
import { BoundedMap } from '../bounded-map.js';
import { MAX_TEMPLATE_TEXT_LENGTH, templateOf } from '../sparql/index.js';

/** Shapes whose estimate is below this many milliseconds are cheap. */
export const CHEAP_QUERY_MS = 1;
/** Runs of a shape before it can count as cheap. */
const RUNS_BEFORE_TRUST = 3;
/** Weight of a run in the average, when it is above and when it is below the estimate. */
const RISE = 0.5;
const FALL = 0.2;
const SHAPES_KEPT = 1024;

interface ShapeCost {
  runs: number;
  estimateMs: number;
}

export class QueryCostMemory {
  private readonly shapes = new BoundedMap<string, ShapeCost>(SHAPES_KEPT);

  constructor(private readonly cheapMs = CHEAP_QUERY_MS) {}

  /**
   * The key queries that differ only in their constants share; undefined for a text too long to
   * have a template, which is never cheap and whose text should not be kept as a key.
   */
  static shapeOf(query: string): string | undefined {
    if (query.length > MAX_TEMPLATE_TEXT_LENGTH) return undefined;
    return templateOf(query)?.text ?? query;
  }

  isCheap(shape: string): boolean {
    const cost = this.shapes.get(shape);
    return cost !== undefined && cost.runs >= RUNS_BEFORE_TRUST && cost.estimateMs < this.cheapMs;
  }

  /** One run of the shape took `ms` of evaluation (parse to last row). */
  record(shape: string, ms: number): void {
    const cost = this.shapes.get(shape);
    if (!cost) {
      this.shapes.set(shape, { runs: 1, estimateMs: ms });
      return;
    }
    cost.runs++;
    cost.estimateMs += (ms - cost.estimateMs) * (ms > cost.estimateMs ? RISE : FALL);
  }

  /** The shape went over its budget on the main thread: never trust it there again soon. */
  markExpensive(shape: string, ms: number): void {
    this.shapes.set(shape, { runs: 0, estimateMs: Math.max(ms, this.cheapMs * 10) });
  }
}
