/**
 * `quiver dump`: streams the whole store, or one graph, as RDF to standard output or a file.
 * It reads one snapshot, so a dump taken while a server writes is consistent, and it waits for the
 * output to drain between batches, so memory stays flat whatever the store's size.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { rdfFormatForFileName } from '../formats/index.js';
import { createQuadsSerializer } from '../formats/index.js';
import type { ParseableRdfFormat, RdfFormat, TextSink } from '../formats/index.js';
import { PARSEABLE_RDF_FORMATS } from '../formats/index.js';
import { defaultGraph, factory, namedNode, type Quad, type Term } from '../rdf/index.js';
import { openStore } from '../store/index.js';
import { ANY, DEFAULT_GRAPH_ID, type QuadStore, type StoreReader, type TermId } from '../store/index.js';
import { helpText, oneOf, parseOptions, stringOption, UsageError, type OptionSpec } from './options.js';

/** Every RDF format the store reads back, N-Quads (the default) first. */
export const DUMP_FORMATS: readonly ParseableRdfFormat[] = ['nquads', ...PARSEABLE_RDF_FORMATS.filter((f) => f !== 'nquads')];
/** The formats that carry named graphs; the others hold one graph. */
const QUAD_DUMP_FORMATS: readonly DumpFormat[] = ['nquads', 'trig', 'jsonld'];
export type DumpFormat = ParseableRdfFormat;

export const DUMP_OPTIONS: OptionSpec[] = [
  { name: 'store', type: 'string', value: 'DIR', default: './data', description: 'store directory' },
  { name: 'graph', type: 'string', value: 'IRI', description: "dump one graph only ('default' for the default graph)", noEnv: true },
  { name: 'format', type: 'string', value: 'F', description: `${DUMP_FORMATS.join(', ')} (default: from --output, else nquads)`, noEnv: true },
  { name: 'output', type: 'string', value: 'FILE', description: 'write to FILE instead of standard output', noEnv: true },
  { name: 'help', type: 'boolean', description: 'show this help', noEnv: true },
];

export const DUMP_HELP = helpText(
  `Usage: quiver dump [--store DIR] [--graph IRI] [--format ${DUMP_FORMATS.join('|')}] [--output FILE]`,
  'Writes the store (or one graph) as RDF. Triple formats (turtle, ntriples, rdfxml) hold one graph: without --graph they write the default graph.',
  DUMP_OPTIONS,
);

const BATCH = 8192;

export interface DumpOptions {
  format: DumpFormat;
  /** An IRI, 'default', or undefined for the whole store (the default graph for triple formats). */
  graph?: string;
}

export async function dumpCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseOptions(DUMP_OPTIONS, args, env);
  if (values['help']) {
    process.stdout.write(DUMP_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`dump takes no arguments, got: ${positionals.join(' ')}`);
  const output = stringOption(values, 'output');
  const format = dumpFormatOf(stringOption(values, 'format'), output);
  const graph = stringOption(values, 'graph');
  const store = openStore({ path: stringOption(values, 'store'), readOnly: true });
  const target: Writable = output === undefined ? process.stdout : createWriteStream(output);
  // `quiver dump | head`: the reader has all it wants; stop without an error.
  if (target === process.stdout) process.stdout.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? process.exit(0) : undefined));
  try {
    const skipped = await dumpStore(store, { format, graph }, target);
    if (skipped > 0) process.stderr.write(`note: ${format} holds one graph; ${skipped} named graphs were not written (use nquads or trig, or --graph)\n`);
  } finally {
    await store.close();
    if (target !== process.stdout) {
      target.end();
      await once(target, 'close');
    }
  }
  return 0;
}

function dumpFormatOf(name: string | undefined, output: string | undefined): DumpFormat {
  const chosen = name ?? (output ? rdfFormatForFileName(output)?.format : undefined) ?? 'nquads';
  return oneOf('format', chosen, DUMP_FORMATS);
}

/**
 * Writes the store (or the chosen graph) to `target`; resolves once everything is handed over.
 * Returns how many named graphs a triple format left out.
 */
export async function dumpStore(store: QuadStore, options: DumpOptions, target: Writable): Promise<number> {
  const reader = store.reader();
  try {
    const sink = new DrainingSink(target);
    const serializer = createQuadsSerializer(options.format as RdfFormat, sink);
    const withGraphs = QUAD_DUMP_FORMATS.includes(options.format);
    serializer.begin({});
    const graphs = graphsToDump(reader, options.graph, withGraphs);
    const terms = new TermCache(reader);
    for (const g of graphs) {
      const graphTerm = withGraphs && g !== DEFAULT_GRAPH_ID ? (terms.term(g) as Quad['graph']) : defaultGraph();
      let batch: Quad[] = [];
      for (const [s, p, o] of reader.scan(ANY, ANY, ANY, g)) {
        batch.push(factory.quad(terms.term(s) as Quad['subject'], terms.term(p) as Quad['predicate'], terms.term(o) as Quad['object'], graphTerm));
        if (batch.length === BATCH) {
          serializer.quads(batch);
          batch = [];
          await sink.drained();
        }
      }
      serializer.quads(batch);
      await sink.drained();
    }
    serializer.end();
    await sink.drained();
    const named = reader.namedGraphs().filter((g) => reader.count(ANY, ANY, ANY, g) > 0);
    return options.graph === undefined && !withGraphs ? named.length : 0;
  } finally {
    reader.release();
  }
}

function graphsToDump(reader: StoreReader, graph: string | undefined, withGraphs: boolean): TermId[] {
  if (graph === 'default') return [DEFAULT_GRAPH_ID];
  if (graph !== undefined) {
    const id = reader.idOf(namedNode(graph));
    if (id === undefined || !reader.hasNamedGraph(id)) throw new UsageError(`the store has no graph <${graph}>`);
    return [id];
  }
  return withGraphs ? [DEFAULT_GRAPH_ID, ...reader.namedGraphs()] : [DEFAULT_GRAPH_ID];
}

/** Terms by ID, for the run of a dump: predicates and classes repeat on every line. */
class TermCache {
  private readonly terms = new Map<TermId, Term>();
  constructor(private readonly reader: StoreReader) {}

  term(id: TermId): Term {
    let term = this.terms.get(id);
    if (term === undefined) {
      term = this.reader.termOf(id);
      if (this.terms.size > 100_000) this.terms.clear();
      this.terms.set(id, term);
    }
    return term;
  }
}

/** A TextSink on a stream that remembers when the stream asked the writer to wait. */
class DrainingSink implements TextSink {
  private full = false;
  constructor(private readonly target: Writable) {}

  write(chunk: string): void {
    if (!this.target.write(chunk)) this.full = true;
  }

  async drained(): Promise<void> {
    if (!this.full) return;
    this.full = false;
    await once(this.target, 'drain');
  }
}
