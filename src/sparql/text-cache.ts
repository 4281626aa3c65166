/**
 * A bounded cache keyed by a query text and the base IRI it is read against. Queries without a base
 * (nearly all) are keyed by their text alone: a key built by concatenation would be a fresh string
 * of the query's length, copied and hashed on every look-up, where the text hashes once.
 */
import { BoundedMap } from '../bounded-map.js';

export class TextCache<V> {
  private readonly withoutBase: BoundedMap<string, V>;
  private readonly withBase: BoundedMap<string, V>;

  /** Holds at most `limit` entries of each kind (without a base IRI, with one). */
  constructor(limit: number) {
    this.withoutBase = new BoundedMap(limit);
    this.withBase = new BoundedMap(limit);
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
