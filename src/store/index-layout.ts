/**
 * The permutation indexes and how a quad pattern maps onto exactly one range of one of them.
 *
 * Layout. The default graph lives in SPO, POS and OSP (12-byte keys); named graphs in GSPO, GPOS,
 * GOSP (one named graph) and SPOG, POSG, OSPG (every named graph). Nine B-trees, but a quad is in
 * three (default graph) or six (named graph) of them, never nine:
 *  - default-graph data, the common case for SPARQL datasets, pays 4 bytes less per entry and half
 *    the entries of a uniform quad layout, and never needs a graph filter;
 *  - with the bound positions of a pattern always forming a key prefix of one index per family, every
 *    combination of bound s/p/o is a single range: {} s sp spo -> SPO, p po -> POS, o os -> OSP.
 *    The G-first family does the same inside one named graph; the G-last family serves "any named
 *    graph" (GRAPH ?g) without a scan per graph, and GSPO serves the fully unbound "all named graphs".
 * Keys are big-endian IDs so that byte order is numeric order and a bound prefix is a contiguous range;
 * values are empty. Six entries per named-graph quad is the price of one-range access for every
 * pattern; dropping the G-last family would turn GRAPH ?g patterns into one scan per graph.
 */
import { ANY, DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';

/** Positions of a quad: the order of QuadIds. */
export const S = 0;
export const P = 1;
export const O = 2;
export const G = 3;

export interface IndexLayout {
  readonly name: string;
  /** Quad positions in key order. */
  readonly order: readonly number[];
}

export const DEFAULT_INDEXES: readonly IndexLayout[] = [
  { name: 'spo', order: [S, P, O] },
  { name: 'pos', order: [P, O, S] },
  { name: 'osp', order: [O, S, P] },
];
export const GRAPH_FIRST_INDEXES: readonly IndexLayout[] = [
  { name: 'gspo', order: [G, S, P, O] },
  { name: 'gpos', order: [G, P, O, S] },
  { name: 'gosp', order: [G, O, S, P] },
];
export const GRAPH_LAST_INDEXES: readonly IndexLayout[] = [
  { name: 'spog', order: [S, P, O, G] },
  { name: 'posg', order: [P, O, S, G] },
  { name: 'ospg', order: [O, S, P, G] },
];
export const ALL_INDEXES: readonly IndexLayout[] = [...DEFAULT_INDEXES, ...GRAPH_FIRST_INDEXES, ...GRAPH_LAST_INDEXES];

/**
 * The key most recently decoded by any index, in quad positions. A cursor step decodes into it and
 * the scan copies it out before the next step, so interleaved scans cannot see each other's keys.
 */
export const lastKey = new Uint32Array(4);

/** lmdb-js custom key encoder: keys are arrays of IDs in index order, written big-endian. */
export interface IdKeyEncoder {
  writeKey(key: ArrayLike<number>, target: Uint8Array, start: number): number;
  readKey(source: Uint8Array, start: number, end: number): Uint32Array;
}

/**
 * While `active`, the encoders note the buffer lmdb-js asks them to write a key into (native-scan.ts
 * uses it to find lmdb-js' own key buffer).
 */
export const keyTargetCapture: { active: boolean; target: Uint8Array | undefined } = { active: false, target: undefined };

export function idKeyEncoder(layout: IndexLayout): IdKeyEncoder {
  const order = layout.order;
  const width = order.length;
  return {
    writeKey(key, target, start) {
      if (keyTargetCapture.active) keyTargetCapture.target = target;
      let at = start;
      for (let i = 0; i < key.length; i++) {
        const id = key[i];
        target[at] = id >>> 24;
        target[at + 1] = id >>> 16;
        target[at + 2] = id >>> 8;
        target[at + 3] = id;
        at += 4;
      }
      return at;
    },
    readKey(source, start) {
      let at = start;
      for (let i = 0; i < width; i++) {
        lastKey[order[i]] = ((source[at] << 24) | (source[at + 1] << 16) | (source[at + 2] << 8) | source[at + 3]) >>> 0;
        at += 4;
      }
      if (width === 3) lastKey[G] = DEFAULT_GRAPH_ID;
      return lastKey;
    },
  };
}

/** The key of a quad in an index. */
export function quadKey(layout: IndexLayout, quad: ArrayLike<number>): Uint32Array {
  const order = layout.order;
  const key = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) key[i] = quad[order[i]];
  return key;
}

