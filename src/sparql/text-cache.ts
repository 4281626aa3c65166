/**
 * A bounded cache keyed by a query text and the base IRI it is read against. Queries without a base
 * (nearly all) are keyed by their text alone: a key built by concatenation would be a fresh string
 * of the query's length, copied and hashed on every look-up, where the text hashes once.
 *
 * What a cached parse holds grows with its text (tokens' worth of algebra terms: some 40 bytes of
 * heap per character), so the cache is bounded by the length of its texts as well as by their
 * number: a few hundred parses of megabyte-long texts would hold gigabytes that no query's memory
 * budget sees. A text longer than half the bound is parsed every time.
 */
import { BoundedMap } from '../bounded-map.js';

/** Characters of text the entries of one cache (of each kind) may have in all. */
export const CACHED_TEXT_CHARS = 256 * 1024;

export class TextCache<V> {
  private readonly withoutBase: BoundedMap<string, V>;
  private readonly withBase: BoundedMap<string, V>;

  /** Holds at most `limit` entries of each kind (without a base IRI, with one), of `maxChars` of text in all. */
  constructor(limit: number, maxChars = CACHED_TEXT_CHARS) {
    const weight = { maxWeight: maxChars, weigh: (key: string) => key.length };
    this.withoutBase = new BoundedMap(limit, weight);
    this.withBase = new BoundedMap(limit, weight);
  }

  get(text: string, baseIri: string | undefined): V | undefined {
    return baseIri ? this.withBase.get(keyWithBase(text, baseIri)) : this.withoutBase.get(text);
  }

  set(text: string, baseIri: string | undefined, value: V): void {
    if (baseIri) this.withBase.set(keyWithBase(text, baseIri), value);
    else this.withoutBase.set(text, value);
  }
}

function keyWithBase(text: string, baseIri: string): string {
  return `${baseIri}\u0000${text}`;
}
