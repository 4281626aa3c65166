/**
 * Equality of tables of RDF terms up to a renaming of blank nodes. Solution sequences and graphs
 * are both tables here (a quad is a row of four terms), so one matcher serves SELECT results,
 * CONSTRUCT graphs and whole update datasets. Blank node labels are local to each side; a match
 * is a one-to-one mapping of expected labels to actual labels under which the row multisets are
 * equal. Terms compare by RDF term equality (exact lexical forms); language tags compare without
 * case, as RDF 1.1 says they do.
 */
import type { Term } from '../../src/rdf/terms.js';

export type Row = readonly (Term | undefined)[];

/** Blank node labels of the expected side mapped to those of the actual side, and back. */
export interface BlankNodeMapping {
  forward: Map<string, string>;
  backward: Map<string, string>;
}

export function emptyMapping(): BlankNodeMapping {
  return { forward: new Map(), backward: new Map() };
}

function copyMapping(m: BlankNodeMapping): BlankNodeMapping {
  return { forward: new Map(m.forward), backward: new Map(m.backward) };
}

/** The key of a term under RDF term equality; blank nodes all share one key when masked. */
export function comparisonKey(term: Term | undefined, maskBlankNodes = false): string {
  if (term === undefined) return '';
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return maskBlankNodes ? '_:' : `_:${term.value}`;
    case 'Literal': {
      const direction = term.direction ? `--${term.direction}` : '';
      if (term.language) return `${JSON.stringify(term.value)}@${term.language.toLowerCase()}${direction}`;
      return `${JSON.stringify(term.value)}^^${term.datatype.value}`;
    }
    case 'Quad':
      return `<<( ${[term.subject, term.predicate, term.object].map((t) => comparisonKey(t, maskBlankNodes)).join(' ')} )>>`;
    case 'DefaultGraph':
      return 'DEFAULT';
    default:
      return `${term.termType}:${term.value}`;
  }
}

export function rowKey(row: Row, maskBlankNodes = false): string {
  return row.map((t) => comparisonKey(t, maskBlankNodes)).join('\t');
}

function hasBlankNode(row: Row): boolean {
  return row.some((t) => t !== undefined && blankNodesOf(t).length > 0);
}

/** The blank nodes of a term, those inside an RDF 1.2 triple term included, in a fixed order. */
function blankNodesOf(term: Term): Term[] {
  if (term.termType === 'BlankNode') return [term];
  if (term.termType === 'Quad') return [...blankNodesOf(term.subject), ...blankNodesOf(term.object)];
  return [];
}

/** Thrown when the search for a blank node mapping takes too many steps to be worth finishing. */
export class IsomorphismBudgetExceeded extends Error {}

const SEARCH_BUDGET = 2_000_000;

/**
 * A mapping under which the two row multisets are equal, extending `start`, or undefined.
 * Rows without blank nodes are compared by key; rows with blank nodes go through a backtracking
 * search, candidates limited to actual rows with the same shape (blank nodes masked).
 */
export function matchRows(expected: readonly Row[], actual: readonly Row[], start: BlankNodeMapping = emptyMapping()): BlankNodeMapping | undefined {
  if (expected.length !== actual.length) return undefined;
  const groundExpected = expected.filter((r) => !hasBlankNode(r));
  const groundActual = actual.filter((r) => !hasBlankNode(r));
  if (
    !sameMultiset(
      groundExpected.map((r) => rowKey(r)),
      groundActual.map((r) => rowKey(r)),
    )
  )
    return undefined;
  const blankExpected = expected.filter(hasBlankNode);
  const blankActual = actual.filter(hasBlankNode);
  if (blankExpected.length === 0) return start;
  const candidatesByShape = new Map<string, Row[]>();
  for (const row of blankActual) {
    const shape = rowKey(row, true);
    const bucket = candidatesByShape.get(shape);
    if (bucket) bucket.push(row);
    else candidatesByShape.set(shape, [row]);
  }
  const shapeCounts = new Map<string, number>();
  for (const row of blankExpected) {
    const shape = rowKey(row, true);
    shapeCounts.set(shape, (shapeCounts.get(shape) ?? 0) + 1);
  }
  for (const [shape, count] of shapeCounts) {
    if (candidatesByShape.get(shape)?.length !== count) return undefined;
  }
  // Rows of rarer shapes first: they bind labels with the fewest choices.
  const ordered = [...blankExpected].sort((a, b) => shapeCounts.get(rowKey(a, true))! - shapeCounts.get(rowKey(b, true))!);
  const search = { steps: 0 };
  return assign(ordered, 0, candidatesByShape, new Set(), copyMapping(start), search);
}

function assign(
  rows: Row[],
  index: number,
  candidatesByShape: Map<string, Row[]>,
  used: Set<Row>,
  mapping: BlankNodeMapping,
  search: { steps: number },
): BlankNodeMapping | undefined {
  if (index === rows.length) return mapping;
  const row = rows[index];
  for (const candidate of candidatesByShape.get(rowKey(row, true)) ?? []) {
    if (used.has(candidate)) continue;
    if (++search.steps > SEARCH_BUDGET) throw new IsomorphismBudgetExceeded('blank node matching gave up');
    const extended = extendMapping(row, candidate, mapping);
    if (!extended) continue;
    used.add(candidate);
    const found = assign(rows, index + 1, candidatesByShape, used, extended, search);
    if (found) return found;
    used.delete(candidate);
  }
  return undefined;
}

/** The mapping extended so that `expected` maps onto `actual`, or undefined if they conflict. */
export function extendMapping(expected: Row, actual: Row, mapping: BlankNodeMapping): BlankNodeMapping | undefined {
  let result = mapping;
  let copied = false;
  // Rows of one shape have their blank nodes (those in triple terms too) at the same places.
  const pairs: [Term | undefined, Term | undefined][] = [];
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i];
    const a = actual[i];
    if (e?.termType === 'Quad' && a?.termType === 'Quad') {
      const inE = blankNodesOf(e),
        inA = blankNodesOf(a);
      if (inE.length !== inA.length) return undefined;
      inE.forEach((t, j) => pairs.push([t, inA[j]]));
    } else {
      pairs.push([e, a]);
    }
  }
  for (const [e, a] of pairs) {
    if (e?.termType !== 'BlankNode') continue;
    if (a?.termType !== 'BlankNode') return undefined;
    const mappedTo = result.forward.get(e.value);
    const mappedFrom = result.backward.get(a.value);
    if (mappedTo === undefined && mappedFrom === undefined) {
      if (!copied) {
        result = copyMapping(result);
        copied = true;
      }
      result.forward.set(e.value, a.value);
      result.backward.set(a.value, e.value);
    } else if (mappedTo !== a.value || mappedFrom !== e.value) {
      return undefined;
    }
  }
  return result;
}

function sameMultiset(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const n = counts.get(k);
    if (!n) return false;
    counts.set(k, n - 1);
  }
  return true;
}

/**
 * Rows of `a` with no counterpart in `b` when blank nodes are masked: the readable part of a
 * difference (a mismatch that only lies in how blank nodes connect shows no rows here).
 */
export function rowsMissingFrom(a: readonly Row[], b: readonly Row[]): Row[] {
  const counts = new Map<string, number>();
  for (const row of b) {
    const k = rowKey(row, true);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const missing: Row[] = [];
  for (const row of a) {
    const k = rowKey(row, true);
    const n = counts.get(k);
    if (n) counts.set(k, n - 1);
    else missing.push(row);
  }
  return missing;
}

/** Removes duplicate rows (exact keys, blank node labels included). */
export function distinctRows(rows: readonly Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const k = rowKey(row);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
