/**
 * A full check of a store's invariants, for tests and diagnosis (it reads everything; keep it off any
 * hot path): the indexes of each family hold the same quads, every quad's terms are in the dictionary
 * (triple terms' keys parse, parts and all) and in the positions RDF 1.2 allows them, the dictionary's two sides are inverse and without duplicate
 * terms, the ID counter is past every ID, and the statistics match the data. A predicate's distinct
 * subject and object figures are estimates from sketches that removals do not shrink: its stored
 * sketches must cover (register by register) the ones its quads give, and its figures must be their
 * estimates; a predicate without figures (written by an older version) is sound as it is.
 *
 * Reads one snapshot through its own read-only LMDB handle; the store may be open elsewhere.
 */
import { open } from 'lmdb';
import { termFromKey } from '../rdf/index.js';
import { DEFAULT_GRAPH_ID, FIRST_TERM_ID } from './quad-store.js';
import { DEFAULT_INDEXES, GRAPH_FIRST_INDEXES, GRAPH_LAST_INDEXES, type IndexLayout } from './index-layout.js';
import { dictionaryKeyOf, prefixTexts, storedTermKey } from './term-dictionary.js';
import { META, decodeCount } from './statistics.js';
import { DistinctSketch, decodeSketchPair } from './distinct-sketch.js';
import { decodePredicateFigures } from './predicate-distincts.js';

export interface StoreCheck {
  /** What is wrong, the first `limit` findings; empty when the store is sound. */
  problems: string[];
  quads: number;
  terms: number;
}

