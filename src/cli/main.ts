#!/usr/bin/env node
/**
 * The `quiver` command: a subcommand per job. Exit codes: 0 done, 1 the request failed, 2 the
 * command line was wrong.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isQuiverError } from '../errors.js';

const USAGE = `Usage: quiver <command> [options]

Commands:
  serve     run the SPARQL HTTP service            (quiver serve --help)
  query     run one query against a store          (quiver query --help)
  update    run one update against a store         (quiver update --help)
  load      load RDF files into a store            (quiver load --help)
  dump      write a store's contents as RDF        (quiver dump --help)

quiver --version prints the version.
Every serve option also reads an environment variable: --port → QUIVER_PORT, --store → QUIVER_STORE, ...
`;

type Command = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Each command's module is loaded only when it runs: `quiver query` need not load the HTTP server. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve-command.js')).serve,
  query: async () => runCommand('queryCommand'),
  update: async () => runCommand('updateCommand'),
  load: async () => (await import('./load-command.js')).loadCommand,
  dump: async () => (await import('./dump-command.js')).dumpCommand,
};

/**
 * `query` and `update` as the bundled bin (quiver.js) runs them: from their CommonJS bundle beside
 * it (scripts/build-cli.mjs), through V8's code cache, so that a one-shot command does not compile
 * a megabyte of JavaScript each time (code-cache.ts). Run otherwise (dist/src/cli/main.js, or no
 * bundle built), they are the modules themselves.
 */
async function runCommand(name: 'queryCommand' | 'updateCommand'): Promise<Command> {
  const bundle = fileURLToPath(new URL('./quiver-run.cjs', import.meta.url));
  if (!import.meta.url.endsWith('/quiver.js') || !existsSync(bundle)) return (await import('./run-commands.js'))[name];
  const { requireWithCodeCache, codeCacheDir } = await import('./code-cache.js');
  const loaded = requireWithCodeCache<typeof import('./run-commands.js')>(bundle, codeCacheDir(process.env));
  return async (args, env) => {
    const code = await loaded.exports[name](args, env);
    // Only a run that did the work leaves the cache: one written by --help would hold little else
    // than the top level, and later runs, taking it, would not write a better one.
    if (code === 0 && !args.includes('--help')) loaded.saveCache();
    return code;
  };
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`quiver ${version()}\n`);
    return 0;
  }
  const loadCommand = COMMANDS[name];
  if (!loadCommand) {
    process.stderr.write(`unknown command '${name}'\n\n${USAGE}`);
    return 2;
  }
  try {
    const command = await loadCommand();
    return await command(args, process.env);
  } catch (error) {
    // By name and mark, not class: the bundled command and the unbundled ones have each their copy of the classes.
    if (error instanceof Error && error.name === 'UsageError') {
      process.stderr.write(`quiver ${name}: ${error.message}\n(see quiver ${name} --help)\n`);
      return 2;
    }
    const label = isQuiverError(error) ? error.name : 'error';
    process.stderr.write(`quiver ${name}: ${label}: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
