/**
 * Text renderings of answers and of their differences, for failure reports. Sizes are capped so
 * a runaway answer cannot flood the terminal.
 */
import { termToString, type Term } from '../../src/rdf/terms.js';
import type { Answer, Solutions } from './compare-results.js';
import { alignRows } from './compare-results.js';
import { rowsMissingFrom, type Row } from './isomorphism.js';

export const MAX_ROWS_SHOWN = 30;
const MAX_TERM_LENGTH = 100;

function termText(term: Term | undefined): string {
  if (term === undefined) return '·';
  if (term.termType === 'DefaultGraph') return '';
  const text = termToString(term);
  return text.length > MAX_TERM_LENGTH ? `${text.slice(0, MAX_TERM_LENGTH)}…` : text;
}

function rowText(row: Row): string {
  return row
    .map(termText)
    .filter((t) => t !== '')
    .join('  ');
}

function capped(lines: string[], indent: string, limit = MAX_ROWS_SHOWN): string[] {
  const shown = lines.slice(0, limit).map((l) => indent + l);
  if (lines.length > limit) shown.push(`${indent}… ${lines.length - limit} more`);
  return shown;
}

export function renderAnswer(answer: Answer, indent = '    '): string {
  switch (answer.kind) {
    case 'boolean':
      return `${indent}${answer.value}`;
    case 'quads':
      return [`${indent}(${answer.quads.length} triples)`, ...capped(answer.quads.map(rowText), indent)].join('\n');
    case 'bindings':
      return [`${indent}${answer.variables.map((v) => '?' + v).join('  ')}   (${answer.rows.length} rows)`, ...capped(answer.rows.map(rowText), indent)].join(
        '\n',
      );
  }
}

/**
 * The rows (or triples) each side has that the other lacks, blank nodes masked. When both lists
 * are empty the difference lies in how blank nodes are shared, or in order, or in duplicates.
 */
export function renderDifference(expected: Answer, actual: Answer, indent = '    '): string {
  if (expected.kind !== actual.kind || expected.kind === 'boolean') return '';
  const [expectedRows, actualRows] =
    expected.kind === 'quads' ? [expected.quads, (actual as { quads: Row[] }).quads] : [expected.rows, alignRows(actual as Solutions, expected.variables)];
  const missing = rowsMissingFrom(expectedRows, actualRows);
  const unexpected = rowsMissingFrom(actualRows, expectedRows);
  if (missing.length === 0 && unexpected.length === 0) {
    return `${indent}(same rows when blank nodes are masked: the difference is in blank node sharing, order or duplicates)`;
  }
  const lines: string[] = [];
  if (expected.kind === 'bindings') lines.push(`${indent}  ${expected.variables.map((v) => '?' + v).join('  ')}`);
  lines.push(
    ...capped(
      missing.map((r) => `- ${rowText(r)}`),
      indent,
    ),
  );
  lines.push(
    ...capped(
      unexpected.map((r) => `+ ${rowText(r)}`),
      indent,
    ),
  );
  return lines.join('\n');
}
