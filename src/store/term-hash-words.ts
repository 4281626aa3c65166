/**
 * The dictionary hash of a term key (term-hash.ts, part of the store format) computed from
 * the key's UTF-8 bytes four at a time: one load and one ASCII test per word instead of per byte,
 * the same arithmetic per character, so the same hash. The parse worker hashes every new term's
 * bytes (tens of MB on data with long literals). Keys with a non-ASCII byte go to the store's own
 * function (which decodes them).
 */
import { avalanche, hashTermKeyBytes, TERM_HASH } from './term-hash.js';

const FNV_PRIME = TERM_HASH.multiplier1;
const MIX = TERM_HASH.multiplier2;
const H1 = TERM_HASH.seed1;
const H2 = TERM_HASH.seed2;

/** hashTermKeyBytes(bytes, start, end, out); `view` is a DataView over the same memory as `bytes`. */
export function hashTermKeyWords(bytes: Uint8Array, view: DataView, start: number, end: number, out: Uint32Array): void {
  finishKey(bytes, view, start, start, end, H1 ^ (end - start), H2, out, 0);
}

/**
 * hashTermKeyWords of every key of a batch, key i being bytes[ends[i - 1] (0 for the first),
 * ends[i]), into out[2i] (high word) and out[2i + 1]. Two keys are hashed at once, a word of each in
 * turn: a key's hash is a chain of dependent multiplications, so one key alone leaves the processor
 * waiting on each of them, and a second chain fills those waits (~1.5 times faster on long
 * literals). When a key ends, the next one takes its place.
 */
export function hashTermKeysWords(bytes: Uint8Array, view: DataView, ends: Uint32Array, out: Uint32Array): void {
  const count = ends.length;
  let next = 0;
  let aKey = -1,
    aStart = 0,
    aAt = 0,
    aEnd = 0,
    a1 = 0,
    a2 = 0;
  let bKey = -1,
    bStart = 0,
    bAt = 0,
    bEnd = 0,
    b1 = 0,
    b2 = 0;
  for (;;) {
    if (aKey < 0 && next < count) {
      aKey = next++;
      aStart = aAt = aKey === 0 ? 0 : ends[aKey - 1];
      aEnd = ends[aKey];
      a1 = H1 ^ (aEnd - aStart);
      a2 = H2;
    }
    if (bKey < 0 && next < count) {
      bKey = next++;
      bStart = bAt = bKey === 0 ? 0 : ends[bKey - 1];
      bEnd = ends[bKey];
      b1 = H1 ^ (bEnd - bStart);
      b2 = H2;
    }
    if (aKey < 0 || bKey < 0) break;
    for (let steps = Math.min(aEnd - aAt, bEnd - bAt) >> 2; steps > 0; steps--) {
      const aWord = view.getInt32(aAt, true);
      const bWord = view.getInt32(bAt, true);
      if (((aWord | bWord) & 0x80808080) !== 0) break;
      let c = aWord & 0xff;
      a1 = Math.imul(a1 ^ c, FNV_PRIME);
      a2 = Math.imul(a2 ^ c, MIX);
      a2 ^= a2 >>> 13;
      c = bWord & 0xff;
      b1 = Math.imul(b1 ^ c, FNV_PRIME);
      b2 = Math.imul(b2 ^ c, MIX);
      b2 ^= b2 >>> 13;
      c = (aWord >>> 8) & 0xff;
      a1 = Math.imul(a1 ^ c, FNV_PRIME);
      a2 = Math.imul(a2 ^ c, MIX);
      a2 ^= a2 >>> 13;
      c = (bWord >>> 8) & 0xff;
      b1 = Math.imul(b1 ^ c, FNV_PRIME);
      b2 = Math.imul(b2 ^ c, MIX);
      b2 ^= b2 >>> 13;
      c = (aWord >>> 16) & 0xff;
      a1 = Math.imul(a1 ^ c, FNV_PRIME);
      a2 = Math.imul(a2 ^ c, MIX);
      a2 ^= a2 >>> 13;
      c = (bWord >>> 16) & 0xff;
      b1 = Math.imul(b1 ^ c, FNV_PRIME);
      b2 = Math.imul(b2 ^ c, MIX);
      b2 ^= b2 >>> 13;
      c = aWord >>> 24;
      a1 = Math.imul(a1 ^ c, FNV_PRIME);
      a2 = Math.imul(a2 ^ c, MIX);
      a2 ^= a2 >>> 13;
      c = bWord >>> 24;
      b1 = Math.imul(b1 ^ c, FNV_PRIME);
      b2 = Math.imul(b2 ^ c, MIX);
      b2 ^= b2 >>> 13;
      aAt += 4;
      bAt += 4;
    }
    // A key with under four bytes left, or a non-ASCII word next, is finished on its own.
    if (aEnd - aAt < 4 || (view.getInt32(aAt, true) & 0x80808080) !== 0) {
      finishKey(bytes, view, aStart, aAt, aEnd, a1, a2, out, 2 * aKey);
      aKey = -1;
    }
    if (bEnd - bAt < 4 || (view.getInt32(bAt, true) & 0x80808080) !== 0) {
      finishKey(bytes, view, bStart, bAt, bEnd, b1, b2, out, 2 * bKey);
      bKey = -1;
    }
  }
  if (aKey >= 0) finishKey(bytes, view, aStart, aAt, aEnd, a1, a2, out, 2 * aKey);
  if (bKey >= 0) finishKey(bytes, view, bStart, bAt, bEnd, b1, b2, out, 2 * bKey);
}

/**
 * Hashes the rest of the key bytes[keyStart, end) from `from` on, (h1, h2) being the state after
 * the ASCII bytes before it, into out[at] and out[at + 1].
 */
function finishKey(bytes: Uint8Array, view: DataView, keyStart: number, from: number, end: number, h1: number, h2: number, out: Uint32Array, at: number): void {
  let i = from;
  for (const last = end - 3; i < last; i += 4) {
    const word = view.getInt32(i, true);
    if ((word & 0x80808080) !== 0) return decoded(bytes, keyStart, end, out, at);
    let c = word & 0xff;
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, MIX);
    h2 ^= h2 >>> 13;
    c = (word >>> 8) & 0xff;
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, MIX);
    h2 ^= h2 >>> 13;
    c = (word >>> 16) & 0xff;
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, MIX);
    h2 ^= h2 >>> 13;
    c = word >>> 24;
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, MIX);
    h2 ^= h2 >>> 13;
  }
  for (; i < end; i++) {
    const c = bytes[i];
    if (c >= 0x80) return decoded(bytes, keyStart, end, out, at);
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, MIX);
    h2 ^= h2 >>> 13;
  }
  out[at] = avalanche(h1);
  out[at + 1] = avalanche(h2 ^ (end - keyStart));
}

/** A key with non-ASCII bytes: the store's function, which decodes it (UTF-16 code units). */
function decoded(bytes: Uint8Array, start: number, end: number, out: Uint32Array, at: number): void {
  hashTermKeyBytes(bytes, start, end, scratch);
  out[at] = scratch[0];
  out[at + 1] = scratch[1];
}

const scratch = new Uint32Array(2);
