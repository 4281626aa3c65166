/**
 * A request's text against its memory budget. Parsing cannot be stopped halfway, so its cost
 * (sparql/parse-cost.ts) is weighed before it starts: a text that would take more than the budget
 * to parse is refused with the budget's error instead of growing the thread's heap by gigabytes.
 * What the parse leaves behind (the algebra, its terms) lives as long as the evaluation and is
 * charged to it (ContextLimits.reservedBytes).
 */
import { ResourceLimitError } from '../errors.js';
import { parseCostBytes } from '../sparql/index.js';
import { checkTextLimits } from '../sparql/index.js';

/**
 * The share of the parse's peak that its result keeps: the algebra of a text held about a third of
 * the estimate in our measurements (VALUES of strings and of digits, 1 MB each); half errs on the
 * side of caution.
 */
const RETAINED_SHARE = 0.5;

/**
 * Throws ResourceLimitError when parsing `text` may take more than `budget` bytes; else returns the
 * bytes its parse keeps for the evaluation. Without a budget, nothing is checked or charged.
 */
export function chargeRequestText(text: string, budget: number | undefined, kind: 'query' | 'update'): number {
  if (budget === undefined) return 0;
  // A text past the syntax limits (nesting, term length) is refused by the limit it breaks, a 400
  // that says what to change, before its size is weighed against the budget.
  checkTextLimits(text);
  const cost = parseCostBytes(text);
  if (cost > budget) {
    throw new ResourceLimitError(
      `the ${kind} text (${formatMiB(text.length)} MiB) needs about ${formatMiB(cost)} MiB of memory to parse, more than its memory budget of ${formatMiB(budget)} MiB`,
    );
  }
  return Math.ceil(cost * RETAINED_SHARE);
}

function formatMiB(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return mib >= 10 ? String(Math.round(mib)) : String(Math.round(mib * 10) / 10);
}
