/**
 * BSBM Explore in process: the same query mixes through Quiver's library API (`openQuiver`, on a
 * store directory) and through the npm `oxigraph` Store (in memory), one after the other in this
 * one process and run, every answer pulled to the end as RDF/JS terms, and the answers
 * cross-checked (answer-check.ts). No HTTP, no serialization: what a program that embeds either
 * store gets. Prints mixes per hour (QMpH) per engine and round, and the resident memory each adds
 * to the process once its store is open (Quiver: opened and run once; Oxigraph: loaded).
 *
 *   npm run build && node dist/bench/library-mix.js --dataset FILE.nt.gz --store DIR
 *       [--mixes 200] [--warmup 20] [--rounds 3] [--seed 1] [--work DIR] [--engines quiver,oxigraph]
 *       [--inline-queries auto|idle|always|off]
 *
 * `--store` is a Quiver store of the dataset; it is loaded with `quiver load` when it holds none.
 * Quiver runs first (its store opened, then closed), Oxigraph second, so the memory each adds is
 * measured on top of a process that holds the other no more.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type * as RDF from '@rdfjs/types';
import { openQuiver, type InlineQueriesMode } from '../src/library/index.js';
import { termToString } from '../src/rdf/terms.js';
import { checkAnswers, type RunSamples } from './answer-check.js';
import { loadQuiverStore } from './dataset-loader.js';
import type { QuerySample } from './http-driver.js';
import { describeMachine } from './machine.js';
import { generateMixes, paramsScriptFor, type QueryInstance, type QueryMix } from './query-mixes.js';

/** What one engine answers: a row count and an order-free digest of the rows. */
type Answer = { rows: number; digest: string };
/** Runs one query instance to the end. */
type Runner = (instance: QueryInstance) => Promise<Answer>;

interface Engine {
  name: string;
  run: Runner;
  /** Resident bytes the open store added to the process. */
  addedRss: number;
  close(): Promise<void>;
}

const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const { values } = parseArgs({
  options: {
    dataset: { type: 'string' },
    store: { type: 'string' },
    mixes: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    work: { type: 'string' },
    engines: { type: 'string', default: 'quiver,oxigraph' },
    'inline-queries': { type: 'string', default: 'auto' },
  },
});
if (!values.dataset || !values.store) {
  console.error(
    'usage: node dist/bench/library-mix.js --dataset FILE.nt.gz --store DIR [--mixes N] [--warmup N] [--rounds N] [--seed N] [--work DIR] [--engines quiver,oxigraph] [--inline-queries auto|idle|always|off]',
  );
  process.exit(2);
}
const dataset = resolve(values.dataset);
const storeDir = resolve(values.store);
const rounds = Number(values.rounds);

function rssMiB(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function load(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

/** Rows as text keyed by variable name (sorted), xsd:string left implicit: the same text from either engine. */
function rowKey(row: Iterable<[string, RDF.Term]>): string {
  return [...row]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, term]) => `${name}=${termToString(term)}`)
    .join('\t');
}

function tripleKey(quad: RDF.Quad): string {
  return `${termToString(quad.subject)} ${termToString(quad.predicate)} ${termToString(quad.object)}`;
}

function digestOf(items: string[]): string {
  const hash = createHash('sha1');
  for (const item of [...items].sort()) hash.update(item).update('\n');
  return hash.digest('hex').slice(0, 16);
}

/** CONSTRUCT and DESCRIBE answers are compared as sets of triples, as over HTTP. */
function quadsAnswer(quads: RDF.Quad[]): Answer {
  const triples = [...new Set(quads.map(tripleKey))];
  return { rows: triples.length, digest: digestOf(triples) };
}

async function openQuiverEngine(): Promise<Engine> {
  if (!existsSync(join(storeDir, 'data.mdb'))) {
    console.log(`loading ${dataset} into ${storeDir} with quiver load ...`);
    const figures = await loadQuiverStore(dataset, storeDir, repoRoot);
    console.log(`  ${figures.triples} triples in ${figures.seconds.toFixed(1)} s`);
  }
  const before = process.memoryUsage.rss();
  const store = await openQuiver({ path: storeDir, create: false, inlineQueries: values['inline-queries'] as InlineQueriesMode });
  const run: Runner = async (instance) => {
    const answer = await store.query(instance.text);
    if (answer.type === 'boolean') return { rows: answer.value ? 1 : 0, digest: String(answer.value) };
    if (answer.type === 'quads') return quadsAnswer(await answer.toArray());
    const rows = await answer.toArray();
    return { rows: rows.length, digest: digestOf(rows.map((row) => rowKey(Object.entries(row)))) };
  };
  return { name: 'quiver', run, addedRss: before, close: () => store.close() };
}

