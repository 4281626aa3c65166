import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeCacheDir, requireWithCodeCache } from './code-cache.js';

interface Bundle {
  answer: () => number;
  dependency: string;
}

interface Run {
  cacheUsed: boolean;
  answer: number;
  dependency: string;
}

const CODE_CACHE = new URL('./code-cache.js', import.meta.url).href;

/**
 * Loads the bundle in a new process, as each `quiver query` does, and saves the cache after: within
 * one process V8 reuses what it compiled already and never looks at the cached data.
 */
function runInNewProcess(bundle: string, cache: string | undefined): Run {
  const script = `
    const { requireWithCodeCache } = await import(${JSON.stringify(CODE_CACHE)});
    const loaded = requireWithCodeCache(${JSON.stringify(bundle)}, ${JSON.stringify(cache)});
    const { answer, dependency } = loaded.exports;
    loaded.saveCache();
    console.log(JSON.stringify({ cacheUsed: loaded.cacheUsed, answer: answer(), dependency }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Run;
}

describe('requireWithCodeCache', () => {
  let dir: string;
  let bundle: string;
  let cache: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quiver-code-cache-test-'));
    bundle = join(dir, 'bundle.cjs');
    cache = join(dir, 'cache');
    // The bundle requires a file beside it: `require` resolves from where the bundle lies.
    writeFileSync(join(dir, 'dependency.cjs'), 'module.exports = "beside";');
    writeFileSync(bundle, 'exports.answer = () => 6 * 7;\nexports.dependency = require("./dependency.cjs");');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the file as CommonJS, then a second run takes the code cache the first one saved', () => {
    assert.deepEqual(runInNewProcess(bundle, cache), { cacheUsed: false, answer: 42, dependency: 'beside' });
    assert.equal(readdirSync(cache).length, 1);
    assert.deepEqual(runInNewProcess(bundle, cache), { cacheUsed: true, answer: 42, dependency: 'beside' });
  });

  it('keeps one cache per bundle: a new build of it gets its own, and the old one goes', () => {
    runInNewProcess(bundle, cache);
    const [old] = readdirSync(cache);
    writeFileSync(bundle, 'exports.answer = () => 43;\nexports.dependency = "none";');
    utimesSync(bundle, new Date(), new Date(Date.now() + 5000));
    assert.deepEqual(runInNewProcess(bundle, cache), { cacheUsed: false, answer: 43, dependency: 'none' });
    const files = readdirSync(cache);
    assert.equal(files.length, 1);
    assert.notEqual(files[0], old);
  });

  it('keeps the caches of two installs of the same bundle, each its own', () => {
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'dependency.cjs'), 'module.exports = "other";');
    const otherBundle = join(other, 'bundle.cjs');
    writeFileSync(otherBundle, 'exports.answer = () => 7;\nexports.dependency = require("./dependency.cjs");');
    runInNewProcess(bundle, cache);
    runInNewProcess(otherBundle, cache);
    assert.equal(readdirSync(cache).length, 2);
    assert.deepEqual(runInNewProcess(bundle, cache), { cacheUsed: true, answer: 42, dependency: 'beside' });
    assert.deepEqual(runInNewProcess(otherBundle, cache), { cacheUsed: true, answer: 7, dependency: 'other' });
  });

  it('compiles as usual when the cache is damaged, and replaces it', () => {
    runInNewProcess(bundle, cache);
    const [file] = readdirSync(cache);
    writeFileSync(join(cache, file!), 'not bytecode');
    assert.deepEqual(runInNewProcess(bundle, cache), { cacheUsed: false, answer: 42, dependency: 'beside' });
    assert.equal(runInNewProcess(bundle, cache).cacheUsed, true);
  });

  it('neither reads nor writes a cache in a directory others may write to', { skip: process.platform === 'win32' }, () => {
    mkdirSync(cache);
    chmodSync(cache, 0o777);
    runInNewProcess(bundle, cache);
    assert.deepEqual(readdirSync(cache), []);
  });

  it('reads a bundle as UTF-8 when it is not ASCII', () => {
    writeFileSync(bundle, 'exports.answer = () => "—é".length;\nexports.dependency = "—é";');
    assert.deepEqual(runInNewProcess(bundle, cache), { cacheUsed: false, answer: 2, dependency: '—é' });
  });

  it('runs without a cache when given no directory', () => {
    const loaded = requireWithCodeCache<Bundle>(bundle, undefined);
    loaded.saveCache();
    assert.equal(loaded.cacheUsed, false);
    assert.equal(loaded.exports.answer(), 42);
  });
});

describe('codeCacheDir', () => {
  it('is a directory per user by default, QUIVER_CODE_CACHE when set, none when that is off or empty', () => {
    assert.ok(codeCacheDir({})!.startsWith(join(tmpdir(), 'quiver-code-cache-')));
    assert.equal(codeCacheDir({ QUIVER_CODE_CACHE: '/some/dir' }), '/some/dir');
    assert.equal(codeCacheDir({ QUIVER_CODE_CACHE: 'off' }), undefined);
    assert.equal(codeCacheDir({ QUIVER_CODE_CACHE: '' }), undefined);
  });
});
