/**
 * The plan the engine chose for a query (the explain contract: POST with explain=true answers
 * JSON): one row per operator, indented as the tree, with the rows the optimizer expected, the rows
 * it got and the time, and a bar for each operator's share of the total time.
 */
import type { PlanNode, QueryExplanation } from '../service/sparql-service.js';
import { clear, el, formatDuration, plural } from './dom.js';
import type { PrefixShortener } from './rdf-terms.js';

export type { PlanNode, QueryExplanation };

/** An estimate this many times off (either way) is flagged: it is where plans go wrong. */
const MISESTIMATE_FACTOR = 10;

export function isExplanation(value: unknown): value is QueryExplanation {
  const v = value as QueryExplanation | null;
  return typeof v === 'object' && v !== null && typeof v.resultRows === 'number' && typeof v.plan === 'object' && v.plan !== null;
}

/** `names` shortens the IRIs of the details with the query's prefixes (and the known ones). */
export function renderExplanation(container: HTMLElement, explanation: QueryExplanation, names: PrefixShortener): void {
  clear(container);
  // Shares of the plan's own time (the root is inclusive), not of the total, which also counts parsing.
  const total = Math.max(explanation.plan.timeMs, 0.001);
  const summary = `${plural(explanation.resultRows, 'result row', 'result rows')} in ${formatDuration(explanation.totalTimeMs)}`;
  const header = el(
    'tr',
    {},
    ['Operator', 'Details', 'Estimated rows', 'Actual rows', 'Time', 'Share of time'].map((h) => el('th', { text: h, attrs: { scope: 'col' } })),
  );
  const rows: HTMLTableRowElement[] = [];
  addRows(rows, explanation.plan, 0, total, names);
  container.append(
    el('p', { className: 'plan-summary', text: summary }),
    el('div', { className: 'table-scroll' }, [el('table', { className: 'plan' }, [el('thead', {}, [header]), el('tbody', {}, rows)])]),
    el('p', { className: 'note', text: 'Time is inclusive: an operator’s time contains the time of the operators under it.' }),
  );
}

function addRows(rows: HTMLTableRowElement[], node: PlanNode, depth: number, total: number, names: PrefixShortener): void {
  const share = Math.min(1, Math.max(0, node.timeMs / total));
  const bar = el('span', { className: 'share-bar' });
  bar.style.width = `${(share * 100).toFixed(1)}%`;
  const operator = el('td', { className: 'plan-operator', text: node.operator });
  operator.style.paddingLeft = `${0.5 + depth * 1.25}rem`;
  const row = el('tr', { className: `plan-node${misestimated(node) ? ' misestimate' : ''}`, attrs: { 'data-depth': String(depth) } }, [
    operator,
    el('td', { className: 'plan-details', text: shortenDetails(node.details, names), title: node.details }),
    el('td', { className: 'number', text: node.estimatedRows === null ? '–' : formatCount(node.estimatedRows) }),
    el('td', { className: 'number plan-actual', text: formatCount(node.actualRows) }),
    el('td', { className: 'number plan-time', text: formatDuration(node.timeMs) }),
    el('td', { className: 'plan-share', title: `${(share * 100).toFixed(1)}% of the total time` }, [bar]),
  ]);
  if (misestimated(node)) row.title = 'The estimate is more than ten times off';
  rows.push(row);
  for (const child of node.children) addRows(rows, child, depth + 1, total, names);
}

function misestimated(node: PlanNode): boolean {
  if (node.estimatedRows === null) return false;
  const expected = Math.max(node.estimatedRows, 1);
  const actual = Math.max(node.actualRows, 1);
  return expected / actual > MISESTIMATE_FACTOR || actual / expected > MISESTIMATE_FACTOR;
}

/** Estimates are guesses: a whole number reads as what it is (`414`, not `414.1`). */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en');
}

/** Every `<iri>` of an operator's details written as the query would write it. */
export function shortenDetails(details: string, names: PrefixShortener): string {
  return details.replace(/<([^<>\s]*)>/g, (whole, iri: string) => {
    const short = names.shorten(iri);
    return short.startsWith('<') ? whole : short;
  });
}
