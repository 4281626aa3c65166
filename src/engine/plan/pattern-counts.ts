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
import type { StoreReader, TermId } from '../../store/quad-store.js';
import { contentVersionOf } from './content-version.js';

/** Beyond this many counts the table starts afresh (no per-entry bookkeeping). */
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
let table = new Map<number, Entry>();

/** Counts for one query's planning on a snapshot: its version is read once, at the first count. */
export class PatternCounts {
  private version: number | undefined | null = null;

  constructor(private readonly reader: StoreReader) {}

  /** The snapshot's content version (read once): what the planner's shared caches are valid for. */
  contentVersion(): number | undefined {
    if (this.version === null) this.version = contentVersionOf(this.reader);
    return this.version;
  }

  count(s: TermId, p: TermId, o: TermId, g: TermId): number {
    const version = this.contentVersion();
    if (version === undefined) return this.reader.count(s, p, o, g);
    if (tableVersion !== version || table.size >= MAX_ENTRIES) {
      tableVersion = version;
      table = new Map();
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
