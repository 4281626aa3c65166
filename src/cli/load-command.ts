/**
 * `quiver load FILE...`: bulk-loads RDF files into a store directory, each file as one
 * all-or-nothing transaction (see load/file-loader.ts). A file that fails leaves nothing behind;
 * the next files are still loaded, and the exit code says that one failed.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { rdfFormatForFileName } from '../formats/index.js';
import { parseableRdfFormat, PARSEABLE_RDF_FORMATS } from '../formats/index.js';
import type { ParseableRdfFormat } from '../formats/index.js';
import { openStore } from '../store/index.js';
import { termKey, namedNode } from '../rdf/index.js';
import { loadFile, LoadSyntaxError, type LoadSource } from '../loader/index.js';
import { ProgressReporter, formatCount, type ProgressOutput } from './load-progress.js';
import { helpText, parseOptions, stringOption, UsageError, type OptionSpec } from './options.js';

export const LOAD_OPTIONS: OptionSpec[] = [
  { name: 'store', type: 'string', value: 'DIR', default: './data', description: 'store directory (created when missing)' },
  { name: 'graph', type: 'string', value: 'IRI', description: 'load default-graph statements into this named graph', noEnv: true },
  { name: 'format', type: 'string', value: 'F', description: `${PARSEABLE_RDF_FORMATS.join(', ')} or a media type (default: from the file name)`, noEnv: true },
  { name: 'base', type: 'string', value: 'IRI', description: 'base IRI for relative IRIs (default: the file URL)', noEnv: true },
  { name: 'gzip', type: 'boolean', description: 'standard input is gzip-compressed (files are recognized)', noEnv: true },
  {
    name: 'lenient',
    type: 'boolean',
    description:
      'skip and count bad statements instead of rejecting the file. N-Triples, N-Quads: each bad line. Turtle, TriG: each bad ' +
      'top-level statement (a TriG graph block counts as one). RDF/XML, JSON-LD: their parsers cannot resume, so what was ' +
      'read before the error is kept and the rest of the file counts as one skip',
    noEnv: true,
  },
  { name: 'quiet', type: 'boolean', description: 'no progress output', noEnv: true },
  { name: 'help', type: 'boolean', description: 'show this help', noEnv: true },
];

export const LOAD_HELP = helpText(
  'Usage: quiver load [--store DIR] [--graph IRI] [--format F] [--lenient] FILE... (- for standard input)',
  'Loads RDF files (gzip-compressed or not) into the store. Each file is one transaction: bad data names the file, line and column, and leaves nothing of that file in the store. ' +
    'A running server may have the store open: its writes then wait while a file loads. A load into a store that nothing else has open takes the store to itself (other opens are refused until it ends) and goes in stages of bounded memory; if it fails or is killed, it is undone (at the next open after a kill).',
  LOAD_OPTIONS,
);

export async function loadCommand(args: string[], env: NodeJS.ProcessEnv, out: ProgressOutput = process.stderr): Promise<number> {
  const { values, positionals } = parseOptions(LOAD_OPTIONS, args, env);
  if (values['help']) {
    process.stdout.write(LOAD_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name at least one file to load (or - for standard input)');
  const formatName = stringOption(values, 'format');
  const format = formatName === undefined ? undefined : parseableRdfFormat(formatName);
  if (formatName !== undefined && format === undefined) throw new UsageError(`unknown format '${formatName}'; known: ${PARSEABLE_RDF_FORMATS.join(', ')}`);
  const sources = positionals.map((path) => sourceOf(path, format, values['gzip'] === true));
  const graph = stringOption(values, 'graph');
  const graphKey = graph === undefined ? undefined : termKey(namedNode(checkedIri(graph)));
  const store = openStore({ path: stringOption(values, 'store') });
  let failures = 0;
  try {
    for (const source of sources) {
      if (!(await loadOne(store, source, { graphKey, values, out, env }))) failures++;
    }
  } finally {
    await store.close();
  }
  return failures > 0 ? 1 : 0;
}

interface LoadContext {
  graphKey?: string;
  values: Record<string, string | boolean | undefined>;
  out: ProgressOutput;
  env: NodeJS.ProcessEnv;
}

async function loadOne(store: ReturnType<typeof openStore>, source: LoadSource, context: LoadContext): Promise<boolean> {
  const quiet = context.values['quiet'] === true;
  const label = source.path === '-' ? '<stdin>' : source.path;
  const interval = Number(context.env['QUIVER_PROGRESS_INTERVAL_MS']) || undefined;
  // Statements per transaction of a load into an empty store (tests lower it to get many stages).
  const stageStatements = Number(context.env['QUIVER_LOAD_STAGE_STATEMENTS']) || undefined;
  const reporter = new ProgressReporter(context.out, label, source.path === '-' ? undefined : statSync(source.path).size, Date.now, interval);
  const started = Date.now();
  try {
    const result = await loadFile(store, source, {
      graphKey: context.graphKey,
      baseIri: stringOption(context.values, 'base') ?? baseIriOf(source.path),
      lenient: context.values['lenient'] === true,
      stageStatements,
      onProgress: quiet ? undefined : (progress) => reporter.update(progress),
      onSkipped: (message) => {
        reporter.clear();
        context.out.write(`${label}: skipped: ${message}\n`);
      },
      onSharedStore: (pids) => {
        if (quiet) return;
        reporter.clear();
        const who = pids.length === 1 ? `process ${pids[0]}` : `processes ${pids.join(', ')}`;
        context.out.write(`${label}: the store is open in ${who} too: loading in one transaction (writes there wait until it ends)\n`);
      },
    });
    const seconds = (Date.now() - started) / 1000;
    const skipped = result.skipped > 0 ? `, ${formatCount(result.skipped)} bad statements skipped` : '';
    const summary = `${label}: ${formatCount(result.statements)} statements (${formatCount(result.added)} new) in ${seconds.toFixed(1)} s, ${formatCount(Math.round(result.statements / Math.max(seconds, 1e-3)))} statements/s${skipped}`;
    if (quiet) return true;
    reporter.finish(summary);
    return true;
  } catch (error) {
    reporter.clear();
    const message = error instanceof LoadSyntaxError ? error.message : `${label}: ${(error as Error).message}`;
    context.out.write(`${message}\nnothing of ${label} was loaded\n`);
    return false;
  }
}

function sourceOf(path: string, format: ParseableRdfFormat | undefined, gzipFlag: boolean): LoadSource {
  if (path === '-') {
    if (format === undefined) throw new UsageError('reading standard input needs --format');
    return { path, format, gzip: gzipFlag };
  }
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new UsageError(`cannot read ${path}`);
  }
  const byName = rdfFormatForFileName(path);
  const chosen = format ?? byName?.format;
  if (chosen === undefined) throw new UsageError(`cannot tell the format of ${path} from its name; use --format`);
  return { path, format: chosen, gzip: byName?.gzip === true || (size >= 2 && startsWithGzipMagic(path)) };
}

function startsWithGzipMagic(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    readSync(fd, head, 0, 2, 0);
    return head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

function baseIriOf(path: string): string | undefined {
  if (path === '-') return undefined;
  return new URL(path, `file://${process.cwd()}/`).href;
}

function checkedIri(iri: string): string {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/.test(iri)) throw new UsageError(`--graph needs an absolute IRI, not '${iri}'`);
  return iri;
}
