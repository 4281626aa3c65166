/**
 * A Map with a size limit, for caches (terms, parsed queries). Two generations: entries go into the young map;
 * when it is full it becomes the old map and the previous old map is dropped. A hit in the old
 * map is moved back into the young one, so hot entries (predicates, classes, common objects)
 * survive while one-off entries fall out. Every operation is O(1): no per-entry bookkeeping and no
 * eviction scans (deleting a Map's oldest entries one by one makes V8 scan the deleted slots).
 */
export class BoundedMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generationSize: number;

  /** Holds at most `limit` entries. */
  constructor(readonly limit: number) {
    this.generationSize = Math.max(1, Math.floor(limit / 2));
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
