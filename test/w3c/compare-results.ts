/**
 * Comparison of a query's answer with the expected one, as the W3C suites define it: solution
 * multisets up to blank node renaming (sequences when the query orders them), booleans, and
 * graphs up to isomorphism.
 */
import { termToString, type Term } from '../../src/rdf/terms.js';
import { IsomorphismBudgetExceeded, distinctRows, emptyMapping, matchRows, rowKey, rowsMissingFrom, type BlankNodeMapping, type Row } from './isomorphism.js';

export interface Solutions {
  kind: 'bindings';
  variables: string[];
  rows: Row[];
}
export interface BooleanAnswer {
  kind: 'boolean';
  value: boolean;
}
/** A graph or a dataset: rows of [subject, predicate, object, graph]. */
export interface QuadTable {
  kind: 'quads';
  quads: Row[];
}
export type Answer = Solutions | BooleanAnswer | QuadTable;

export interface ComparisonOptions {
  /**
   * Variables the query orders by, outermost first: rows that tie on them may come in any order.
   * An empty list (ordered, but on keys that cannot be checked) means every row keeps its place.
   * Undefined: the answer is a multiset.
   */
  orderKeys?: string[];
  /** REDUCED and friends (mf:LaxCardinality): duplicates may be dropped. */
  laxCardinality?: boolean;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

export function compareAnswers(expected: Answer, actual: Answer, options: ComparisonOptions = {}): Verdict {
  if (expected.kind !== actual.kind) {
    return { ok: false, reason: `expected a ${describeKind(expected)} but got a ${describeKind(actual)}` };
  }
  try {
    switch (expected.kind) {
      case 'boolean':
        return expected.value === (actual as BooleanAnswer).value
          ? { ok: true }
          : { ok: false, reason: `expected ${expected.value}, got ${(actual as BooleanAnswer).value}` };
      case 'quads':
        return compareQuadTables(expected, actual as QuadTable);
      case 'bindings':
        return compareSolutions(expected, actual as Solutions, options);
    }
  } catch (error) {
    if (error instanceof IsomorphismBudgetExceeded) return { ok: false, reason: error.message };
    throw error;
  }
}

function describeKind(answer: Answer): string {
  return answer.kind === 'bindings' ? 'solution sequence' : answer.kind === 'boolean' ? 'boolean' : 'graph';
}

function compareQuadTables(expected: QuadTable, actual: QuadTable): Verdict {
  if (expected.quads.length !== actual.quads.length) {
    return { ok: false, reason: `expected ${expected.quads.length} triples, got ${actual.quads.length}` };
  }
  return matchRows(expected.quads, actual.quads) ? { ok: true } : { ok: false, reason: `triples differ: ${describeDifference(expected.quads, actual.quads)}` };
}

function compareSolutions(expected: Solutions, actual: Solutions, options: ComparisonOptions): Verdict {
  const variableProblem = compareVariables(expected.variables, actual.variables);
  if (variableProblem) return { ok: false, reason: variableProblem };
  let actualRows = alignRows(actual, expected.variables);
  let expectedRows = expected.rows;
  if (options.laxCardinality) {
    expectedRows = distinctRows(expectedRows);
    actualRows = distinctRows(actualRows);
  }
  if (expectedRows.length !== actualRows.length) {
    return { ok: false, reason: `expected ${expectedRows.length} rows, got ${actualRows.length}` };
  }
  if (options.orderKeys) {
    const columns = options.orderKeys.map((v) => expected.variables.indexOf(v));
    if (matchInOrder(expectedRows, actualRows, columns)) return { ok: true };
    if (!matchRows(expectedRows, actualRows)) {
      return { ok: false, reason: `rows differ: ${describeDifference(expectedRows, actualRows)}` };
    }
    return {
      ok: false,
      reason:
        options.orderKeys.length > 0
          ? `right rows, wrong order (ORDER BY ${options.orderKeys.map((v) => '?' + v).join(' ')})`
          : 'right rows, wrong order (ORDER BY on expressions: checked row by row, ties cannot be told apart)',
    };
  }
  return matchRows(expectedRows, actualRows) ? { ok: true } : { ok: false, reason: `rows differ: ${describeDifference(expectedRows, actualRows)}` };
}

const XSD_NS = 'http://www.w3.org/2001/XMLSchema#';

/** One line on how two row multisets differ: counts, and the first differing row of each side. */
export function describeDifference(expected: readonly Row[], actual: readonly Row[]): string {
  // Sorted so that the first row of each side tends to be the same solution.
  const byKey = (a: Row, b: Row) => (rowKey(a) < rowKey(b) ? -1 : 1);
  const missing = rowsMissingFrom(expected, actual).sort(byKey);
  const unexpected = rowsMissingFrom(actual, expected).sort(byKey);
  if (missing.length === 0 && unexpected.length === 0) return 'blank nodes are shared differently';
  const brief = (row: Row) =>
    row
      .filter((t) => t?.termType !== 'DefaultGraph')
      .map((t) =>
        t
          ? termToString(t)
              .replaceAll(`<${XSD_NS}`, 'xsd:<')
              .replace(/xsd:<([^>]*)>/g, 'xsd:$1')
          : '·',
      )
      .join(' ')
      .slice(0, 160);
  const parts = [`${missing.length} expected missing, ${unexpected.length} unexpected`];
  if (missing.length > 0) parts.push(`- ${brief(missing[0])}`);
  if (unexpected.length > 0) parts.push(`+ ${brief(unexpected[0])}`);
  return parts.join('; ');
}

function compareVariables(expected: string[], actual: string[]): string | undefined {
  const missing = expected.filter((v) => !actual.includes(v));
  const extra = actual.filter((v) => !expected.includes(v));
  if (missing.length === 0 && extra.length === 0) return undefined;
  const parts = [];
  if (missing.length > 0) parts.push(`missing ${missing.map((v) => '?' + v).join(' ')}`);
  if (extra.length > 0) parts.push(`unexpected ${extra.map((v) => '?' + v).join(' ')}`);
  return `variables differ: ${parts.join(', ')}`;
}

/** The actual rows with their columns in the expected order of variables. */
export function alignRows(solutions: Solutions, variables: string[]): Row[] {
  const columns = variables.map((v) => solutions.variables.indexOf(v));
  return solutions.rows.map((row) => columns.map((c) => (c < 0 ? undefined : row[c])));
}

/**
 * Ordered comparison: the expected rows fall into runs that tie on the order keys (with no keys,
 * a run is one row); the actual
 * rows must come in runs of the same sizes, each run equal as a multiset, under one blank node
 * mapping for the whole sequence.
 */
function matchInOrder(expected: readonly Row[], actual: readonly Row[], keyColumns: number[]): boolean {
  let mapping: BlankNodeMapping | undefined = emptyMapping();
  let start = 0;
  while (start < expected.length && mapping) {
    const tieKey = (row: Row) => rowKey(keyColumns.map((c) => row[c]));
    const key = tieKey(expected[start]);
    let end = start + 1;
    while (keyColumns.length > 0 && end < expected.length && tieKey(expected[end]) === key) end++;
    mapping = matchRows(expected.slice(start, end), actual.slice(start, end), mapping);
    start = end;
  }
  return mapping !== undefined;
}

/** Reduces every term of a solution sequence, e.g. to what survives a CSV round trip. */
export function mapTerms(solutions: Solutions, reduce: (t: Term | undefined) => Term | undefined): Solutions {
  return { ...solutions, rows: solutions.rows.map((row) => row.map(reduce)) };
}
