/**
 * Which C library the running Node links against, read from its ELF interpreter, so that the bin
 * can tell lmdb's native-module finder (node-gyp-build-optional-packages) through `LIBC`, its
 * documented override. Left to itself, that finder asks detect-libc, which loads node:child_process
 * (and with it node:net and the streams) for a fallback it rarely takes: some 20 ms of every
 * one-shot `quiver query` (bench/cli-startup.ts). This reads the same program header detect-libc
 * reads first, from the first 2 KiB of the executable, in well under a millisecond. It answers
 * nothing (and the finder asks detect-libc as before) off Linux, for an executable that is not
 * 64-bit little-endian ELF, or for an interpreter it does not know.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const HEADER_BYTES = 2048;
const ELF_MAGIC = 0x7f454c46;
const PT_INTERP = 3;

export type LibcFamily = 'glibc' | 'musl';

/** The C library of the executable at `path` (by default the running Node), or undefined when unsure. */
export function libcFamily(path: string = process.execPath): LibcFamily | undefined {
  if (process.platform !== 'linux') return undefined;
  let header: Buffer;
  try {
    header = readStart(path);
  } catch {
    return undefined;
  }
  const interpreter = elfInterpreter(header);
  if (interpreter === undefined) return undefined;
  if (interpreter.includes('/ld-musl-')) return 'musl';
  if (interpreter.includes('/ld-linux-')) return 'glibc';
  return undefined;
}

/** Sets `LIBC` for node-gyp-build unless the user has set it, when the family is known. */
export function presetLibcForNativeModules(env: NodeJS.ProcessEnv = process.env): void {
  if (env['LIBC'] !== undefined) return;
  const family = libcFamily();
  if (family !== undefined) env['LIBC'] = family;
}

function readStart(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, HEADER_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

/** The PT_INTERP path of a 64-bit little-endian ELF header, when it lies within the bytes read. */
export function elfInterpreter(elf: Buffer): string | undefined {
  if (elf.length < 64 || elf.readUInt32BE(0) !== ELF_MAGIC || elf[4] !== 2 || elf[5] !== 1) return undefined;
  const tableOffset = Number(elf.readBigUInt64LE(32));
  const entrySize = elf.readUInt16LE(54);
  const entries = elf.readUInt16LE(56);
  for (let i = 0; i < entries; i++) {
    const entry = tableOffset + i * entrySize;
    if (entry + 40 > elf.length) return undefined;
    if (elf.readUInt32LE(entry) !== PT_INTERP) continue;
    const start = Number(elf.readBigUInt64LE(entry + 8));
    const size = Number(elf.readBigUInt64LE(entry + 32));
    if (start + size > elf.length) return undefined;
    return elf.toString('latin1', start, start + size).replace(/\0.*$/s, '');
  }
  return undefined;
}
