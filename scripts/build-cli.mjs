#!/usr/bin/env node
/* global URL, console */
// Bundles the `quiver` command (the package's bin) into dist/src/cli/quiver.cjs, after tsc: loading
// one file instead of some four hundred modules is most of what a one-shot `quiver query` costs
// (bench/cli-startup.ts), and a CommonJS entry skips Node's ES module loader (src/cli/quiver-bin.ts
// says why). The serve, load and dump commands stay the compiled modules beside it: they start
// worker threads from files found next to their own, so they are not bundled. The query and update
// commands are bundled a second time, alone, as CommonJS (dist/src/cli/quiver-run.cjs): the bin runs
// them from that file through V8's code cache (src/cli/code-cache.ts), which Node 20 offers for
// scripts only. Run by `npm run build` and `npm run prepare`.
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cli = fileURLToPath(new URL('../dist/src/cli/', import.meta.url));
const UNBUNDLED = /^\.\/(serve-command|load-command|dump-command)\.js$/;

// What earlier builds wrote: the bin as an ES module bundle with its chunks.
rmSync(join(cli, 'quiver-chunks'), { recursive: true, force: true });
rmSync(join(cli, 'quiver.js'), { force: true });
await build({
  entryPoints: [join(cli, 'quiver-bin.js')],
  outfile: join(cli, 'quiver.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // undici (the HTTP client of LOAD, SERVICE and remote mode) loads from node_modules, on demand:
  // too large to read on every start.
  external: ['undici'],
  logLevel: 'warning',
  plugins: [
    {
      name: 'unbundled-commands',
      setup(builder) {
        // Left as import() of the ES modules beside the bin.
        builder.onResolve({ filter: UNBUNDLED }, (args) => ({ path: args.path, external: true }));
      },
    },
  ],
});
chmodSync(join(cli, 'quiver.cjs'), 0o755);
await build({
  entryPoints: [join(cli, 'run-commands.js')],
  outfile: join(cli, 'quiver-run.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // lmdb's JavaScript (with msgpackr and its other helpers) is bundled too, so that it comes through
  // the code cache instead of being found and compiled file by file (some 10 ms of a `quiver query`);
  // its native module is still loaded from node_modules (see lmdbFindsItsNativeModule).
  external: ['undici', 'msgpackr-extract', 'bun:ffi'],
  plugins: [lmdbFindsItsNativeModule()],
  // That plugin's require.resolve('lmdb') is meant: it finds the installed package, not the bundled copy.
  logOverride: { 'require-resolve-not-external': 'silent' },
  // What it loads on demand (undici, node:dns) as require() in a promise: vm.Script, which runs
  // it (src/cli/code-cache.ts), has no import() in Node 20 without an experimental flag.
  supported: { 'dynamic-import': false },
  // Read whole at each run: without comments and blanks it is a third smaller and ASCII only (a
  // comment's "—" would make V8 hold all of it as two-byte text). Names stay, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
/**
 * lmdb finds its native module from the directory of its own file (`__filename`), which in a bundle
 * is the bundle's (its ES build reads `import.meta.url`, which a CommonJS bundle lacks: the
 * CommonJS build is taken). This points it at the installed package instead, resolved as
 * `require('lmdb')` would resolve it from the bundle's place. The build fails if lmdb's code no
 * longer has the line.
 */
function lmdbFindsItsNativeModule() {
  const OWN_DIRECTORY = /^let dirName = .*__filename.*$/m;
  return {
    name: 'lmdb-native-module',
    setup(builder) {
      // The CommonJS build, whichever way our modules import it (esbuild would take the ES one).
      builder.onResolve({ filter: /^lmdb$/ }, () => ({ path: createRequire(import.meta.url).resolve('lmdb') }));
      builder.onLoad({ filter: /[\\/]lmdb[\\/]dist[\\/]index\.cjs$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!OWN_DIRECTORY.test(source)) throw new Error(`${args.path}: lmdb no longer sets dirName from __filename; update scripts/build-cli.mjs`);
        const patched = source.replace(OWN_DIRECTORY, "let dirName = pathModule.dirname(require.resolve('lmdb')).replace(/dist$/, '');");
        return { contents: patched, loader: 'js' };
      });
    },
  };
}

console.log('bundled the quiver command into dist/src/cli/quiver.cjs (query and update: quiver-run.cjs)');
