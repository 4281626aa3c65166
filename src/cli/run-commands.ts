/**
 * `quiver query` and `quiver update`: one request against a store directory, run on this thread
 * with the engine itself. A one-shot command gains nothing from the service's worker and writer
 * threads, and starting them cost seconds (bench/cli-startup.ts); LMDB's locks keep a direct
 * handle safe next to a running server. Results go to stdout through the same serializers the
 * HTTP layer uses.
 */
import type { UpdateSummary } from '../engine/index.js';
// fs.promises, not node:fs/promises: the bundle loads it only for @FILE (bench/cli-startup.ts).
import { promises as fs } from 'node:fs';
import { once } from 'node:events';
import { runQuery, runUpdate } from '../engine/index.js';
import { explainQuery } from '../engine/index.js';
import type { EngineQueryResult } from '../engine/index.js';
import { StoreOpenError } from '../errors.js';
import { openStore, storeExists } from '../store/index.js';
import type { QuadStore } from '../store/index.js';
import { formatForOutputName, defaultFormatFor, outputNamesFor, queryKindOf, RDF_FORMATS, RESULTS_FORMATS, type FormatInfo } from '../formats/index.js';
import { createQuadsSerializer, createSolutionsSerializer } from '../formats/index.js';
import type { TextSink } from '../formats/index.js';
import { helpText, parseOptions, positiveNumber, stringOption, UsageError, type OptionSpec } from './options.js';

const STORE_OPTION: OptionSpec = { name: 'store', type: 'string', value: 'DIR', default: './data', description: 'store directory' };
const TIMEOUT_OPTION: OptionSpec = { name: 'timeout', type: 'string', value: 'S', description: 'time limit in seconds' };
const UNION_OPTION: OptionSpec = {
  name: 'union-default-graph',
  type: 'boolean',
  description: "the default graph of the query (an update's WHERE) is the union of all graphs, as quiver serve --union-default-graph",
};
const HELP_OPTION: OptionSpec = { name: 'help', type: 'boolean', description: 'show this help', noEnv: true };

/** The names of the formats a command writes to a terminal or file (HTML is for browsers). */
function formatNames(formats: readonly FormatInfo[]): string {
  return formats
    .filter((f) => f.format !== 'html')
    .map((f) => f.outputNames[0])
    .join(', ');
}

export const QUERY_OPTIONS: OptionSpec[] = [
  STORE_OPTION,
  {
    name: 'format',
    type: 'string',
    value: 'F',
    description: `${formatNames(RESULTS_FORMATS)} (SELECT/ASK; default json); ${formatNames(RDF_FORMATS)} (CONSTRUCT/DESCRIBE; default turtle)`,
    noEnv: true,
  },
  TIMEOUT_OPTION,
  UNION_OPTION,
  {
    name: 'explain',
    type: 'boolean',
    description: 'run the query to its end and print its plan (JSON: each operator with estimated and actual rows and time) instead of its answer',
    noEnv: true,
  },
  HELP_OPTION,
];
export const UPDATE_OPTIONS: OptionSpec[] = [STORE_OPTION, TIMEOUT_OPTION, UNION_OPTION, HELP_OPTION];

export const QUERY_HELP = helpText(
  'Usage: quiver query [--store DIR] [--format F] [--explain] QUERY|-',
  'Runs a SPARQL query against an existing store and writes the result to stdout ("-" reads the query from stdin; "@FILE" reads it from a file).',
  QUERY_OPTIONS,
);
export const UPDATE_HELP = helpText(
  'Usage: quiver update [--store DIR] UPDATE|-',
  'Runs a SPARQL update against the store (created when missing) as one transaction ("-" reads it from stdin; "@FILE" from a file).',
  UPDATE_OPTIONS,
);

