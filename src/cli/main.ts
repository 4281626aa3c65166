#!/usr/bin/env node
/**
 * The `quiver` command: a subcommand per job. Exit codes: 0 done, 1 the request failed, 2 the
 * command line was wrong.
 */
import { QuiverError } from '../errors.js';
import { UsageError } from './options.js';
import { queryCommand, updateCommand } from './run-commands.js';
import { serve } from './serve-command.js';
import { loadCommand } from './load-command.js';
import { dumpCommand } from './dump-command.js';

const USAGE = `Usage: quiver <command> [options]

Commands:
  serve     run the SPARQL HTTP service            (quiver serve --help)
  query     run one query against a store          (quiver query --help)
  update    run one update against a store         (quiver update --help)
  load      load RDF files into a store            (quiver load --help)
  dump      write a store's contents as RDF        (quiver dump --help)

Every serve option also reads an environment variable: --port → QUIVER_PORT, --store → QUIVER_STORE, ...
`;

type Command = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve,
  query: queryCommand,
  update: updateCommand,
  load: loadCommand,
  dump: dumpCommand,
};

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
