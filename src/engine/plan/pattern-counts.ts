/**
 * Counts of quads matching a pattern's constants, for join ordering. Each is an index range count
 * (a few µs, the largest part of planning a small query), and query templates ask for the same
 * ones again and again: a product type, a feature, a product that comes round again. A count read
 * under one store content version (StoreReader.contentVersion) holds for every snapshot of that
 * version, so counts are kept per version: the very figures a fresh read gives, so no plan changes.
 *
 * Keyed by a number mixed from the four IDs, entries compared in full: a string key would be a
 * fresh string to hash on every look-up, which costs about as much as the count it saves.
 */
import { BoundedMap } from '../../bounded-map.js';
import type { StoreReader, TermId } from '../../store/quad-store.js';

const MAX_ENTRIES = 16384;

interface Entry {
  s: TermId;
  p: TermId;
  o: TermId;
  g: TermId;
  count: number;
  next: Entry | undefined;
}

let tableVersion: number | undefined;
/** Entries by mixed hash; an entry heads a chain of the entries that share its hash. */
const table = new BoundedMap<number, Entry>(MAX_ENTRIES);

/** Counts for one query's planning on a snapshot. */
export class PatternCounts {
  constructor(private readonly reader: StoreReader) {}

  /** The snapshot's content version (the reader remembers it): what the planner's shared caches are valid for. */
  contentVersion(): number | undefined {
    return this.reader.contentVersion?.();
  }

  count(s: TermId, p: TermId, o: TermId, g: TermId): number {
    const version = this.contentVersion();
    if (version === undefined) return this.reader.count(s, p, o, g);
    if (tableVersion !== version) {
      tableVersion = version;
      table.clear();
    }
    const hash = mix(s, p, o, g);
    const first = table.get(hash);
    for (let e = first; e !== undefined; e = e.next) if (e.s === s && e.p === p && e.o === o && e.g === g) return e.count;
    const count = this.reader.count(s, p, o, g);
    table.set(hash, { s, p, o, g, count, next: first });
    return count;
  }
}

/** A small integer (a V8 Smi) from the four IDs. */
function mix(s: number, p: number, o: number, g: number): number {
  let h = Math.imul(s | 0, 0x9e3779b1);
  h = Math.imul(h ^ (p | 0), 0x85ebca6b);
  h = Math.imul(h ^ (o | 0), 0xc2b2ae35);
  h = Math.imul(h ^ (g | 0), 0x27d4eb2f);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}
