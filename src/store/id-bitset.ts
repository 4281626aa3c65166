/**
 * A growable set of term IDs, one bit each: bounded by the largest ID (nextId / 8 bytes), whereas a
 * Set of a bulk load's distinct subjects grows by tens of bytes per entry.
 */
export class IdBitset {
  private words = new Uint32Array(1024);

  has(id: number): boolean {
    const word = id >>> 5;
    return word < this.words.length && (this.words[word] & (1 << (id & 31))) !== 0;
  }

  /** Sets the bit; true when it was not set. */
  add(id: number): boolean {
    const word = id >>> 5;
    if (word >= this.words.length) this.grow(word);
    const bit = 1 << (id & 31);
    if (this.words[word] & bit) return false;
    this.words[word] |= bit;
    return true;
  }

  delete(id: number): void {
    const word = id >>> 5;
    if (word < this.words.length) this.words[word] &= ~(1 << (id & 31));
  }

  private grow(word: number): void {
    const grown = new Uint32Array(Math.max(word + 1, this.words.length * 2));
    grown.set(this.words);
    this.words = grown;
  }
}
