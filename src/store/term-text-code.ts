/**
 * A static Huffman code for the text of long literals in the id -> term database (term-prefixes.ts
 * has the other kinds of stored value). Long literals are most of a dataset's bytes on disk: on the
 * BSBM data, reviews and comments of 700 bytes on average are 75% of the terms' text. Coded, a
 * value takes about 60% of its bytes (about what deflate gets on such short texts, 56%), and the
 * id -> term pages hold more of them.
 *
 * By hand rather than Node's zlib, for speed: on 20,000 BSBM reviews (729 bytes each) zlib took 32
 * µs to deflate one and 11 µs to inflate it, a call's set-up costing more than the work; this code
 * takes a few µs each way, and a load codes every long literal it meets.
 *
 * Static, so that no table needs storing or agreeing on: the byte frequencies of English prose,
 * counted once over the README files of this project's npm dependencies (3.2 MB, code blocks
 * left out). Text it fits badly (another script, binary-like data) codes longer and is kept as it
 * is: a value is coded only when that saves at least an eighth of it. The code is part of the store
 * format; a different one would need a tag of its own.
 *
 * A coded value: CODED_TERM, the text's length in bytes (LEB128), then the codes, most significant
 * bit first, the last byte padded with zeros.
 */

export const CODED_TERM = 0x03;
/** Shorter texts are kept as they are: a few bytes saved do not pay for the decoding. */
const MIN_CODED_BYTES = 64;
const MAX_CODE_BITS = 15;

/** Occurrences per million bytes of English prose, by byte value (at least 1, so that every byte has a code). */
const PROSE_FREQUENCIES = [
  1, 1, 1, 1, 1, 1, 1, 1, 1, 242, 22658, 1, 1, 372, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 111660, 601, 2774, 6867, 54, 619, 343, 1086, 5850,
  5852, 3585, 91, 4487, 12022, 15034, 21050, 1712, 1709, 1563, 1158, 820, 687, 715, 436, 619, 441, 6913, 331, 2571, 1701, 2718, 419, 502, 2587, 1117, 2496,
  1619, 1593, 1556, 535, 910, 2574, 724, 257, 1446, 1331, 1549, 1340, 1605, 430, 2028, 3228, 3451, 950, 329, 610, 131, 270, 51, 4317, 122, 4316, 63, 1674,
  12688, 53702, 11825, 30243, 24882, 78699, 15120, 15721, 25654, 46862, 3579, 5002, 26842, 20699, 45521, 51862, 21383, 1997, 46163, 49939, 66153, 23736, 8106,
  9490, 2861, 10865, 1071, 179, 2256, 179, 65, 1, 90, 2, 5, 1, 2, 1, 14, 14, 1, 7, 2, 1, 1, 2, 4, 11, 1, 4, 16, 74, 60, 1, 5, 6, 2, 6, 8, 4, 67, 6, 1, 38, 53,
  5, 2, 1, 7, 8, 16, 1, 1, 22, 1, 1, 1, 1, 1, 1, 4, 90, 1, 1, 1, 24, 1, 6, 9, 1, 1, 3, 16, 1, 1, 3, 1, 1, 181, 18, 4, 10, 1, 1, 1, 1, 1, 1, 1, 1, 8, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 184, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 12, 36, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
];

interface CodeTables {
  /** Coding by byte value: the code in the high bits, its length in the low 4. */
  readonly symbols: Uint32Array;
  /** Decoding by the next MAX_CODE_BITS bits: the byte in the high bits, its code's length in the low 4. */
  readonly decode: Uint16Array;
}

/** Made at the first use, not at start-up: a one-shot `quiver query` may never need them. */
let tables: CodeTables | undefined;

function codeTables(): CodeTables {
  if (tables === undefined) {
    const { lengths, codes } = canonicalCode(PROSE_FREQUENCIES);
    tables = { symbols: Uint32Array.from(codes, (code, byte) => (code << 4) | lengths[byte]), decode: decodeTable(lengths, codes) };
  }
  return tables;
}

let coded = new Uint8Array(1024);
let decoded = new Uint8Array(1024);

/**
 * The coded value of a term key's UTF-8 bytes, or undefined when coding would not save an eighth of
 * them. The result is a view of a buffer that the next call reuses.
 */
export function codedTermValue(key: Uint8Array): Uint8Array | undefined {
  const symbols = codeTables().symbols;
  const length = key.length;
  const budget = length - (length >>> 3);
  if (coded.length < length + 8) coded = new Uint8Array(length * 2 + 8);
  const out = coded;
  out[0] = CODED_TERM;
  let at = writeLength(out, 1, length);
  // Fewer than 16 bits wait in `pending`'s low bits, and a code adds at most 15: bits above them
  // are spent, and a byte store keeps only its low 8 bits, so nothing masks them off.
  let pending = 0;
  let bits = 0;
  for (let i = 0; i < length; i++) {
    const symbol = symbols[key[i]];
    const codeLength = symbol & 15;
    pending = (pending << codeLength) | (symbol >>> 4);
    bits += codeLength;
    if (bits >= 16) {
      bits -= 16;
      const word = pending >>> bits;
      out[at] = word >>> 8;
      out[at + 1] = word;
      at += 2;
      if (at >= budget) return undefined;
    }
  }
  if (bits > 8) {
    out[at++] = pending >>> (bits - 8);
    bits -= 8;
  }
  if (bits > 0) out[at++] = pending << (8 - bits);
  return at >= budget ? undefined : out.subarray(0, at);
}

