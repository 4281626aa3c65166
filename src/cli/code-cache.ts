/**
 * Loads a CommonJS bundle through V8's code cache: the bytecode V8 compiled for it in an earlier
 * run, kept in a file, instead of compiling it again. Compiling the bundle of `quiver query` (over a
 * megabyte of JavaScript) is a good part of what a one-shot command costs (bench/cli-startup.ts);
 * Node 22 offers this for every module (`module.enableCompileCache()`), Node 20 only through
 * `vm.Script`, hence a CommonJS bundle (scripts/build-cli.mjs).
 *
 * The cache is written after the first run's work, so that it holds the functions that run
 * compiled too, not only the top level. The file is named by the bundle's place and build and by
 * Node's version, so another build never reads it, and V8 itself rejects a cache made by another V8
 * or with other flags: a rejected or missing cache costs one ordinary compile and is written again.
 * The cache is bytecode this process will run, so it is only read from a directory that belongs to
 * the user and that no one else may write to; anything else (an unwritable directory, another
 * user's, any on Windows, where modes show everyone may write) just goes without the cache.
 */
import { isAscii } from 'node:buffer';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

export interface CachedModule<T> {
  exports: T;
  /** Whether V8 took the cached bytecode (false on a first run, or when the cache was rejected). */
  cacheUsed: boolean;
  /** Writes the code cache, once the work worth caching has run; nothing when it was used. */
  saveCache(): void;
}

/**
 * Where `quiver` keeps its code caches: QUIVER_CODE_CACHE names a directory, or is `off` (or empty)
 * for none; by default a directory per user in the temporary directory, where Node 22 keeps its own.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const configured = env['QUIVER_CODE_CACHE'];
  if (configured === undefined) return join(tmpdir(), `quiver-code-cache-${process.getuid?.() ?? userInfo().username}`);
  return configured === '' || configured === 'off' ? undefined : configured;
}

/**
 * Runs the CommonJS file as `require` would and answers its exports. `cacheDir` undefined: no cache.
 * The file's own `require` resolves from where it lies, as for any module. It must not use import():
 * a script's dynamic imports need an experimental loader in Node 20, and none with a code cache.
 */
export function requireWithCodeCache<T>(file: string, cacheDir: string | undefined): CachedModule<T> {
  const source = sourceText(readFileSync(file));
  const name = cacheDir === undefined ? undefined : cacheName(file);
  const cacheFile = name === undefined ? undefined : join(cacheDir!, name.file);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheDir!, cacheFile);
  // The wrapper CommonJS puts around every module, so that the bundle sees its usual variables.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const cacheUsed = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (exports: T, require: NodeJS.Require, module: { exports: T }, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cacheUsed,
    saveCache() {
      if (cacheUsed || cacheFile === undefined) return;
      writeCache(cacheDir!, name!, script.createCachedData());
    },
  };
}

/** ASCII (as esbuild writes) read as Latin-1: the same text, without a UTF-8 decoder's checks. */
function sourceText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * `<bundle name>.<which file>.<which build>.cache`: the file is named by its device and inode, so
 * that two installs do not take each other's caches for stale ones; the build by the file's size
 * and modification time and the Node that compiles it. No hash: hashing the text would cost
 * milliseconds per run, and loading node:crypto for a hash of the names costs as much.
 */
interface CacheName {
  /** The name up to the build: what every build of the same bundle shares. */
  bundle: string;
  file: string;
}

function cacheName(file: string): CacheName {
  const { dev, ino, size, mtimeNs } = statSync(file, { bigint: true });
  const bundle = `${basename(file)}.${dev}-${ino}.`;
  return { bundle, file: `${bundle}${size}-${mtimeNs}-${process.version}-${process.arch}.cache` };
}

function readCache(dir: string, file: string): Buffer | undefined {
  if (!isPrivateDirectory(dir)) return undefined;
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Written to a temporary name and renamed, so that a command started meanwhile reads all or none. */
function writeCache(dir: string, name: CacheName, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDirectory(dir)) return;
    removeStaleCaches(dir, name);
    const file = join(dir, name.file);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // A cache is an optimization: without one the next run compiles, as this one did.
  }
}

/** The caches of earlier builds of the same bundle (each build or Node version makes its own). */
function removeStaleCaches(dir: string, current: CacheName): void {
  for (const name of readdirSync(dir)) {
    if (name !== current.file && name.startsWith(current.bundle) && name.endsWith('.cache')) rmSync(join(dir, name), { force: true });
  }
}

/** A real directory (not a link), this user's, that neither group nor others may write to. */
function isPrivateDirectory(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return false;
    if (process.getuid !== undefined && stat.uid !== process.getuid()) return false;
    return (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}
