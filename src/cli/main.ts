#!/usr/bin/env node
/**
 * The `quiver` command: a subcommand per job. Exit codes: 0 done, 1 the request failed, 2 the
 * command line was wrong.
 */
import { QuiverError } from '../errors.js';
import { UsageError } from './options.js';
import { queryCommand, updateCommand } from './run-commands.js';
import { serve } from './serve-command.js';

const USAGE = `Usage: quiver <command> [options]

Commands:
  serve     run the SPARQL HTTP service            (quiver serve --help)
  query     run one query against a store          (quiver query --help)
  update    run one update against a store         (quiver update --help)
  load      load RDF files into a store            (not yet available)
  dump      write a store's contents as RDF        (not yet available)

Every serve option also reads an environment variable: --port → QUIVER_PORT, --store → QUIVER_STORE, ...
`;

type Command = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve,
  query: queryCommand,
  update: updateCommand,
  load: notYetAvailable('load'),
  dump: notYetAvailable('dump'),
};

function notYetAvailable(name: string): Command {
  return async () => {
    process.stderr.write(`quiver ${name} is not yet available in this version\n`);
    return 2;
  };
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`unknown command '${name}'\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(args, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`quiver ${name}: ${error.message}\n(see quiver ${name} --help)\n`);
      return 2;
    }
    const label = error instanceof QuiverError ? error.name : 'error';
    process.stderr.write(`quiver ${name}: ${label}: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
