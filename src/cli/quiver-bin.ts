#!/usr/bin/env node
/**
 * The package's bin, `quiver`, as scripts/build-cli.mjs bundles it: one CommonJS file,
 * dist/src/cli/quiver.cjs. CommonJS because a one-shot `quiver query` is mostly start-up
 * (bench/cli-startup.ts): Node's ES module loader and the module facades of the built-ins it
 * imports cost some 60 ms before the first line runs, a CommonJS entry nothing. `query` and
 * `update` run from their own CommonJS bundle beside it (quiver-run.cjs) through V8's code cache
 * (code-cache.ts); `serve`, `load` and `dump` import the compiled modules beside it, which start
 * worker threads from files found next to their own.
 */
import { join } from 'node:path';
import { codeCacheDir, requireWithCodeCache } from './code-cache.js';
import { runQuiver, type Command, type CommandTable } from './dispatch.js';
import { presetLibcForNativeModules } from './libc-family.js';

// The bundle's own place (CommonJS gives __dirname; the bundle is what runs, never this module).
declare const __dirname: string;

const COMMANDS: CommandTable = {
  serve: async () => (await import('./serve-command.js')).serve,
  query: async () => cachedCommand('queryCommand'),
  update: async () => cachedCommand('updateCommand'),
  load: async () => (await import('./load-command.js')).loadCommand,
  dump: async () => (await import('./dump-command.js')).dumpCommand,
};

function cachedCommand(name: 'queryCommand' | 'updateCommand'): Command {
  // lmdb loads msgpackr, which loads its native string extractor (msgpackr-extract, found by
  // node-gyp-build) unless told not to: some 10 ms of a one-shot command, for a codec whose strings
  // the store never decodes (its databases are all binary-encoded). A user's own setting stands.
  process.env['MSGPACKR_NATIVE_ACCELERATION_DISABLED'] ??= 'true';
  // And lmdb's own native module is found without detect-libc (libc-family.ts says why).
  presetLibcForNativeModules();
  const loaded = requireWithCodeCache<typeof import('./run-commands.js')>(join(__dirname, 'quiver-run.cjs'), codeCacheDir(process.env));
  return async (args, env) => {
    const code = await loaded.exports[name](args, env);
    // Only a run that did the work leaves the cache: one written by --help would hold little else
    // than the top level, and later runs, taking it, would not write a better one.
    if (code === 0 && !args.includes('--help')) loaded.saveCache();
    return code;
  };
}

void runQuiver(process.argv.slice(2), COMMANDS, join(__dirname, '..', '..', '..', 'package.json')).then((code) => {
  process.exitCode = code;
});