/**
 * The coded value of a literal's key (rdf/terms.ts' termKey: plain, with a language or a direction,
 * or typed) that the dictionary stores whole, or undefined when the key is no literal, is short, or
 * does not code well.
 */
export function codedLiteral(key: Uint8Array): Uint8Array | undefined {
  const tag = key[0];
  return (isPlainLiteralTag(tag) || tag === 0x5e) /* ^ */ && key.length >= MIN_CODED_BYTES ? codedTermValue(key) : undefined;
}

/**
 * codedLiteral of a plain literal's key (a string, with or without a language or direction): the
 * kinds of term no prefix applies to (term-prefixes.ts), so the dictionary stores them coded
 * whenever coding saves enough, and the load's parse worker codes them before it sends them.
 */
export function codedPlainLiteral(key: Uint8Array): Uint8Array | undefined {
  return isPlainLiteralTag(key[0]) ? codedLiteral(key) : undefined;
}

function isPlainLiteralTag(tag: number): boolean {
  return tag === 0x22 /* " */ || tag === 0x40 /* @ */ || tag === 0x2f; /* / */
}

/** The UTF-8 bytes a coded value stands for, in a buffer that the next call reuses. */
export function decodedTermBytes(value: Uint8Array): Uint8Array {
  const table = codeTables().decode;
  const valueLength = value.length;
  let at = 1;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = value[at++];
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (decoded.length < length) decoded = new Uint8Array(Math.max(length, decoded.length * 2));
  const out = decoded;
  let pending = 0;
  let bits = 0;
  for (let i = 0; i < length; i++) {
    if (bits < MAX_CODE_BITS) {
      // Two bytes at a time: fewer than 15 bits wait in the low bits, so 16 more fit (the bits
      // above them are spent, and shifted out or masked off by the table index).
      pending = (pending << 16) | ((at < valueLength ? value[at] : 0) << 8) | (at + 1 < valueLength ? value[at + 1] : 0);
      at += 2;
      bits += 16;
    }
    const entry = table[(pending >>> (bits - MAX_CODE_BITS)) & ((1 << MAX_CODE_BITS) - 1)];
    out[i] = entry >>> 4;
    bits -= entry & 15;
  }
  return out.subarray(0, length);
}

function writeLength(out: Uint8Array, at: number, length: number): number {
  while (length >= 0x80) {
    out[at++] = (length & 0x7f) | 0x80;
    length = Math.floor(length / 0x80);
  }
  out[at++] = length;
  return at;
}

/**
 * Huffman code lengths for the frequencies, at most MAX_CODE_BITS long (frequencies are halved until
 * they fit), and the canonical codes for them: by length, then by byte value.
 */
function canonicalCode(frequencies: readonly number[]): { lengths: Uint8Array; codes: Uint16Array } {
  let weights = frequencies.slice();
  let lengths = huffmanLengths(weights);
  while (Math.max(...lengths) > MAX_CODE_BITS) {
    weights = weights.map((weight) => Math.max(1, weight >>> 1));
    lengths = huffmanLengths(weights);
  }
  const codes = new Uint16Array(256);
  const order = [...lengths.keys()].sort((a, b) => lengths[a] - lengths[b] || a - b);
  let code = 0;
  let previous = lengths[order[0]];
  for (const byte of order) {
    code <<= lengths[byte] - previous;
    previous = lengths[byte];
    codes[byte] = code++;
  }
  return { lengths, codes };
}

/**
 * Each symbol's depth in a Huffman tree of the weights. The two-queue construction: leaves sorted by
 * weight, and inner nodes, which are made in order of weight, merged as they are taken.
 */
function huffmanLengths(weights: readonly number[]): Uint8Array {
  const symbols = weights.length;
  const leaves = [...weights.keys()].sort((a, b) => weights[a] - weights[b] || a - b);
  // Nodes 0..symbols-1 are the leaves; inner nodes follow in the order they are made.
  const weightOf = [...weights];
  const parent = new Int32Array(2 * symbols - 1);
  let nextLeaf = 0;
  let nextInner = symbols;
  const lightest = (): number => {
    if (nextLeaf < symbols && (nextInner >= weightOf.length || weights[leaves[nextLeaf]] <= weightOf[nextInner])) return leaves[nextLeaf++];
    return nextInner++;
  };
  while (weightOf.length < 2 * symbols - 1) {
    const a = lightest();
    const b = lightest();
    parent[a] = parent[b] = weightOf.length;
    weightOf.push(weightOf[a] + weightOf[b]);
  }
  const depth = new Uint8Array(2 * symbols - 1);
  for (let node = 2 * symbols - 3; node >= 0; node--) depth[node] = depth[parent[node]] + 1;
  return depth.slice(0, symbols);
}

function decodeTable(lengths: Uint8Array, codes: Uint16Array): Uint16Array {
  const table = new Uint16Array(1 << MAX_CODE_BITS);
  for (let byte = 0; byte < 256; byte++) {
    const spare = MAX_CODE_BITS - lengths[byte];
    table.fill((byte << 4) | lengths[byte], codes[byte] << spare, (codes[byte] + 1) << spare);
  }
  return table;
}
