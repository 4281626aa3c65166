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
import { chmodSync, rmSync } from 'node:fs';
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
  external: ['lmdb', 'undici'],
  // What it loads on demand (undici, node:dns) as require() in a promise: vm.Script, which runs
  // it (src/cli/code-cache.ts), has no import() in Node 20 without an experimental flag.
  supported: { 'dynamic-import': false },
  // Read whole at each run: without comments and blanks it is a third smaller and ASCII only (a
  // comment's "—" would make V8 hold all of it as two-byte text). Names stay, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
console.log('bundled the quiver command into dist/src/cli/quiver.cjs (query and update: quiver-run.cjs)');
