/**
 * The BSBM benchmark harness: `npm run bench -- [options]` (see options.ts, or --help).
 *
 * One invocation measures every engine on the same query mixes, one engine at a time so that they
 * never compete for the CPU: load the dataset, start the server, warm up, run the measured mixes
 * with each client count, read the server's peak memory, stop it. Then cross-check the answers and
 * write the report. With `--rounds N` all engines are up at once and take turns on slices of the
 * mixes instead (measureInterleaved).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkAnswers, type RunSamples } from './answer-check.js';
import type { EngineLauncher, LaunchContext, RunningEngine } from './engines/engine.js';
import { launchOxigraph } from './engines/oxigraph.js';
import { launchQuiver } from './engines/quiver.js';
import { launchVirtuoso } from './engines/virtuoso.js';
import { launchJena } from './engines/jena.js';
import { crossCheck } from './analytic-check.js';
import { drawParams, sampleDataset } from './analytic-params.js';
import {
  consoleAnalyticSummary,
  currentLoadAverage,
  writeAnalyticReports,
  type AnalyticDisagreement,
  type AnalyticEngineReport,
  type AnalyticReport,
} from './analytic-report.js';
import { analyticInstances, runAnalytic, type AnalyticInstance } from './analytic-run.js';
import { ANALYTIC_SHAPES } from './analytic-workload.js';
import { runMixes, type DriverRun } from './http-driver.js';
import { bsbmDataset } from './bsbm-generator.js';
import { describeMachine, type MachineInfo } from './machine.js';
import { HELP, parseBenchOptions, type BenchOptions, type EngineName } from './options.js';
import { profileFiles, renderSummary, summarizeProfile } from './profile-summary.js';
import { generateMixes, paramsScriptFor, type MixSet } from './query-mixes.js';
import { consoleSummary, qmphRatios, renderScaling, scalingRows, summarizeRun, writeReports, type BenchReport, type EngineReport } from './report.js';

const LAUNCHERS: Record<EngineName, EngineLauncher> = { quiver: launchQuiver, oxigraph: launchOxigraph, virtuoso: launchVirtuoso, jena: launchJena };

/** dist/bench/run.js → the repository root. */
const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The BSBM benchmark's own data generator (Java), shared beside the repository. */
const BSBM_GENERATOR = '../shared/bench/bsbm/generator';

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** The servers running now, stopped by their PIDs on Ctrl-C. */
const running = new Set<RunningEngine>();