export async function queryCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseOptions(QUERY_OPTIONS, args, env);
  if (values['help']) {
    process.stdout.write(QUERY_HELP);
    return 0;
  }
  const query = await requestText(positionals, 'query');
  const format = stringOption(values, 'format');
  const path = stringOption(values, 'store') ?? './data';
  // A query reads a store: a path that holds none is a mistake, not a new empty store.
  if (!storeExists(path)) throw new StoreOpenError(`no Quiver store at ${path}`);
  const store = openStoreAt(path, true);
  try {
    const options = { deadline: deadlineOf(positiveNumber(values, 'timeout')), unionDefaultGraph: values['union-default-graph'] === true };
    if (values['explain'] === true) {
      process.stdout.write(JSON.stringify(await explainQuery(store, query, options), null, 2) + '\n');
    } else {
      await writeResult(await runQuery(store, query, options), format);
    }
  } finally {
    await store.close();
  }
  return 0;
}

export async function updateCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseOptions(UPDATE_OPTIONS, args, env);
  if (values['help']) {
    process.stdout.write(UPDATE_HELP);
    return 0;
  }
  const update = await requestText(positionals, 'update');
  const store = openStoreAt(stringOption(values, 'store') ?? './data', false);
  try {
    const summary = await runUpdate(store, update, {
      deadline: deadlineOf(positiveNumber(values, 'timeout')),
      unionDefaultGraph: values['union-default-graph'] === true,
    });
    process.stdout.write(summaryText(summary));
  } finally {
    await store.close();
  }
  return 0;
}

/** The store, as a StoreOpenError when it cannot be opened (a lock, a file that is no store). */
function openStoreAt(path: string, readOnly: boolean): QuadStore {
  try {
    return openStore({ path, readOnly });
  } catch (error) {
    throw new StoreOpenError(`cannot open the store at ${path}: ${(error as Error).message}`);
  }
}

/** No time limit unless one is asked for: whoever runs a command can stop it. */
function deadlineOf(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Date.now() + seconds * 1000;
}

async function requestText(positionals: string[], what: string): Promise<string> {
  if (positionals.length !== 1) throw new UsageError(`expected exactly one ${what} (or - to read it from stdin)`);
  const argument = positionals[0]!;
  if (argument === '-') return readStdin();
  if (argument.startsWith('@')) return fs.readFile(argument.slice(1), 'utf8');
  return argument;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Streams a result to stdout, waiting for 'drain' whenever stdout's buffer is full. */
async function writeResult(result: EngineQueryResult, formatName: string | undefined): Promise<void> {
  const kind = queryKindOf(result.kind);
  const format = formatName === undefined ? defaultFormatFor(kind) : formatForOutputName(formatName, kind);
  if (!format) {
    throw new UsageError(`--format ${formatName} does not fit this query; possible: ${outputNamesFor(kind).join(', ')}`);
  }
  let pending = false;
  const sink: TextSink = {
    write(chunk: string) {
      if (!process.stdout.write(chunk)) pending = true;
    },
  };
  const drained = async (): Promise<void> => {
    if (pending) {
      pending = false;
      await once(process.stdout, 'drain');
    }
  };
  if (result.kind === 'boolean') {
    createSolutionsSerializer(format.format as never, sink).boolean(result.value);
  } else if (result.kind === 'bindings') {
    const serializer = createSolutionsSerializer(format.format as never, sink);
    serializer.begin(result.variables);
    for (const batch of result.rows) {
      serializer.rows(batch);
      await drained();
    }
    serializer.end();
  } else {
    const serializer = createQuadsSerializer(format.format as never, sink);
    serializer.begin(result.prefixes);
    for (const batch of result.quads) {
      serializer.quads(batch);
      await drained();
    }
    serializer.end();
  }
  await drained();
}

/** What `quiver update` prints: the totals, then a line per graph that changed. */
export function summaryText(summary: UpdateSummary): string {
  const lines = [`inserted ${summary.inserted}, deleted ${summary.deleted}`];
  for (const g of summary.graphs) {
    lines.push(`  ${g.graph === null ? 'default graph' : `<${g.graph}>`}: inserted ${g.inserted}, deleted ${g.deleted}`);
  }
  return lines.join('\n') + '\n';
}
