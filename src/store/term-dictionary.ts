/**
 * The dictionary: every stored RDF term has a uint32 ID. Two LMDB databases, id -> term key and
 * term key -> id, where the term key is the canonical text of `termKey` (so `"01"^^xsd:integer` and
 * `"1"^^xsd:integer` are different terms, as RDF term equality wants).
 *
 * LMDB keys are limited to about 2 KB, and long keys also thin out the B-tree, so a term key longer
 * than HASHED_KEY_THRESHOLD bytes is keyed by its SHA-256 instead, behind a 0x01 byte that no
 * canonical term key starts with; a look-up by hash reads the id -> term entry back to confirm it.
 */
import { createHash } from 'node:crypto';
import { termFromKey, termKey, type Term } from '../rdf/terms.js';
import { DEFAULT_GRAPH_ID, type TermId } from './quad-store.js';
import type { KvDatabase } from './lmdb-types.js';
import type { SnapshotReads } from './snapshot-reads.js';

/** UTF-8 bytes above which the term -> id key is a hash. */
export const HASHED_KEY_THRESHOLD = 255;
const HASHED_KEY_TAG = 0x01;
const DEFAULT_GRAPH_KEY = 'D';

/** A term -> id key: the term key itself, or its tagged hash. */
export type DictionaryKey = string | Uint8Array;

export type IdToTermDatabase = KvDatabase<number, Uint8Array>;
export type TermToIdDatabase = KvDatabase<DictionaryKey, Uint8Array>;

/** lmdb-js key encoder for the term -> id database: UTF-8 text, or the raw bytes of a hash. */
export const dictionaryKeyEncoder = {
  writeKey(key: DictionaryKey, target: Buffer, start: number): number {
    if (typeof key === 'string') return start + target.write(key, start, 'utf8');
    target.set(key, start);
    return start + key.length;
  },
  readKey(source: Buffer, start: number, end: number): DictionaryKey {
    return source[start] === HASHED_KEY_TAG ? source.subarray(start, end).slice() : source.toString('utf8', start, end);
  },
};

export function dictionaryKeyOf(key: string): DictionaryKey {
  if (key.length * 3 <= HASHED_KEY_THRESHOLD || Buffer.byteLength(key, 'utf8') <= HASHED_KEY_THRESHOLD) return key;
  const hashed = new Uint8Array(33);
  hashed[0] = HASHED_KEY_TAG;
  hashed.set(createHash('sha256').update(key, 'utf8').digest(), 1);
  return hashed;
}

export function encodeId(id: TermId): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, id);
  return bytes;
}

function decodeId(bytes: Uint8Array): TermId {
  return ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
}

function decodeText(bytes: Buffer): string {
  return bytes.toString('utf8', 0, bytes.length);
}

/** Read access to the dictionary through one snapshot. */
export class DictionaryReader {
  constructor(
    protected readonly idToTerm: IdToTermDatabase,
    protected readonly termToId: TermToIdDatabase,
    protected readonly reads: SnapshotReads,
  ) {}

  /** The ID of a canonical term key, or undefined. */
  idOfKey(key: string): TermId | undefined {
    if (key === DEFAULT_GRAPH_KEY) return DEFAULT_GRAPH_ID;
    const dictKey = dictionaryKeyOf(key);
    const found = this.reads.get(this.termToId, dictKey);
    if (found === undefined) return undefined;
    const id = decodeId(found);
    // A hash match is trusted only once the stored term says so.
    if (typeof dictKey !== 'string' && this.keyOfId(id) !== key) return undefined;
    return id;
  }

  /** The canonical term key of an ID, or undefined when the snapshot has no such ID. */
  keyOfId(id: TermId): string | undefined {
    if (id === DEFAULT_GRAPH_ID) return DEFAULT_GRAPH_KEY;
    const found = this.reads.get(this.idToTerm, id);
    return found === undefined ? undefined : decodeText(found);
  }

  termOfId(id: TermId): Term | undefined {
    const key = this.keyOfId(id);
    return key === undefined ? undefined : termFromKey(key);
  }
}

/** The dictionary inside the write transaction: adds entries. */
export class DictionaryWriter extends DictionaryReader {
  /** Records a new term under a fresh ID; the caller has checked that the key is not there. */
  insert(key: string, id: TermId): void {
    this.termToId.putSync(dictionaryKeyOf(key), encodeId(id));
    // IDs are issued in increasing order, so the id -> term B-tree only ever grows at its right edge.
    this.idToTerm.putSync(id, Buffer.from(key, 'utf8'), { append: true });
  }
}

export function canonicalKey(term: Term): string {
  if (term.termType === 'Variable') throw new TypeError(`a variable (?${term.value}) is not a stored term`);
  return termKey(term);
}
