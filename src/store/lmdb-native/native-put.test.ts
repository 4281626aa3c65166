import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { NativePuts, PUT_APPEND, PUT_NO_OVERWRITE } from './native-put.js';

function withEnv(fn: (env: RootDatabase) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-native-put-'));
  const env = open({ path: dir, maxDbs: 8, noSync: true });
  try {
    fn(env);
  } finally {
    void env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bigEndianIds = (key: DataView): number[] => [key.getUint32(0), key.getUint32(4), key.getUint32(8)];

/** An index-like database: keys are three IDs, big-endian, values empty (as the store's indexes). */
function idKeyDatabase(env: RootDatabase, name: string) {
  return env.openDB({
    name,
    encoding: 'binary',
    keyEncoder: {
      writeKey(key: number[], target: Uint8Array, start: number) {
        const view = new DataView(target.buffer, target.byteOffset);
        key.forEach((id, i) => view.setUint32(start + i * 4, id));
        return start + key.length * 4;
      },
      readKey: (source: Uint8Array, start: number, end: number) => source.subarray(start, end),
    },
  } as object as { name: string });
}

/** The database's keys as hex, read through a second handle with plain binary keys. */
function rawKeys(env: RootDatabase, name: string): string[] {
  const raw = env.openDB({ name, encoding: 'binary', keyEncoding: 'binary' });
  return [...raw.getKeys({})].map((key) => Buffer.from(key as Uint8Array).toString('hex'));
}

function putIds(puts: NativePuts, ids: number[], flags: number): boolean {
  ids.forEach((id, i) => puts.keyView.setUint32(i * 4, id));
  return puts.putEmpty(flags);
}

test('native puts and putSync write the same entries and agree on MDB_NOOVERWRITE and MDB_APPEND', () => {
  withEnv((env) => {
    const results: { keys: string[]; answers: boolean[] }[] = [];
    for (const preferNative of [true, false]) {
      const db = idKeyDatabase(env, `index-${preferNative}`);
      const puts = new NativePuts(db as never, 12, bigEndianIds, preferNative);
      assert.equal(puts.native, preferNative);
      const answers = env.transactionSync(() => [
        putIds(puts, [1, 2, 3], PUT_APPEND),
        putIds(puts, [1, 2, 4], PUT_APPEND),
        putIds(puts, [1, 2, 3], PUT_NO_OVERWRITE),
        putIds(puts, [1, 1, 9], PUT_NO_OVERWRITE),
        putIds(puts, [0x80000000, 0xffffffff, 7], PUT_APPEND),
        putIds(puts, [1, 1, 9], 0),
      ]);
      results.push({ keys: rawKeys(env, `index-${preferNative}`), answers });
    }
    assert.deepEqual(results[0], results[1]);
    assert.deepEqual(results[0].answers, [true, true, false, true, true, true]);
    assert.deepEqual(results[0].keys, ['000000010000000100000009', '000000010000000200000003', '000000010000000200000004', '80000000ffffffff00000007']);
  });
});

test('native puts write values from any byte array, at any offset, and uint32 keys in native order', () => {
  withEnv((env) => {
    const db = env.openDB({ name: 'id2term', encoding: 'binary', keyEncoding: 'uint32' });
    const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
    const puts = new NativePuts(db as never, 4, (key) => key.getUint32(0, littleEndian));
    assert.ok(puts.native, 'lmdb-js exposes what the native path needs');
    const arena = new TextEncoder().encode('..alpha|beta|');
    env.transactionSync(() => {
      for (const [id, from, to] of [
        [1, 2, 7],
        [2, 8, 12],
        [300, 0, 0],
      ]) {
        puts.keyView.setUint32(0, id, littleEndian);
        puts.putBytes(arena.subarray(from, to), PUT_APPEND);
      }
    });
    assert.equal(Buffer.from(db.get(1) as Uint8Array).toString(), 'alpha');
    assert.equal(Buffer.from(db.get(2) as Uint8Array).toString(), 'beta');
    assert.equal((db.get(300) as Uint8Array).length, 0);
    assert.deepEqual([...db.getKeys({})], [1, 2, 300]);
  });
});

test('a native put outside a write transaction is refused, not attempted', () => {
  withEnv((env) => {
    const db = idKeyDatabase(env, 'index');
    const puts = new NativePuts(db as never, 12, bigEndianIds);
    assert.throws(() => putIds(puts, [1, 2, 3], 0), /write transaction/);
  });
});
