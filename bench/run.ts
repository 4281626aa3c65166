/**
 * The BSBM benchmark harness: `npm run bench -- [options]` (see options.ts, or --help).
 *
 * One invocation measures every engine on the same query mixes, one engine at a time so that they
 * never compete for the CPU: load the dataset, start the server, warm up, run the measured mixes
 * with each client count, read the server's peak memory, stop it. Then cross-check the answers and
 * write the report.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkAnswers, type RunSamples } from './answer-check.js';
import type { EngineLauncher, LaunchContext, RunningEngine } from './engines/engine.js';
import { launchOxigraph } from './engines/oxigraph.js';
import { launchQuiver } from './engines/quiver.js';
import { launchVirtuoso } from './engines/virtuoso.js';
import { runMixes } from './http-driver.js';
import { describeMachine } from './machine.js';
import { HELP, parseBenchOptions, type BenchOptions, type EngineName } from './options.js';
import { profileFiles, renderSummary, summarizeProfile } from './profile-summary.js';
import { generateMixes, paramsScriptFor, type MixSet } from './query-mixes.js';
import { consoleSummary, qmphRatios, summarizeRun, writeReport, type BenchReport, type EngineReport } from './report.js';

const LAUNCHERS: Record<EngineName, EngineLauncher> = { quiver: launchQuiver, oxigraph: launchOxigraph, virtuoso: launchVirtuoso };

/** dist/bench/run.js → the repository root. */
const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

let running: RunningEngine | undefined;

async function main(): Promise<number> {
  const options = parseBenchOptions(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const outDir = resolve(REPO_ROOT, options.outDir);
  const dataset = resolve(REPO_ROOT, options.dataset);
  if (!existsSync(dataset)) throw new Error(`dataset not found: ${dataset}`);
  const machine = describeMachine();
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);

  log(`generating ${options.warmup} warm-up + ${options.mixes} measured Explore mixes (seed ${options.seed})`);
  const mixDir = join(outDir, 'work', 'mixes');
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
  const context: LaunchContext = { dataset, repoRoot: REPO_ROOT, workDir: join(outDir, 'work'), queryTimeoutMs: options.timeoutMs, profileDir };
  mkdirSync(context.workDir, { recursive: true });

  const engines: EngineReport[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const allRuns: RunSamples[] = [];
  for (const name of options.engines) {
    const measured = await measureEngine(name, context, mixes, options, allRuns);
    if ('skipped' in measured) {
      log(`${name}: SKIPPED, ${measured.skipped}`);
      skipped.push({ name, reason: measured.skipped });
    } else engines.push(measured);
  }

  const report: BenchReport = {
    machine,
    options: { mixes: options.mixes, warmup: options.warmup, clients: options.clients, engines: options.engines, seed: options.seed, mix: options.mix, queries: options.queries, timeoutMs: options.timeoutMs, profile: options.profile },
    dataset: { path: options.dataset, stats: mixes.datasetStats },
    engines,
    skipped,
    ratios: qmphRatios(engines),
    answers: checkAnswers(mixes.measured, allRuns),
  };
  const files = writeReport(outDir, options.out, report);
  process.stdout.write('\n' + consoleSummary(report) + '\n');
  process.stdout.write(`\nreport: ${files.markdown}\n        ${files.json}\n`);
  if (profileDir) printProfiles(profileDir);
  const bad = report.answers.rowCountDisagreements.length + report.answers.contentDisagreements.length;
  return bad > 0 ? 3 : 0;
}

async function measureEngine(name: EngineName, context: LaunchContext, mixes: MixSet, options: BenchOptions, allRuns: RunSamples[]): Promise<EngineReport | { skipped: string }> {
  log(`${name}: loading and starting`);
  let launched;
  try {
    launched = await LAUNCHERS[name](context);
  } catch (error) {
    return { skipped: `failed to start: ${(error as Error).message}` };
  }
  if ('skipped' in launched) return launched;
  const engine = (running = launched.engine);
  try {
    log(`${name}: ${engine.load.triples} triples loaded in ${engine.load.seconds.toFixed(1)} s; serving at ${engine.endpoint} (pid ${engine.pid})`);
    if (mixes.warmup.length > 0) {
      log(`${name}: ${mixes.warmup.length} warm-up mixes`);
      await runMixes(mixes.warmup, { endpoint: engine.endpoint, clients: 1, timeoutMs: options.timeoutMs });
    }
    const runs = [];
    for (const clients of options.clients) {
      log(`${name}: ${mixes.measured.length} measured mixes, ${clients} client(s)`);
      const run = await runMixes(mixes.measured, { endpoint: engine.endpoint, clients, timeoutMs: options.timeoutMs });
      const summary = summarizeRun(run);
      log(`${name}: ${summary.qmph.toFixed(0)} QMpH, ${summary.errors} errors`);
      runs.push(summary);
      allRuns.push({ label: `${name}/${clients}c`, samples: run.samples });
    }
    return { name, description: engine.description, load: engine.load, memory: engine.memory(), runs };
  } finally {
    await engine.stop();
    running = undefined;
  }
}

function printProfiles(profileDir: string): void {
  if (!existsSync(profileDir)) return;
  const summaries = profileFiles([profileDir]).map((f) => summarizeProfile(f, 15, REPO_ROOT)).sort((a, b) => b.busyMs - a.busyMs);
  process.stdout.write(`\nCPU profiles of the Quiver server (${profileDir}):\n\n${summaries.map((s) => renderSummary(s)).join('\n\n')}\n`);
}

/** Ctrl-C: stop the server we started (by its PID) before leaving. */
process.once('SIGINT', () => {
  log('interrupted: stopping the running server');
  void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
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
