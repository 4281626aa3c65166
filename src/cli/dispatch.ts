/**
 * What every way of starting `quiver` shares: the usage text, `--version`, finding the subcommand
 * and turning its failure into a message and an exit code (0 done, 1 the request failed, 2 the
 * command line was wrong). How a subcommand's code is loaded differs: the bin (quiver-bin.ts) runs
 * `query` and `update` from a code-cached bundle, main.ts imports the modules.
 */
import { readFileSync } from 'node:fs';
import { isQuiverError } from '../errors.js';

export const USAGE = `Usage: quiver <command> [options]

Commands:
  serve     run the SPARQL HTTP service            (quiver serve --help)
  query     run one query against a store          (quiver query --help)
  update    run one update against a store         (quiver update --help)
  load      load RDF files into a store            (quiver load --help)
  dump      write a store's contents as RDF        (quiver dump --help)

quiver --version prints the version.
Every serve option also reads an environment variable: --port → QUIVER_PORT, --store → QUIVER_STORE, ...
`;

export type Command = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Each command's code, loaded only when it runs: `quiver query` need not load the HTTP server. */
export type CommandTable = Record<'serve' | 'query' | 'update' | 'load' | 'dump', () => Promise<Command>>;

/** `packageJson`: the package's manifest, read for `--version` only. */
export async function runQuiver(argv: string[], commands: CommandTable, packageJson: string): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`quiver ${versionOf(packageJson)}\n`);
    return 0;
  }
  const loadCommand = Object.hasOwn(commands, name) ? commands[name as keyof CommandTable] : undefined;
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

function versionOf(packageJson: string): string {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}
