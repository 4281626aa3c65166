/**
 * The analytic workload's answer cross-check: every engine's answer to an instance must hold the
 * same rows, in the same order where the shape's ORDER BY fixes it, and as a multiset elsewhere.
 * Numbers compare by value within a relative tolerance, whatever their datatype: engines differ in
 * the type of an AVG (xsd:decimal or xsd:double) and in the last digits of a double sum, and neither
 * is a wrong answer. Everything else compares as the exact term.
 */
import { numericTypeOf, xsd } from '../src/engine/functions/xsd-types.js';

export type Cell = { num: number } | { term: string };
/** One solution: variable name → cell (unbound variables absent). */
export type Row = Record<string, Cell>;

/** Relative tolerance of numeric cells: AVG and SUM over doubles in another order. */
export const NUMERIC_TOLERANCE = 1e-6;

interface JsonTerm {
  type: string;
  value: string;
  'xml:lang'?: string;
  datatype?: string;
}

/** The rows of a SPARQL JSON results document, cells normalized for comparison. */
export function parseRows(body: string): Row[] {
  const json = JSON.parse(body) as { boolean?: boolean; results?: { bindings: Record<string, JsonTerm>[] } };
  if (typeof json.boolean === 'boolean') return [{ boolean: { term: String(json.boolean) } }];
  if (!json.results || !Array.isArray(json.results.bindings)) throw new Error('not SPARQL JSON results');
  return json.results.bindings.map((binding) => Object.fromEntries(Object.entries(binding).map(([name, term]) => [name, cellOf(term)])));
}

function cellOf(term: JsonTerm): Cell {
  const type = term.type === 'typed-literal' ? 'literal' : term.type;
  if (type === 'literal' && term.datatype && numericTypeOf(term.datatype) !== undefined) {
    const num = Number(term.value);
    if (Number.isFinite(num)) return { num };
  }
  const lang = term['xml:lang'] ? '@' + term['xml:lang'].toLowerCase() : '';
  const datatype = term.datatype && term.datatype !== xsd.string ? '^^' + term.datatype : '';
  return { term: `${type}:${term.value}${lang}${datatype}` };
}

export function sameCell(a: Cell, b: Cell): boolean {
  if ('num' in a && 'num' in b) return Math.abs(a.num - b.num) <= NUMERIC_TOLERANCE * Math.max(1, Math.abs(a.num), Math.abs(b.num));
  return 'term' in a && 'term' in b && a.term === b.term;
}

function sameRow(a: Row, b: Row): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => b[name] !== undefined && sameCell(a[name], b[name]));
}

/**
 * A sort key that puts equal rows side by side: terms exactly, numbers rounded coarsely (rows that
 * differ only within the tolerance get the same key, and the pairwise check decides).
 */
function rowKey(row: Row): string {
  return Object.keys(row)
    .sort()
    .map((name) => {
      const cell = row[name];
      return `${name}=${'num' in cell ? 'n:' + Number(cell.num.toPrecision(5)) : cell.term}`;
    })
    .join('\t');
}

/** Undefined when the answers agree; otherwise what differs, in a line. */
export function compareRows(expected: Row[], actual: Row[], ordered: boolean): string | undefined {
  if (expected.length !== actual.length) return `${actual.length} rows, expected ${expected.length}`;
  const sort = (rows: Row[]): Row[] => (ordered ? rows : [...rows].sort((a, b) => (rowKey(a) < rowKey(b) ? -1 : rowKey(a) > rowKey(b) ? 1 : 0)));
  const [e, a] = [sort(expected), sort(actual)];
  for (let i = 0; i < e.length; i++) {
    if (!sameRow(e[i], a[i])) return `row ${i + 1}${ordered ? '' : ' (sorted)'}: ${rowKey(a[i])}, expected ${rowKey(e[i])}`;
  }
  return undefined;
}

/** One instance's answers by engine (rows, or the error); returns the disagreements against the first engine that answered. */
export function crossCheck(answers: Record<string, Row[] | { error: string }>, ordered: boolean): Record<string, string> {
  const answered = Object.entries(answers).filter((entry): entry is [string, Row[]] => Array.isArray(entry[1]));
  const problems: Record<string, string> = {};
  for (const [engine, answer] of Object.entries(answers)) if (!Array.isArray(answer)) problems[engine] = `failed: ${answer.error}`;
  if (answered.length < 2) return problems;
  const [reference, expected] = answered[0];
  for (const [engine, rows] of answered.slice(1)) {
    const difference = compareRows(expected, rows, ordered);
    if (difference) problems[engine] = `${difference} (against ${reference})`;
  }
  return problems;
}
