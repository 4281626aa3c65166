#!/usr/bin/env node
/**
 * The `quiver` command run from its compiled modules (`node dist/src/cli/main.js`), each loaded
 * when its subcommand runs. The package's bin is quiver-bin.ts, bundled: the same commands, with
 * `query` and `update` from a code-cached bundle.
 */
import { fileURLToPath } from 'node:url';
import { runQuiver, type CommandTable } from './dispatch.js';

const COMMANDS: CommandTable = {
  serve: async () => (await import('./serve-command.js')).serve,
  query: async () => (await import('./run-commands.js')).queryCommand,
  update: async () => (await import('./run-commands.js')).updateCommand,
  load: async () => (await import('./load-command.js')).loadCommand,
  dump: async () => (await import('./dump-command.js')).dumpCommand,
};

runQuiver(process.argv.slice(2), COMMANDS, fileURLToPath(new URL('../../../package.json', import.meta.url))).then((code) => {
  process.exitCode = code;
});
