/**
 * What remote mode costs: BSBM Explore queries sent to Virtuoso directly and through Quiver in
 * remote mode (`quiver serve --remote`, its own process) in the same run, one client, each
 * instance alternately first to one and then the other. Latency is until the last byte of the
 * answer. Prints the median per query and overall, and the median of the paired differences.
 * Also prints the CPU time the Quiver process spent per request: on a busy machine the latency
 * difference includes waiting for a core (two processes instead of one), the CPU time does not.
 *
 *   npm run build && node dist/bench/remote-overhead.js [--mixes 20] [--warmup 3] [--dataset FILE]
 *
 * Needs virtuoso-t and isql-vt on the PATH (Debian: virtuoso-opensource).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startChildServer } from './engines/child-server.js';
import { launchVirtuoso } from './engines/virtuoso.js';
import { generateMixes, paramsScriptFor, type QueryInstance } from './query-mixes.js';

const ACCEPT: Record<QueryInstance['form'], string> = {
  select: 'application/sparql-results+json',
  ask: 'application/sparql-results+json',
  construct: 'application/n-triples',
  describe: 'application/n-triples',
};

interface Sample {
  query: string;
  directMs: number;
  quiverMs: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mixes: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '3' },
      dataset: { type: 'string', default: '../shared/bench/bsbm/bsbm-1000.nt.gz' },
      seed: { type: 'string', default: '808080' },
    },
  });
  const repoRoot = process.cwd();
  const dataset = resolve(values.dataset!);
  const workDir = resolve('bench/out/remote-overhead');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });

  const mixes = await generateMixes({
    paramsScript: paramsScriptFor(dataset, repoRoot),
    dataset,
    seed: Number(values.seed),
    warmup: Number(values.warmup),
    measured: Number(values.mixes),
    mix: 'official',
    only: [],
    outDir: join(workDir, 'mixes'),
  });

  const launched = await launchVirtuoso({ dataset, repoRoot, workDir, queryTimeoutMs: 60_000 });
  if ('skipped' in launched) {
    console.log(`skipped: ${launched.skipped}`);
    return;
  }
  const virtuoso = launched.engine;
  const quiver = await startChildServer({
    command: process.execPath,
    args: [join(repoRoot, 'dist/src/cli/main.js'), 'serve', '--remote', virtuoso.endpoint, '--port', '0'],
    startupMs: 30_000,
  });
  const quiverEndpoint = quiver.endpoint.replace(/\/sparql$/, '/sparql/select');
  try {
    console.log(`Virtuoso: ${virtuoso.description}, ${virtuoso.load.triples} triples loaded`);
    for (const mix of mixes.warmup) for (const query of mix.queries) await pair(query, virtuoso.endpoint, quiverEndpoint, true);
    const samples: Sample[] = [];
    const cpuBefore = cpuMs(quiver.pid);
    let directFirst = true;
    for (const mix of mixes.measured) {
      for (const query of mix.queries) {
        samples.push(await pair(query, virtuoso.endpoint, quiverEndpoint, directFirst));
        directFirst = !directFirst;
      }
    }
    report(samples);
    console.log(`Quiver process CPU per request: ${((cpuMs(quiver.pid) - cpuBefore) / samples.length).toFixed(2)} ms`);
  } finally {
    await quiver.stop();
    await virtuoso.stop();
  }
}

async function pair(query: QueryInstance, direct: string, quiver: string, directFirst: boolean): Promise<Sample> {
  let directMs: number;
  let quiverMs: number;
  if (directFirst) {
    directMs = await timed(direct, query);
    quiverMs = await timed(quiver, query);
  } else {
    quiverMs = await timed(quiver, query);
    directMs = await timed(direct, query);
  }
  return { query: query.query, directMs, quiverMs };
}

/** One request, form-POSTed (as Quiver forwards it), timed until the last byte of the answer. */
async function timed(endpoint: string, query: QueryInstance): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { accept: ACCEPT[query.form], 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query: query.text }).toString(),
  });
  await response.arrayBuffer();
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (!response.ok) throw new Error(`${endpoint} answered ${response.status} to ${query.query}`);
  return elapsed;
}

/** User + system CPU time of a process so far, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function report(samples: Sample[]): void {
  const names = [...new Set(samples.map((s) => s.query))].sort();
  const row = (label: string, list: Sample[]): string => {
    const direct = median(list.map((s) => s.directMs));
    const quiver = median(list.map((s) => s.quiverMs));
    const paired = median(list.map((s) => s.quiverMs - s.directMs));
    return `${label.padEnd(8)} ${String(list.length).padStart(5)} ${direct.toFixed(2).padStart(10)} ${quiver.toFixed(2).padStart(10)} ${(quiver - direct).toFixed(2).padStart(10)} ${paired.toFixed(2).padStart(10)}`;
  };
  console.log(`${'query'.padEnd(8)} ${'n'.padStart(5)} ${'direct ms'.padStart(10)} ${'quiver ms'.padStart(10)} ${'overhead'.padStart(10)} ${'paired'.padStart(10)}`);
  for (const name of names) console.log(row(name, samples.filter((s) => s.query === name)));
  console.log(row('all', samples));
  console.log('medians of latency until the last byte; overhead = quiver median - direct median; paired = median of per-request differences');
}

await main();