export async function checkStoreConsistency(path: string, limit = 20): Promise<StoreCheck> {
  const env = open({ path, noSubdir: false, maxDbs: 32, readOnly: true });
  const problems: string[] = [];
  const problem = (text: string): void => {
    if (problems.length < limit) problems.push(text);
  };
  try {
    const binary = (name: string, extra: object = {}) => env.openDB({ name, encoding: 'binary', keyEncoding: 'binary', ...extra } as { name: string });
    const uint32 = (name: string) => env.openDB({ name, encoding: 'binary', keyEncoding: 'uint32' } as { name: string });
    const meta = env.openDB({ name: 'meta', encoding: 'binary' });
    const metaCount = (key: string): number => {
      const found = meta.getBinary(key);
      return found === undefined ? (key === META.nextId ? FIRST_TERM_ID : 0) : decodeCount(found);
    };

    // The dictionary, id -> term key, and no term under two IDs.
    const keysById = new Map<number, string>();
    const idsByKey = new Map<string, number>();
    const id2term = uint32('id2term');
    const prefixText = prefixTexts((id) => id2term.getBinary(id) as Uint8Array | undefined);
    for (const { key, value } of id2term.getRange({})) {
      const id = key as unknown as number;
      const stored = Buffer.from(value as Uint8Array);
      const text = storedTermKey(stored, prefixText);
      keysById.set(id, text);
      const twin = idsByKey.get(text);
      if (twin !== undefined) problem(`term ${text} has two IDs, ${twin} and ${id}`);
      idsByKey.set(text, id);
    }
    const nextId = metaCount(META.nextId);
    for (const id of keysById.keys()) if (id < FIRST_TERM_ID || id >= nextId) problem(`ID ${id} is outside [${FIRST_TERM_ID}, nextId ${nextId})`);
    if (keysById.size !== nextId - FIRST_TERM_ID) problem(`${keysById.size} terms, but nextId ${nextId} says ${nextId - FIRST_TERM_ID}`);
    // term hash -> id: exactly one entry per term, under its hash.
    let hashEntries = 0;
    const hashed = binary('term2id', { dupSort: true, dupFixed: true });
    for (const { key, value } of hashed.getRange({})) {
      hashEntries++;
      const id = Buffer.from(value as Uint8Array).readUInt32BE(0);
      const text = keysById.get(id);
      if (text === undefined) problem(`term2id names ID ${id}, which id2term does not have`);
      else if (!dictionaryKeyOf(text).equals(Buffer.from(key as Uint8Array))) problem(`term2id files ID ${id} (${text}) under another term's hash`);
    }
    if (hashEntries !== keysById.size) problem(`term2id has ${hashEntries} entries for ${keysById.size} terms`);

    const termOf = (id: number): string | undefined => (id === DEFAULT_GRAPH_ID ? 'D' : keysById.get(id));
    const kindOf = (id: number): string => {
      const text = termOf(id);
      if (text === undefined) return 'missing';
      if (text === 'D') return 'DefaultGraph';
      try {
        // Parses a triple term's parts too, so a damaged nested key is found.
        return termFromKey(text).termType;
      } catch {
        return 'malformed';
      }
    };

    // Each family: the primary index's quads, and every other index holding exactly those.
    const predicateCounts = new Map<number, number>();
    const graphCounts = new Map<number, number>();
    const subjects = new Set<number>();
    const objects = new Set<number>();
    const sketches = new Map<number, [DistinctSketch, DistinctSketch]>();
    let quads = 0;
    let defaultQuads = 0;
    for (const family of [DEFAULT_INDEXES, [...GRAPH_FIRST_INDEXES, ...GRAPH_LAST_INDEXES]]) {
      const primary = new Set<string>();
      for (const quad of indexQuads(binary(family[0].name), family[0])) {
        primary.add(quad.join(' '));
        const [s, p, o, g] = quad;
        const kinds = [kindOf(s), kindOf(p), kindOf(o), kindOf(g)];
        const shown = `${family[0].name} (${quad.map((id) => termOf(id) ?? id).join(' ')})`;
        if (kinds.includes('missing')) problem(`${shown}: a term the dictionary does not have`);
        else if (kinds.includes('malformed')) problem(`${shown}: a term whose key does not parse`);
        else if (!POSITION_KINDS.every((allowed, i) => allowed.includes(kinds[i]))) {
          problem(`${shown}: a ${kinds[0]} subject, ${kinds[1]} predicate, ${kinds[2]} object, ${kinds[3]} graph`);
        }
        predicateCounts.set(p, (predicateCounts.get(p) ?? 0) + 1);
        if (g !== DEFAULT_GRAPH_ID) graphCounts.set(g, (graphCounts.get(g) ?? 0) + 1);
        else defaultQuads++;
        subjects.add(s);
        objects.add(o);
        let sketch = sketches.get(p);
        if (!sketch) sketches.set(p, (sketch = [new DistinctSketch(), new DistinctSketch()]));
        sketch[0].add(s);
        sketch[1].add(o);
        quads++;
      }
      for (const layout of family.slice(1)) {
        let count = 0;
        let missing = 0;
        for (const quad of indexQuads(binary(layout.name), layout)) {
          count++;
          if (!primary.has(quad.join(' '))) missing++;
        }
        if (count !== primary.size || missing > 0)
          problem(`${layout.name} has ${count} quads (${missing} not in ${family[0].name}), ${family[0].name} ${primary.size}`);
      }
    }

    // The statistics.
    const expect = (what: string, stored: number, actual: number) => {
      if (stored !== actual) problem(`statistics: ${what} is ${stored}, the data says ${actual}`);
    };
    expect('quadCount', metaCount(META.quadCount), quads);
    expect('defaultGraphCount', metaCount(META.defaultGraphCount), defaultQuads);
    expect('distinctSubjects', metaCount(META.distinctSubjects), subjects.size);
    expect('distinctObjects', metaCount(META.distinctObjects), objects.size);
    const storedPredicates = new Map<number, number>();
    const storedFigures = new Map<number, { subjects: number; objects: number }>();
    for (const { key, value } of uint32('predicates').getRange({})) {
      storedPredicates.set(key as unknown as number, decodeCount(value as Uint8Array));
      const figures = decodePredicateFigures(value as Uint8Array);
      if (figures) storedFigures.set(key as unknown as number, figures);
    }
    for (const p of new Set([...storedPredicates.keys(), ...predicateCounts.keys()]))
      expect(`the count of predicate ${termOf(p) ?? p}`, storedPredicates.get(p) ?? 0, predicateCounts.get(p) ?? 0);
    // A store written before the sketches has no such database, and no figures either.
    const hasSketches = [...env.getKeys({})].includes('predicateSketches');
    if (storedFigures.size > 0 && !hasSketches) problem('predicates carry distinct figures, but there is no predicateSketches database');
    if (hasSketches) {
      const storedSketches = uint32('predicateSketches');
      for (const [p, figures] of storedFigures) {
        const found = storedSketches.getBinary(p);
        const pair = found === undefined ? undefined : decodeSketchPair(found);
        const name = `predicate ${termOf(p) ?? p}`;
        if (!pair) {
          problem(`${name} carries distinct figures, but no readable sketches`);
          continue;
        }
        const actual = sketches.get(p);
        if (actual && !pair[0].covers(actual[0])) problem(`the subject sketch of ${name} misses subjects its quads have`);
        if (actual && !pair[1].covers(actual[1])) problem(`the object sketch of ${name} misses objects its quads have`);
        expect(`the distinct subjects of ${name}`, figures.subjects, pair[0].estimate());
        expect(`the distinct objects of ${name}`, figures.objects, pair[1].estimate());
      }
    }
    const storedGraphs = new Map<number, number>();
    for (const { key, value } of uint32('graphs').getRange({})) storedGraphs.set(key as unknown as number, decodeCount(value as Uint8Array));
    for (const [g, count] of graphCounts) expect(`the count of graph ${termOf(g) ?? g}`, storedGraphs.get(g) ?? -1, count);
    for (const [g, count] of storedGraphs) if (!graphCounts.has(g)) expect(`the count of graph ${termOf(g) ?? g}`, count, 0);
    if (meta.getBinary('loadInProgress') !== undefined) problem('a load marker is left');
    return { problems, quads, terms: keysById.size };
  } finally {
    await env.close();
  }
}

/** The kinds of term RDF 1.2 allows at each position of a quad: a triple term only as an object. */
const POSITION_KINDS = [['NamedNode', 'BlankNode'], ['NamedNode'], ['NamedNode', 'BlankNode', 'Literal', 'Quad'], ['NamedNode', 'BlankNode', 'DefaultGraph']];

/** The quads of one index, [s, p, o, g], from its raw keys. */
function* indexQuads(db: { getKeys(range: object): Iterable<unknown> }, layout: IndexLayout): Iterable<number[]> {
  for (const key of db.getKeys({})) {
    const bytes = Buffer.from(key as Uint8Array);
    const quad = [0, 0, 0, DEFAULT_GRAPH_ID];
    layout.order.forEach((position, i) => (quad[position] = bytes.readUInt32BE(i * 4)));
    yield quad;
  }
}
