/**
 * The optimizer's shortcuts, each of which can be turned off on its own (EngineQueryOptions.fastPaths)
 * to compare its answers with the plain path's, or to measure what it saves. Each one's tests run a
 * class of queries both ways and assert the same answers; `optimize: false` turns them all off.
 *
 * Turning one off is for tests and measurements: the answers are the same, only the work differs.
 * A query with any of them off is planned afresh (no prepared plan: those are made with all on).
 */
export interface EngineFastPaths {
  /**
   * A pattern scan joins a batch through one scan of its constants' quads, keyed by the position
   * the solutions bind, instead of a look-up per solution (operators/pattern-scan.ts, keyed-quads.ts).
   */
  hashJoins?: boolean;
  /**
   * A scan whose object the following filters bound reads only the quads in range from a
   * value-ordered index (plan/object-bounds.ts, operators/object-range.ts).
   */
  objectRanges?: boolean;
  /** FILTER(?a = ?b) or sameTerm(?a, ?b) binds one side from the other (operators/equality-bind.ts). */
  equalityBinds?: boolean;
  /** ?x = <iri>, ?x != <iri> and sameTerm(?x, <iri>) compare IDs, decoding no term (compile-expression.ts). */
  idComparisons?: boolean;
  /** COUNT(?x) and COUNT(DISTINCT ?x) count IDs, decoding no term (operators/group.ts). */
  idCounts?: boolean;
  /**
   * A pure expression of one variable (and arithmetic of two) is evaluated again only when the
   * variables' IDs change from one solution to the next; a whole expression of one variable keeps
   * its value per ID for the evaluation (expression/compile-expression.ts).
   */
  valueMemos?: boolean;
  /** EXISTS of one pattern answers from its first matching quad (PatternScan.anyMatch). */
  firstMatchExists?: boolean;
  /** A hash join's probes in key order follow a cursor through the table instead of hashing (keyed-quads.ts). */
  orderedProbes?: boolean;
  /**
   * A scan of all of a predicate's quads (`?s :p ?o`, nothing bound) reads them from a table in
   * memory keyed by their objects, in the same order, instead of the store: the one an earlier hash
   * join built, or the one the scan's own second run kept (pattern-scan.ts).
   */
  cachedScans?: boolean;
  /**
   * Below a grouping that only counts, solutions alike on every variable still needed are merged
   * into one that carries their count (plan/counted-rows-rule.ts, operators/counted-rows.ts).
   */
  countedRows?: boolean;
}

export type FastPathName = keyof EngineFastPaths;

export const FAST_PATH_NAMES: readonly FastPathName[] = [
  'hashJoins',
  'objectRanges',
  'equalityBinds',
  'idComparisons',
  'idCounts',
  'valueMemos',
  'firstMatchExists',
  'orderedProbes',
  'cachedScans',
  'countedRows',
];

/** Where the switches are read: the optimizer on and the path not turned off. */
export function fastPathOn(options: { optimize?: boolean; fastPaths?: EngineFastPaths }, name: FastPathName): boolean {
  return options.optimize !== false && options.fastPaths?.[name] !== false;
}

/** Whether every fast path is on (as a prepared plan assumes). */
export function allFastPathsOn(options: { optimize?: boolean; fastPaths?: EngineFastPaths }): boolean {
  return FAST_PATH_NAMES.every((name) => fastPathOn(options, name));
}
