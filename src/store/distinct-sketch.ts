/**
 * A HyperLogLog sketch of a set of term IDs: how many distinct IDs were added, within a few percent,
 * in a fixed 512 bytes whatever the set's size, updated with a hash and a max per added ID and no
 * read of the store. The writer keeps one of a predicate's subjects and one of its objects
 * (predicate-distincts.ts), so the planner knows how many values a bound subject or object has.
 *
 * Why a sketch rather than exact counts: an exact count of a predicate's distinct subjects needs, for
 * every written quad, an index seek (does (s, p) already occur?), and as many for objects; a bulk load
 * would pay two seeks per quad on top of its appends. The sketch costs two hashes per new quad.
 * What it gives up: ~4.6% standard error (1.04 / sqrt(512)), and removals, which a sketch cannot take
 * back: after deletes it over-counts (an upper bound), which the reader caps at the predicate's
 * quad count.
 *
 * The hash is fixed (murmur3's finalizer of the ID), so the same IDs give the same registers: the
 * consistency check rebuilds a predicate's sketch from its quads and compares register by register.
 */
import { avalanche } from './term-hash.js';

/** Registers per sketch: 2^INDEX_BITS. */
const INDEX_BITS = 9;
export const SKETCH_REGISTERS = 1 << INDEX_BITS;
/** HyperLogLog's bias correction for m registers (Flajolet et al. 2007). */
const ALPHA = 0.7213 / (1 + 1.079 / SKETCH_REGISTERS);
const TWO_TO_32 = 2 ** 32;

/** The term hash's finalizer (term-hash.ts), one hash for the store: sequential IDs come out evenly spread. */
export function hashId(id: number): number {
  return avalanche(id | 0);
}

export class DistinctSketch {
  constructor(readonly registers = new Uint8Array(SKETCH_REGISTERS)) {}

  /** Adds an ID; true when a register grew (the sketch changed). */
  add(id: number): boolean {
    const h = hashId(id);
    const index = h >>> (32 - INDEX_BITS);
    // The position of the first 1 bit of the rest of the hash (a sentinel bit bounds it).
    const rank = Math.clz32((h << INDEX_BITS) | (1 << (INDEX_BITS - 1))) + 1;
    if (this.registers[index] >= rank) return false;
    this.registers[index] = rank;
    return true;
  }

  /** The estimated number of distinct IDs added. */
  estimate(): number {
    let sum = 0;
    let zeros = 0;
    const registers = this.registers;
    for (let i = 0; i < SKETCH_REGISTERS; i++) {
      const r = registers[i];
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    if (zeros === SKETCH_REGISTERS) return 0;
    const raw = (ALPHA * SKETCH_REGISTERS * SKETCH_REGISTERS) / sum;
    // Small sets: linear counting of the empty registers is the better estimate.
    if (raw <= 2.5 * SKETCH_REGISTERS && zeros > 0) return Math.round(SKETCH_REGISTERS * Math.log(SKETCH_REGISTERS / zeros));
    // Near the 32-bit hash's range, collisions hide IDs.
    if (raw > TWO_TO_32 / 30) return Math.round(-TWO_TO_32 * Math.log(1 - raw / TWO_TO_32));
    return Math.round(raw);
  }

  /** Whether every register of this sketch is at least the other's (this one counts a superset). */
  covers(other: DistinctSketch): boolean {
    for (let i = 0; i < SKETCH_REGISTERS; i++) if (this.registers[i] < other.registers[i]) return false;
    return true;
  }

  isEmpty(): boolean {
    return this.registers.every((r) => r === 0);
  }
}

/*
 * Stored form of a pair of sketches (a predicate's subjects and objects): a kind byte, then either
 * both register arrays as they are (DENSE), or, while few registers are set (a small predicate, the
 * common case in a large vocabulary), each sketch as a count (uint16) of (index uint16, value uint8)
 * entries (SPARSE).
 */
const DENSE = 0;
const SPARSE = 1;

export function encodeSketchPair(a: DistinctSketch, b: DistinctSketch): Buffer {
  const set = nonZero(a.registers) + nonZero(b.registers);
  const sparseSize = 1 + 4 + set * 3;
  if (sparseSize >= 1 + 2 * SKETCH_REGISTERS) {
    const bytes = Buffer.allocUnsafe(1 + 2 * SKETCH_REGISTERS);
    bytes[0] = DENSE;
    bytes.set(a.registers, 1);
    bytes.set(b.registers, 1 + SKETCH_REGISTERS);
    return bytes;
  }
  const bytes = Buffer.allocUnsafe(sparseSize);
  bytes[0] = SPARSE;
  let at = 1;
  for (const registers of [a.registers, b.registers]) {
    bytes.writeUInt16BE(nonZero(registers), at);
    at += 2;
    for (let i = 0; i < SKETCH_REGISTERS; i++) {
      if (registers[i] === 0) continue;
      bytes.writeUInt16BE(i, at);
      bytes[at + 2] = registers[i];
      at += 3;
    }
  }
  return bytes;
}

/** The pair encodeSketchPair wrote; undefined for bytes it cannot have written. */
export function decodeSketchPair(bytes: Uint8Array): [DistinctSketch, DistinctSketch] | undefined {
  // length, not byteLength (see carriesDistincts in predicate-distincts.ts).
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (view[0] === DENSE && view.length === 1 + 2 * SKETCH_REGISTERS) {
    // Copies: the bytes may be a buffer that the next read overwrites.
    const registersAt = (at: number) => new DistinctSketch(Uint8Array.from(view.subarray(at, at + SKETCH_REGISTERS)));
    return [registersAt(1), registersAt(1 + SKETCH_REGISTERS)];
  }
  if (view[0] !== SPARSE) return undefined;
  const pair: DistinctSketch[] = [];
  let at = 1;
  for (let k = 0; k < 2; k++) {
    if (at + 2 > view.length) return undefined;
    const count = view.readUInt16BE(at);
    at += 2;
    if (at + count * 3 > view.length) return undefined;
    const registers = new Uint8Array(SKETCH_REGISTERS);
    for (let e = 0; e < count; e++, at += 3) {
      const index = view.readUInt16BE(at);
      if (index >= SKETCH_REGISTERS) return undefined;
      registers[index] = view[at + 2];
    }
    pair.push(new DistinctSketch(registers));
  }
  return at === view.length ? [pair[0], pair[1]] : undefined;
}

function nonZero(registers: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < registers.length; i++) if (registers[i] !== 0) n++;
  return n;
}
