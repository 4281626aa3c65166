/**
 * Counts of quads matching a pattern's constants, for join ordering. Each is an index range count
 * (a few µs, the largest part of planning a small query), and query templates ask for the same
 * ones again and again: a product type, a feature, a product that comes round again. A count read
 * under one store content version (StoreReader.contentVersion) holds for every snapshot of that
 * version, so counts are kept per version: the very figures a fresh read gives, so no plan changes.
 *
 * Kept in a direct-mapped table of typed arrays (the slot is a hash of the four IDs; a colliding
 * pattern replaces the slot's): no object per entry, no Map to hash into. A string key would be a
 * fresh string to hash on every look-up, which costs about as much as the count it saves; a Map of
 * entry objects cost ~0.6 us a look-up in the middle of a query (scattered memory).
 */
import type { StoreReader, TermId } from '../../store/index.js';

const SLOT_BITS = 14;
const SLOTS = 1 << SLOT_BITS;

let tableVersion: number | undefined;
/** The pattern of each slot (s, p, o, g), all 0 for an empty slot (no count is asked for the pattern of nothing). */
const keys = new Float64Array(SLOTS * 4);
const counts = new Float64Array(SLOTS);

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
      keys.fill(0);
    }
    const slot = mix(s, p, o, g);
    const at = slot * 4;
    if (keys[at] === s && keys[at + 1] === p && keys[at + 2] === o && keys[at + 3] === g && (s | p | o | g) !== 0) return counts[slot];
    const count = this.reader.count(s, p, o, g);
    keys[at] = s;
    keys[at + 1] = p;
    keys[at + 2] = o;
    keys[at + 3] = g;
    counts[slot] = count;
    return count;
  }
}

/** The table slot of a pattern: a hash of the four IDs. */
function mix(s: number, p: number, o: number, g: number): number {
  let h = Math.imul(s | 0, 0x9e3779b1);
  h = Math.imul(h ^ (p | 0), 0x85ebca6b);
  h = Math.imul(h ^ (o | 0), 0xc2b2ae35);
  h = Math.imul(h ^ (g | 0), 0x27d4eb2f);
  return (h ^ (h >>> 15)) & (SLOTS - 1);
}
