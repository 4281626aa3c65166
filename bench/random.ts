/**
 * A seeded PRNG (sfc32, seeded through splitmix32 from a hash of its keys): small, fast, and the same
 * on every platform, so a generated dataset or a randomized test run is reproduced from its seed.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Keys (a seed, and a name per independent stream) that fix the sequence. */
  constructor(...keys: (string | number)[]) {
    let h = 0x811c9dc5;
    for (const ch of keys.join('/')) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
    let s = h >>> 0;
    const split = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let t = s ^ (s >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
    [this.a, this.b, this.c, this.d] = [split(), split(), split(), split()];
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with the given probability (0..1). */
  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  gaussian(mean: number, sigma: number): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
