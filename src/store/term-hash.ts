/**
 * The dictionary's 64-bit hash of a term key (term -> id keys, see term-dictionary.ts): part of the
 * store format, so every way of computing it must agree with `hashTermKey`. Two 32-bit
 * multiplicative hashes of the key's UTF-16 code units with different constants, each finished
 * with murmur3's avalanche. Not cryptographic: collisions are handled, just rare.
 *
 * A module of its own, with no imports, so that the load's parse worker can hash the terms it
 * sends (from their UTF-8 bytes) and spare the loading thread that work.
 */

// Plain numbers for the loops below: every term looked up in the dictionary is hashed here.
const SEED1 = 0x811c9dc5;
const SEED2 = 0x9747b28c;
const MULTIPLIER1 = 0x01000193;
const MULTIPLIER2 = 0x5bd1e995;

/** The two hashes' seeds and multipliers (term-hash-words.ts computes the same hash four bytes at a time). */
export const TERM_HASH = { seed1: SEED1, seed2: SEED2, multiplier1: MULTIPLIER1, multiplier2: MULTIPLIER2 } as const;

/** Hashes the key into out[0] (high word) and out[1] (low word). */
export function hashTermKey(key: string, out: Uint32Array): void {
  let h1 = SEED1 ^ key.length;
  let h2: number = SEED2;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, MULTIPLIER1);
    h2 = Math.imul(h2 ^ c, MULTIPLIER2);
    h2 ^= h2 >>> 13;
  }
  out[0] = avalanche(h1);
  out[1] = avalanche(h2 ^ key.length);
}

/**
 * `hashTermKey` of the key whose UTF-8 bytes are bytes[start, end): for ASCII bytes, which are the
 * key's code units; anything else is decoded first.
 */
export function hashTermKeyBytes(bytes: Uint8Array, start: number, end: number, out: Uint32Array): void {
  const length = end - start;
  let h1 = SEED1 ^ length;
  let h2: number = SEED2;
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c >= 0x80) {
      hashTermKey(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start, end), out);
      return;
    }
    h1 = Math.imul(h1 ^ c, MULTIPLIER1);
    h2 = Math.imul(h2 ^ c, MULTIPLIER2);
    h2 ^= h2 >>> 13;
  }
  out[0] = avalanche(h1);
  out[1] = avalanche(h2 ^ length);
}

/** murmur3's finalizer: every output bit depends on every input bit. Part of the store format, like the hashes. */
export function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
