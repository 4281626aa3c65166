/**
 * Terms by ID, for decoding results: a direct-mapped table (the slot is the ID's low bits), two
 * flat arrays and no per-entry objects. IDs are issued in sequence, so the terms of one load (a
 * resource and its properties, a vocabulary) sit in neighbouring slots, and any 2^18 consecutive IDs
 * never collide; a colliding ID simply replaces the slot's term. A Map of this size cost ~0.3 µs
 * a look-up in the middle of a query (its hash table is scattered over memory, and two generations
 * of it were kept to bound it); this is an array index.
 *
 * 2^18 slots (3 MiB of tables; the terms they keep, some 30 MiB at most): at 2^17, an aggregate over
 * BSBM 10k's 200,000 offer prices (issue 23's a03) missed on most of them and read each from the
 * store again, a third of the query.
 */
import type { Term } from '../rdf/index.js';
import type { TermId } from './quad-store.js';

const SLOT_BITS = 18;
/** How many terms the cache holds at most; IDs this far apart share a slot. */
export const TERM_CACHE_SLOTS = 1 << SLOT_BITS;
const MASK = TERM_CACHE_SLOTS - 1;
/**
 * What a cache holds until its first term: every slot empty. Its tables are made on the first
 * `set`, so that opening a store for a one-shot `quiver query` does not fill a megabyte of slots
 * it may never use (some 5 ms), and `get` stays one comparison.
 */
const NO_IDS = new Uint32Array(TERM_CACHE_SLOTS);
const NO_TERMS: (Term | undefined)[] = [];

export class TermCache {
  /** The ID whose term each slot holds; 0 (never a term's ID) for an empty slot. */
  private ids = NO_IDS;
  private terms = NO_TERMS;

  get(id: TermId): Term | undefined {
    const slot = id & MASK;
    return this.ids[slot] === id ? this.terms[slot] : undefined;
  }

  /** Keeps the term of an ID; IDs outside 1..2^32-1 are not kept. */
  set(id: TermId, term: Term): void {
    if (!(id > 0 && id <= 0xffffffff)) return;
    if (this.terms === NO_TERMS) this.makeTables();
    const slot = id & MASK;
    this.ids[slot] = id;
    this.terms[slot] = term;
  }

  clear(): void {
    if (this.terms === NO_TERMS) return;
    this.ids.fill(0);
    this.terms.fill(undefined);
  }

  private makeTables(): void {
    this.ids = new Uint32Array(TERM_CACHE_SLOTS);
    this.terms = new Array<Term | undefined>(TERM_CACHE_SLOTS).fill(undefined);
  }
}