/** Which family of indexes answers a graph position. */
export type IndexFamily = 'default' | 'graph-first' | 'graph-last';

export function familyOf(g: TermId): IndexFamily {
  if (g === DEFAULT_GRAPH_ID) return 'default';
  return g === ANY ? 'graph-last' : 'graph-first';
}

/** One key range of one index: the answer to a pattern. */
export interface IndexRange {
  readonly index: IndexLayout;
  /** The bound key prefix; [0] when nothing is bound (every ID is >= 1). */
  readonly start: Uint32Array;
  /** The prefix padded with the largest ID; the range includes it. */
  readonly end: Uint32Array;
  /** Number of bound key positions. */
  readonly boundLength: number;
}

const MAX_ID = 0xffffffff;

function boundMask(s: TermId, p: TermId, o: TermId): number {
  return (s !== ANY ? 1 << S : 0) | (p !== ANY ? 1 << P : 0) | (o !== ANY ? 1 << O : 0);
}

/** For each mask of bound s/p/o: the index of the family whose key starts with exactly those positions. */
function choiceTable(family: readonly IndexLayout[], skipGraph: boolean): IndexLayout[] {
  const table: IndexLayout[] = [];
  for (let mask = 0; mask < 8; mask++) {
    const bound = [S, P, O].filter((pos) => mask & (1 << pos)).length;
    const chosen = family.find((layout) => {
      const positions = skipGraph ? layout.order.slice(1) : layout.order;
      return positions.slice(0, bound).every((pos) => mask & (1 << pos));
    });
    if (!chosen) throw new Error(`no index for pattern mask ${mask}`);
    table.push(chosen);
  }
  return table;
}

const DEFAULT_CHOICE = choiceTable(DEFAULT_INDEXES, false);
const GRAPH_FIRST_CHOICE = choiceTable(GRAPH_FIRST_INDEXES, true);
const GRAPH_LAST_CHOICE = choiceTable(GRAPH_LAST_INDEXES, false);

/** The index whose key starts with exactly the pattern's bound positions (its range is rangeFor's). */
export function indexFor(s: TermId, p: TermId, o: TermId, g: TermId): IndexLayout {
  const mask = boundMask(s, p, o);
  if (g === DEFAULT_GRAPH_ID) return DEFAULT_CHOICE[mask];
  if (g !== ANY) return GRAPH_FIRST_CHOICE[mask];
  // Nothing bound over every named graph: GSPO lists them all, graph by graph.
  return mask === 0 ? GRAPH_FIRST_INDEXES[0] : GRAPH_LAST_CHOICE[mask];
}

/**
 * The index over every named graph whose key orders triples as the default graph's index does (SPOG
 * for SPO...): scans of the two come in the same triple order, so they merge without a sort, and the
 * graph last puts a triple's copies in several graphs next to each other.
 */
export function graphLastPartner(defaultIndex: IndexLayout): IndexLayout {
  const partner = GRAPH_LAST_INDEXES.find((layout) => defaultIndex.order.every((pos, i) => layout.order[i] === pos));
  if (!partner) throw new Error(`no graph-last index orders triples as ${defaultIndex.name}`);
  return partner;
}

/** The single index range holding exactly the quads that match the pattern. */
export function rangeFor(s: TermId, p: TermId, o: TermId, g: TermId): IndexRange {
  return rangeIn(indexFor(s, p, o, g), s, p, o, g);
}

/**
 * The range of the given index holding the quads that match the pattern; the bound positions must
 * form a prefix of its key (as they do in indexFor's choice).
 */
export function rangeIn(index: IndexLayout, s: TermId, p: TermId, o: TermId, g: TermId): IndexRange {
  const quad = [s, p, o, g];
  const order = index.order;
  let boundLength = 0;
  while (boundLength < order.length && quad[order[boundLength]] !== ANY) boundLength++;
  const start = new Uint32Array(Math.max(boundLength, 1));
  const end = new Uint32Array(order.length).fill(MAX_ID);
  for (let i = 0; i < boundLength; i++) start[i] = end[i] = quad[order[i]];
  return { index, start, end, boundLength };
}
