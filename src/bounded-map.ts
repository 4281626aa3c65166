/**
 * A Map with a size limit, for caches (terms, parsed queries). Two generations: entries go into the young map;
 * when it is full it becomes the old map and the previous old map is dropped. A hit in the old
 * map is moved back into the young one, so hot entries (predicates, classes, common objects)
 * survive while one-off entries fall out. Every operation is O(1): no per-entry bookkeeping and no
 * eviction scans (deleting a Map's oldest entries one by one makes V8 scan the deleted slots).
 *
 * A cache whose entries differ widely in size (a parsed query costs in proportion to its text) can
 * bound their total weight as well: a generation is also full once its entries weigh half the
 * limit, and an entry heavier than that is not kept at all.
 */
export interface WeightLimit<K, V> {
  /** The most all entries may weigh together. */
  maxWeight: number;
  weigh(key: K, value: V): number;
}

export class BoundedMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private youngWeight = 0;
  private readonly generationSize: number;
  private readonly generationWeight: number;

  /** Holds at most `limit` entries (and, with `weight`, at most its maxWeight of them). */
  constructor(
    readonly limit: number,
    private readonly weight?: WeightLimit<K, V>,
  ) {
    this.generationSize = Math.max(1, Math.floor(limit / 2));
    this.generationWeight = weight ? weight.maxWeight / 2 : Infinity;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    const weight = this.weight ? this.weight.weigh(key, value) : 0;
    if (weight > this.generationWeight) return;
    if (this.young.size >= this.generationSize || this.youngWeight + weight > this.generationWeight) {
      this.old = this.young;
      this.young = new Map();
      this.youngWeight = 0;
    }
    this.young.set(key, value);
    this.youngWeight += weight;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.youngWeight = 0;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