async function openOxigraphEngine(): Promise<Engine> {
  const require = createRequire(import.meta.url);
  const oxigraph = require('oxigraph') as { Store: new () => OxigraphStore };
  const before = process.memoryUsage.rss();
  const started = performance.now();
  const store = new oxigraph.Store();
  const bytes = readFileSync(dataset);
  store.load(dataset.endsWith('.gz') ? gunzipSync(bytes) : bytes, { format: 'application/n-triples', no_transaction: true });
  console.log(`oxigraph: loaded ${dataset} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const run: Runner = async (instance) => {
    const result = store.query(instance.text);
    if (typeof result === 'boolean') return { rows: result ? 1 : 0, digest: String(result) };
    if (instance.form === 'construct' || instance.form === 'describe') return quadsAnswer(result as RDF.Quad[]);
    const rows = result as Map<string, RDF.Term>[];
    return { rows: rows.length, digest: digestOf(rows.map((row) => rowKey(row.entries()))) };
  };
  return { name: 'oxigraph', run, addedRss: before, close: async () => undefined };
}

interface OxigraphStore {
  load(input: Uint8Array, options: { format: string; no_transaction?: boolean }): void;
  query(query: string): boolean | Map<string, RDF.Term>[] | RDF.Quad[] | string;
}

/** Runs the mixes one query at a time; returns the samples and the wall-clock seconds of the whole. */
async function runMixes(engine: Engine, mixes: QueryMix[]): Promise<{ samples: QuerySample[]; seconds: number }> {
  const samples: QuerySample[] = [];
  const started = performance.now();
  for (const mix of mixes) {
    for (const instance of mix.queries) {
      const begun = performance.now();
      try {
        const answer = await engine.run(instance);
        samples.push({ mix: mix.mix, seq: instance.seq, query: instance.query, client: 0, ms: performance.now() - begun, ...answer });
      } catch (error) {
        samples.push({ mix: mix.mix, seq: instance.seq, query: instance.query, client: 0, ms: performance.now() - begun, error: (error as Error).message });
      }
    }
  }
  return { samples, seconds: (performance.now() - started) / 1000 };
}

const work = values.work ? resolve(values.work) : join(tmpdir(), `quiver-library-mix-${process.pid}`);
mkdirSync(work, { recursive: true });
const machine = describeMachine();
console.log(`${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${machine.date}`);
console.log(`load average at start: ${load()}`);
const mixSet = await generateMixes({
  paramsScript: paramsScriptFor(dataset, repoRoot),
  dataset,
  seed: Number(values.seed),
  warmup: Number(values.warmup),
  measured: Number(values.mixes),
  mix: 'official',
  only: [],
  outDir: join(work, 'mixes'),
});
console.log(
  `${mixSet.measured.length} measured mixes (${mixSet.measured.reduce((n, m) => n + m.queries.length, 0)} queries), ${mixSet.warmup.length} warm-up mixes, ${rounds} rounds`,
);

const openers: Record<string, () => Promise<Engine>> = { quiver: openQuiverEngine, oxigraph: openOxigraphEngine };
const runs: RunSamples[] = [];
const summary: string[] = [];
for (const name of values.engines!.split(',')) {
  const opener = openers[name];
  if (!opener) throw new Error(`unknown engine ${name}`);
  const engine = await opener();
  await runMixes(engine, mixSet.warmup);
  const rssBefore = engine.addedRss;
  engine.addedRss = process.memoryUsage.rss() - rssBefore;
  const qmph: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const { samples, seconds } = await runMixes(engine, mixSet.measured);
    qmph.push((mixSet.measured.length / seconds) * 3600);
    console.log(`${name} round ${round}: ${qmph.at(-1)!.toFixed(0)} QMpH (${seconds.toFixed(1)} s; load average ${load()})`);
    if (round === 1) runs.push({ label: name, samples });
  }
  const sorted = [...qmph].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  summary.push(`${name.padEnd(9)} median ${median.toFixed(0).padStart(9)} QMpH   RSS added by the open store (after warm-up): ${rssMiB(engine.addedRss)}`);
  await engine.close();
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

const check = checkAnswers(mixSet.measured, runs);
console.log('');
for (const line of summary) console.log(line);
console.log(
  `answers: ${check.compared} instances compared; ${check.rowCountDisagreements.length} row-count and ${check.contentDisagreements.length} content disagreements; ${check.failures.length} failures`,
);
for (const disagreement of [...check.rowCountDisagreements, ...check.contentDisagreements, ...check.failures].slice(0, 10))
  console.log('  ', JSON.stringify(disagreement));
console.log(`load average at end: ${load()}`);
