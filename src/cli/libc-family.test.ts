import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { elfInterpreter, libcFamily, presetLibcForNativeModules } from './libc-family.js';

/** detect-libc as lmdb's native-module finder loads it: the answer ours must agree with. */
function detectLibcFamily(): string | null {
  const finder = createRequire(import.meta.url).resolve('node-gyp-build-optional-packages');
  const detectLibc = createRequire(finder)('detect-libc') as { familySync(): string | null };
  return detectLibc.familySync();
}

/** A 64-bit little-endian ELF header whose one program header is PT_INTERP naming `interpreter`. */
function elfWithInterpreter(interpreter: string): Buffer {
  const elf = Buffer.alloc(256);
  elf.writeUInt32BE(0x7f454c46, 0);
  elf[4] = 2; // 64-bit
  elf[5] = 1; // little-endian
  elf.writeBigUInt64LE(64n, 32); // program header table right after the ELF header
  elf.writeUInt16LE(56, 54); // entry size
  elf.writeUInt16LE(1, 56); // one entry
  elf.writeUInt32LE(3, 64); // PT_INTERP
  elf.writeBigUInt64LE(160n, 64 + 8); // where the path lies
  elf.writeBigUInt64LE(BigInt(interpreter.length + 1), 64 + 32);
  elf.write(`${interpreter}\0`, 160, 'latin1');
  return elf;
}

describe('libcFamily', () => {
  it('agrees with detect-libc on the running Node', { skip: process.platform !== 'linux' }, () => {
    assert.equal(libcFamily(), detectLibcFamily());
  });

  it('reads musl and glibc interpreters from an ELF header', () => {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-libc-'));
    try {
      for (const [interpreter, family] of [
        ['/lib/ld-musl-x86_64.so.1', 'musl'],
        ['/lib64/ld-linux-x86-64.so.2', 'glibc'],
        ['/lib/ld-linux-aarch64.so.1', 'glibc'],
        ['/opt/custom/loader.so', undefined],
      ] as const) {
        assert.equal(elfInterpreter(elfWithInterpreter(interpreter)), interpreter);
        const file = join(dir, 'exe');
        writeFileSync(file, elfWithInterpreter(interpreter));
        if (process.platform === 'linux') assert.equal(libcFamily(file), family, interpreter);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers nothing for what it cannot read', () => {
    assert.equal(elfInterpreter(Buffer.from('#!/bin/sh\necho not an executable\n')), undefined);
    assert.equal(elfInterpreter(elfWithInterpreter('/lib/ld-musl-x86_64.so.1').subarray(0, 100)), undefined);
    const bigEndian = elfWithInterpreter('/lib/ld-musl-x86_64.so.1');
    bigEndian[5] = 2;
    assert.equal(elfInterpreter(bigEndian), undefined);
    assert.equal(libcFamily(join(tmpdir(), 'quiver-no-such-executable')), undefined);
  });

  it("leaves the user's LIBC as it is", () => {
    const env: NodeJS.ProcessEnv = { LIBC: 'musl' };
    presetLibcForNativeModules(env);
    assert.equal(env['LIBC'], 'musl');
    const unset: NodeJS.ProcessEnv = {};
    presetLibcForNativeModules(unset);
    assert.equal(unset['LIBC'], libcFamily());
  });
});