async function main(): Promise<number> {
  const options = parseBenchOptions(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const outDir = resolve(REPO_ROOT, options.outDir);
  const machine = describeMachine();
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
  if (options.workload === 'analytic') return analyticMain(options, outDir, machine);
  const reports: BenchReport[] = [];
  for (const spec of options.datasets) {
    const dataset = await resolveDataset(spec, outDir);
    reports.push(await benchDataset(spec, dataset, options, outDir, machine));
  }
  const files = writeReports(outDir, options.out, reports);
  for (const report of reports) process.stdout.write(`\n${report.dataset.path}:\n${consoleSummary(report)}\n`);
  const scaling = scalingRows(reports);
  if (scaling.length > 0) process.stdout.write('\n' + renderScaling(scaling).join('\n') + '\n');
  process.stdout.write(`\nreport: ${files.markdown}\n        ${files.json}\n`);
  const bad = reports.reduce((n, r) => n + r.answers.rowCountDisagreements.length + r.answers.contentDisagreements.length, 0);
  return bad > 0 ? 3 : 0;
}

/** `--workload analytic`: every dataset, every engine one after another, then the report. */
async function analyticMain(options: BenchOptions, outDir: string, machine: MachineInfo): Promise<number> {
  const reports: AnalyticReport[] = [];
  for (const spec of options.datasets) {
    const dataset = await resolveDataset(spec, outDir);
    reports.push(await analyticDataset(spec, dataset, options, outDir, machine));
  }
  const files = writeAnalyticReports(outDir, options.out, reports);
  for (const report of reports) process.stdout.write(`\n${report.dataset.path}:\n${consoleAnalyticSummary(report)}\n`);
  process.stdout.write(`\nreport: ${files.markdown}\n        ${files.json}\n`);
  return reports.some((r) => r.disagreements.length > 0) ? 3 : 0;
}

async function analyticDataset(spec: string, dataset: string, options: BenchOptions, outDir: string, machine: MachineInfo): Promise<AnalyticReport> {
  log(`analytic: drawing ${options.instances} parameter sets (seed ${options.seed}) from ${dataset}`);
  const paramSets = drawParams(await sampleDataset(dataset, options.seed), options.seed, options.instances);
  const instances = analyticInstances(ANALYTIC_SHAPES, paramSets);
  const context: LaunchContext = { dataset, repoRoot: REPO_ROOT, workDir: join(outDir, 'work', options.out), queryTimeoutMs: options.timeoutMs };
  mkdirSync(context.workDir, { recursive: true });
  const engines: AnalyticEngineReport[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const name of options.engines) {
    const engine = await launch(name, context);
    if ('skipped' in engine) {
      skipped.push({ name, reason: engine.skipped });
      continue;
    }
    try {
      const results = await runAnalytic(engine, instances, options.repeats, options.timeoutMs, log);
      engines.push({ name, description: engine.description, load: engine.load, memory: engine.memory(), results });
    } finally {
      await stopEngine(engine);
    }
  }
  const { disagreements, compared } = analyticCrossCheck(instances, engines);
  return {
    machine,
    loadAverage: currentLoadAverage(),
    options: {
      workload: 'analytic',
      instances: options.instances,
      repeats: options.repeats,
      engines: options.engines,
      seed: options.seed,
      timeoutMs: options.timeoutMs,
    },
    dataset: { path: spec.startsWith('bsbm:') ? `${spec} (${dataset.slice(REPO_ROOT.length + 1)})` : spec, triples: engines[0]?.load.triples },
    shapes: ANALYTIC_SHAPES.map((s) => ({ name: s.name, title: s.title })),
    engines,
    skipped,
    disagreements,
    compared,
  };
}

function analyticCrossCheck(instances: AnalyticInstance[], engines: AnalyticEngineReport[]): { disagreements: AnalyticDisagreement[]; compared: number } {
  const disagreements: AnalyticDisagreement[] = [];
  let compared = 0;
  instances.forEach((instance, i) => {
    const answers = Object.fromEntries(engines.map((e) => [e.name, e.results[i].answer]));
    if (Object.values(answers).filter(Array.isArray).length >= 2) compared++;
    const problems = crossCheck(answers, instance.shape.ordered);
    if (Object.keys(problems).length > 0) disagreements.push({ shape: instance.shape.name, index: instance.index, params: { ...instance.params }, problems });
  });
  return { disagreements, compared };
}

/** A path as given, or `bsbm:N`: the BSBM generator's data for N products, cached under bench/out/datasets. */
async function resolveDataset(spec: string, outDir: string): Promise<string> {
  const generated = /^bsbm:(\d+)$/.exec(spec);
  if (!generated) {
    const path = resolve(REPO_ROOT, spec);
    if (!existsSync(path)) throw new Error(`dataset not found: ${path}`);
    return path;
  }
  const products = Number(generated[1]);
  const started = Date.now();
  log(`dataset: ${products} BSBM products (cached in ${join(outDir, 'datasets')}; generated the first time)`);
  const file = await bsbmDataset(join(outDir, 'datasets'), products, resolve(REPO_ROOT, BSBM_GENERATOR));
  log(`dataset: ${file} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

async function benchDataset(spec: string, dataset: string, options: BenchOptions, outDir: string, machine: MachineInfo): Promise<BenchReport> {
  // One work folder per run: other runs of the harness may be going on in the same checkout.
  const workDir = join(outDir, 'work', options.out);
  log(`generating ${options.warmup} warm-up + ${options.mixes} measured Explore mixes (seed ${options.seed}) for ${spec}`);
  const mixDir = join(workDir, 'mixes');
  rmSync(mixDir, { recursive: true, force: true });
  const mixes = await generateMixes({
    paramsScript: paramsScriptFor(dataset, REPO_ROOT),
    dataset,
    seed: options.seed,
    warmup: options.warmup,
    measured: options.mixes,
    mix: options.mix,
    only: options.queries,
    outDir: mixDir,
  });

  const profileDir = options.profile ? join(outDir, 'profiles', options.out) : undefined;
  const context: LaunchContext = { dataset, repoRoot: REPO_ROOT, workDir, queryTimeoutMs: options.timeoutMs, profileDir };
  mkdirSync(context.workDir, { recursive: true });

  const allRuns: RunSamples[] = [];
  const { engines, skipped } =
    options.rounds > 1
      ? await measureInterleaved(options.engines, context, mixes, options, allRuns)
      : await measureOneByOne(options.engines, context, mixes, options, allRuns);
  for (const { name, reason } of skipped) log(`${name}: SKIPPED, ${reason}`);
  if (profileDir) printProfiles(profileDir);
  const stats = mixes.datasetStats as { products?: number } | undefined;
  return {
    machine,
    options: {
      mixes: options.mixes,
      warmup: options.warmup,
      rounds: options.rounds,
      clients: options.clients,
      engines: options.engines,
      seed: options.seed,
      mix: options.mix,
      queries: options.queries,
      timeoutMs: options.timeoutMs,
      profile: options.profile,
    },
    dataset: {
      path: spec.startsWith('bsbm:') ? `${spec} (${dataset.slice(REPO_ROOT.length + 1)})` : spec,
      products: stats?.products,
      stats: mixes.datasetStats,
    },
    engines,
    skipped,
    ratios: qmphRatios(engines),
    answers: checkAnswers(mixes.measured, allRuns),
  };
}

async function measureOneByOne(
  names: EngineName[],
  context: LaunchContext,
  mixes: MixSet,
  options: BenchOptions,
  allRuns: RunSamples[],
): Promise<{ engines: EngineReport[]; skipped: { name: string; reason: string }[] }> {
  const engines: EngineReport[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const name of names) {
    const measured = await measureEngine(name, context, mixes, options, allRuns);
    if ('skipped' in measured) skipped.push({ name, reason: measured.skipped });
    else engines.push(measured);
  }
  return { engines, skipped };
}

async function measureEngine(
  name: EngineName,
  context: LaunchContext,
  mixes: MixSet,
  options: BenchOptions,
  allRuns: RunSamples[],
): Promise<EngineReport | { skipped: string }> {
  const engine = await launch(name, context);
  if ('skipped' in engine) return engine;
  try {
    const runs = [];
    for (const clients of options.clients) {
      await warmUp(engine, mixes, clients, options);
      log(`${name}: ${mixes.measured.length} measured mixes, ${clients} client(s)`);
      const run = await runMixes(mixes.measured, { endpoint: engine.endpoint, clients, timeoutMs: options.timeoutMs, protocol: engine.protocol });
      runs.push(summarized(name, run, allRuns));
    }
    return { name, description: engine.description, load: engine.load, memory: engine.memory(), runs };
  } finally {
    await stopEngine(engine);
  }
}

/**
 * `--rounds N`: every engine started at once (idle ones use no CPU), and the measured mixes cut into
 * N slices run engine after engine, the order rotating from round to round. A slow spell of this
 * shared machine then falls on every engine's share instead of on one engine's whole run.
 */
async function measureInterleaved(
  names: EngineName[],
  context: LaunchContext,
  mixes: MixSet,
  options: BenchOptions,
  allRuns: RunSamples[],
): Promise<{ engines: EngineReport[]; skipped: { name: string; reason: string }[] }> {
  const started: RunningEngine[] = [];
  const skipped: { name: string; reason: string }[] = [];
  try {
    for (const name of names) {
      const engine = await launch(name, context);
      if ('skipped' in engine) skipped.push({ name, reason: engine.skipped });
      else started.push(engine);
    }
    const runs = new Map(started.map((engine) => [engine, [] as EngineReport['runs']]));
    const slices = sliced(mixes.measured, options.rounds);
    for (const clients of options.clients) {
      for (const engine of started) await warmUp(engine, mixes, clients, options);
      const shares = new Map(started.map((engine) => [engine, { clients, mixes: 0, wallSeconds: 0, samples: [] as DriverRun['samples'] }]));
      for (let round = 0; round < slices.length; round++) {
        log(`round ${round + 1} of ${slices.length}: ${slices[round]!.length} mixes each, ${clients} client(s)`);
        for (const engine of rotated(started, round)) {
          const run = await runMixes(slices[round]!, { endpoint: engine.endpoint, clients, timeoutMs: options.timeoutMs, protocol: engine.protocol });
          const share = shares.get(engine)!;
          share.mixes += run.mixes;
          share.wallSeconds += run.wallSeconds;
          share.samples.push(...run.samples);
        }
      }
      for (const engine of started) runs.get(engine)!.push(summarized(engine.name, shares.get(engine)!, allRuns));
    }
    const engines = started.map((engine) => ({
      name: engine.name,
      description: engine.description,
      load: engine.load,
      memory: engine.memory(),
      runs: runs.get(engine)!,
    }));
    return { engines, skipped };
  } finally {
    for (const engine of started) await stopEngine(engine);
  }
}

async function launch(name: EngineName, context: LaunchContext): Promise<RunningEngine | { skipped: string }> {
  log(`${name}: loading and starting`);
  let launched;
  try {
    launched = await LAUNCHERS[name](context);
  } catch (error) {
    return { skipped: `failed to start: ${(error as Error).message}` };
  }
  if ('skipped' in launched) return launched;
  const engine = launched.engine;
  running.add(engine);
  log(`${name}: ${engine.load.triples} triples loaded in ${engine.load.seconds.toFixed(1)} s; serving at ${engine.endpoint} (pid ${engine.pid})`);
  return engine;
}

async function stopEngine(engine: RunningEngine): Promise<void> {
  await engine.stop();
  running.delete(engine);
}

/**
 * Warmed up with as many clients as the run it precedes, as the BSBM driver does: a server that
 * spreads concurrent queries over threads warms each thread's compiled code only under concurrency.
 */
async function warmUp(engine: RunningEngine, mixes: MixSet, clients: number, options: BenchOptions): Promise<void> {
  if (mixes.warmup.length === 0) return;
  log(`${engine.name}: ${mixes.warmup.length} warm-up mixes, ${clients} client(s)`);
  await runMixes(mixes.warmup, { endpoint: engine.endpoint, clients, timeoutMs: options.timeoutMs, protocol: engine.protocol });
}

function summarized(name: string, run: DriverRun, allRuns: RunSamples[]): ReturnType<typeof summarizeRun> {
  const summary = summarizeRun(run);
  log(`${name}: ${summary.qmph.toFixed(0)} QMpH, ${summary.errors} errors`);
  allRuns.push({ label: `${name}/${run.clients}c`, samples: run.samples });
  return summary;
}

/** `items` cut into `count` slices of (nearly) equal length, in order. */
function sliced<T>(items: T[], count: number): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < count; i++) slices.push(items.slice(Math.round((i * items.length) / count), Math.round(((i + 1) * items.length) / count)));
  return slices.filter((slice) => slice.length > 0);
}

/** The list started at its `by`-th item (modulo its length). */
function rotated<T>(items: T[], by: number): T[] {
  const at = by % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

function printProfiles(profileDir: string): void {
  if (!existsSync(profileDir)) return;
  const summaries = profileFiles([profileDir])
    .map((f) => summarizeProfile(f, 15, REPO_ROOT))
    .sort((a, b) => b.busyMs - a.busyMs);
  process.stdout.write(`\nCPU profiles of the Quiver server (${profileDir}):\n\n${summaries.map((s) => renderSummary(s)).join('\n\n')}\n`);
}

/** Ctrl-C: stop the server we started (by its PID) before leaving. */
process.once('SIGINT', () => {
  log('interrupted: stopping the running servers');
  void Promise.allSettled([...running].map((engine) => engine.stop())).finally(() => process.exit(130));
});

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`[bench] ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
