/**
 * The harness's command line. Defaults are sized so that the whole default run takes about ten
 * minutes on a 2-core machine (measured: about 6.5 minutes for Quiver and Oxigraph at 1 and 4 clients;
 * Virtuoso, when installed, adds its own load and runs).
 */
import { parseArgs } from 'node:util';

export const ENGINE_NAMES = ['quiver', 'oxigraph', 'virtuoso', 'jena'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface BenchOptions {
  /** explore: BSBM Explore mixes (QMpH); analytic: our analytic shapes (analytic-workload.ts), median ms per shape. */
  workload: 'explore' | 'analytic';
  /** analytic: parameter sets drawn per shape. */
  instances: number;
  /** analytic: measured rounds over all instances, after one warm-up round. */
  repeats: number;
  /**
   * Datasets to run, in order: a path (N-Triples, .gz allowed) or `bsbm:N` (the BSBM generator's data
   * for N products, cached under bench/out/datasets).
   */
  datasets: string[];
  mixes: number;
  warmup: number;
  /** 1: each engine's mixes in one go; N: in N slices, the engines taking turns (run.ts). */
  rounds: number;
  clients: number[];
  engines: EngineName[];
  seed: number;
  /** BSBM's official Explore mix (25 queries, no Q6), or every query once (Q1..Q12). */
  mix: 'official' | 'all';
  /** Keep only these queries of each mix (e.g. to profile one query). Empty: all. */
  queries: string[];
  /** Start the Quiver server under `node --cpu-prof`, profiles written to `profileDir`. */
  profile: boolean;
  /** Per-request limit; a query past it is recorded as an error, not waited for. */
  timeoutMs: number;
  /** Report base name: bench/out/NAME.json and .md. */
  out: string;
  outDir: string;
  help: boolean;
}

export const DEFAULTS = {
  dataset: '../shared/bench/bsbm/bsbm-1000.nt.gz',
  mixes: 2000,
  warmup: 100,
  clients: '1,4',
  engines: 'quiver,oxigraph,virtuoso,jena',
  seed: '808080',
  mix: 'official',
  timeout: '60',
  outDir: 'bench/out',
};

export const HELP = `Usage: npm run bench -- [options]

Runs the BSBM Explore query mixes over HTTP against each engine, 1 and more concurrent clients,
and writes a report (bench/out/<name>.md and .json). With --workload analytic: the analytic shapes
of bench/analytic-workload.ts instead, one client, median ms per shape and engine.

Options:
  --workload W         explore (default) or analytic
  --instances N        analytic: parameter sets drawn from the data per shape (default 3)
  --repeats N          analytic: measured rounds over all instances after a warm-up round (default 3)
  --mixes N            measured query mixes per engine and client count (default ${DEFAULTS.mixes})
  --warmup N           warm-up mixes before each measured run, with its number of clients (default ${DEFAULTS.warmup})
  --rounds N           1 (default): one engine after another; N: all engines up at once, taking turns
                       on N slices of the measured mixes, so that a slow spell of a shared machine
                       falls on every engine alike
  --clients LIST       concurrent clients, comma-separated (default ${DEFAULTS.clients})
  --engines LIST       quiver, oxigraph, virtuoso, jena (default ${DEFAULTS.engines}; absent ones are skipped)
  --dataset PATH       BSBM N-Triples file, .gz allowed, or bsbm:N for N products from the BSBM
                       generator (Java; default ${DEFAULTS.dataset})
  --products LIST      instead of --dataset: BSBM sizes in products, e.g. 1000,10000; 1000 is the shared
                       BSBM file above, other sizes come from the BSBM generator (cached in
                       ${DEFAULTS.outDir}/datasets);
                       with several sizes the report adds each engine's QMpH drop from the smallest
  --seed N             parameter seed for the mixes (default ${DEFAULTS.seed})
  --mix official|all   BSBM's official Explore mix, or Q1..Q12 once each (default ${DEFAULTS.mix})
  --queries LIST       only these queries of each mix, e.g. q05,q07
  --timeout S          per-request time limit in seconds (default ${DEFAULTS.timeout})
  --profile            run the Quiver server under node --cpu-prof (profiles in ${DEFAULTS.outDir}/profiles)
  --out NAME           report name (default bsbm-<date>)
  --help               this text
`;

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      dataset: { type: 'string' },
      workload: { type: 'string', default: 'explore' },
      instances: { type: 'string', default: '3' },
      repeats: { type: 'string', default: '3' },
      products: { type: 'string' },
      mixes: { type: 'string', default: String(DEFAULTS.mixes) },
      warmup: { type: 'string', default: String(DEFAULTS.warmup) },
      rounds: { type: 'string', default: '1' },
      clients: { type: 'string', default: DEFAULTS.clients },
      engines: { type: 'string', default: DEFAULTS.engines },
      seed: { type: 'string', default: DEFAULTS.seed },
      mix: { type: 'string', default: DEFAULTS.mix },
      queries: { type: 'string', default: '' },
      timeout: { type: 'string', default: DEFAULTS.timeout },
      profile: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const mix = values.mix;
  if (mix !== 'official' && mix !== 'all') throw new Error(`--mix must be official or all, not '${mix}'`);
  const workload = values.workload;
  if (workload !== 'explore' && workload !== 'analytic') throw new Error(`--workload must be explore or analytic, not '${workload}'`);
  return {
    workload,
    instances: integer('--instances', values.instances!, 1),
    repeats: integer('--repeats', values.repeats!, 1),
    datasets: datasetSpecs(values.dataset, values.products),
    mixes: integer('--mixes', values.mixes!, 1),
    warmup: integer('--warmup', values.warmup!, 0),
    rounds: integer('--rounds', values.rounds!, 1),
    clients: list(values.clients!).map((c) => integer('--clients', c, 1)),
    engines: list(values.engines!).map(engineName),
    seed: integer('--seed', values.seed!, 0),
    mix,
    queries: list(values.queries!).map(queryName),
    timeoutMs: integer('--timeout', values.timeout!, 1) * 1000,
    profile: values.profile!,
    out: values.out ?? `${workload === 'analytic' ? 'analytic' : 'bsbm'}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}`,
    outDir: DEFAULTS.outDir,
    help: values.help!,
  };
}

function datasetSpecs(dataset: string | undefined, products: string | undefined): string[] {
  if (dataset !== undefined && products !== undefined) throw new Error('give --dataset or --products, not both');
  if (products === undefined) return [dataset ?? DEFAULTS.dataset];
  return list(products).map((p) => {
    const n = integer('--products', p, 10);
    return n === 1000 ? DEFAULTS.dataset : `bsbm:${n}`;
  });
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function integer(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`${flag} must be an integer >= ${min}, not '${text}'`);
  return n;
}

function engineName(text: string): EngineName {
  if (!(ENGINE_NAMES as readonly string[]).includes(text)) throw new Error(`unknown engine '${text}' (known: ${ENGINE_NAMES.join(', ')})`);
  return text as EngineName;
}

/** q5, Q05 and 5 all name q05. */
function queryName(text: string): string {
  const n = Number(text.replace(/^q/i, ''));
  if (!Number.isInteger(n) || n < 1 || n > 12) throw new Error(`--queries: '${text}' is not one of q01..q12`);
  return 'q' + String(n).padStart(2, '0');
}
