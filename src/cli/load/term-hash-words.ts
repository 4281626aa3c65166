/**
 * The dictionary hash of a term key (store/term-hash.ts, part of the store format) computed from
 * the key's UTF-8 bytes four at a time: one load and one ASCII test per word instead of per byte,
 * the same arithmetic per character, so the same hash. The parse worker hashes every new term's
 * bytes (tens of MB on data with long literals); this halves that. Keys with a non-ASCII byte go to
 * the store's own function (which decodes them).
 */
import { hashTermKeyBytes } from '../../store/term-hash.js';

/** hashTermKeyBytes(bytes, start, end, out); `view` is a DataView over the same memory as `bytes`. */
export function hashTermKeyWords(bytes: Uint8Array, view: DataView, start: number, end: number, out: Uint32Array): void {
  const length = end - start;
  let h1 = 0x811c9dc5 ^ length;
  let h2 = 0x9747b28c;
  let i = start;
  for (const last = end - 3; i < last; i += 4) {
    const word = view.getInt32(i, true);
    if ((word & 0x80808080) !== 0) return hashTermKeyBytes(bytes, start, end, out);
    let c = word & 0xff;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
    c = (word >>> 8) & 0xff;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
    c = (word >>> 16) & 0xff;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
    c = word >>> 24;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  for (; i < end; i++) {
    const c = bytes[i];
    if (c >= 0x80) return hashTermKeyBytes(bytes, start, end, out);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  out[0] = avalanche(h1);
  out[1] = avalanche(h2 ^ length);
}

/** murmur3's finalizer, as store/term-hash.ts applies it. */
function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
