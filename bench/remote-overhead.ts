/**
 * What remote mode costs: BSBM Explore queries sent to Virtuoso directly and through Quiver in
 * remote mode (`quiver serve --remote`, its own process) in the same run, one client, the order of
 * the ways rotating from one query instance to the next. Latency is until the last byte of the
 * answer. Prints the median per query and overall, and the median of the paired differences.
 * Also prints the CPU time the Quiver process spent per request: on a busy machine the latency
 * difference includes waiting for a core (two processes instead of one), the CPU time does not.
 *
 * Virtuoso is asked two ways: on a new connection per request (`direct`, how Quiver asks it), and
 * on one kept-alive connection (`direct-ka`). Virtuoso leaves Nagle's algorithm on and writes an
 * answer of more than 32 KiB in pieces, so on a kept-alive connection each piece after the first
 * waits for the client's delayed ACK (40 ms on Linux): BSBM Q2 then takes 45 ms instead of 6.
 * Quiver itself is asked on a kept-alive connection (it sends with TCP_NODELAY).
 *
 *   npm run build && node dist/bench/remote-overhead.js [--mixes 20] [--warmup 100] [--dataset FILE]
 *
 * The warm-up lets V8 finish optimizing the server's code: after a few mixes the optimizing
 * compiler still takes a fifth of Quiver's CPU, and the CPU per request keeps falling for some
 * thousand requests. Its first mixes go every way (Virtuoso's caches), the rest through Quiver only.
 *
 * Needs virtuoso-t and isql-vt on the PATH (Debian: virtuoso-opensource).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
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
  directKeepAliveMs: number;
  quiverMs: number;
}

type Way = 'direct' | 'direct-ka' | 'quiver';
/** Warm-up mixes sent every way; the others go to Quiver only. */
const WARMUP_EVERY_WAY = 5;
const WAYS: Way[] = ['direct', 'direct-ka', 'quiver'];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mixes: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '100' },
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
  const ways: Record<Way, Target> = {
    direct: { endpoint: virtuoso.endpoint, agent: new Agent({ keepAlive: false }) },
    'direct-ka': { endpoint: virtuoso.endpoint, agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
    quiver: { endpoint: quiverEndpoint, agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
  };
  try {
    console.log(`Virtuoso: ${virtuoso.description}, ${virtuoso.load.triples} triples loaded`);
    let turn = 0;
    for (const [n, mix] of mixes.warmup.entries()) {
      for (const query of mix.queries) {
        if (n < WARMUP_EVERY_WAY) await measure(query, ways, turn++);
        else await timed(ways.quiver, query);
      }
    }
    const samples: Sample[] = [];
    const cpuBefore = cpuMs(quiver.pid);
    for (const mix of mixes.measured) for (const query of mix.queries) samples.push(await measure(query, ways, turn++));
    report(samples);
    console.log(`Quiver process CPU per request: ${((cpuMs(quiver.pid) - cpuBefore) / samples.length).toFixed(2)} ms`);
  } finally {
    for (const way of WAYS) ways[way].agent.destroy();
    await quiver.stop();
    await virtuoso.stop();
  }
}

interface Target {
  endpoint: string;
  agent: Agent;
}

/** The query one way after the other, starting with a different way each turn. */
async function measure(query: QueryInstance, ways: Record<Way, Target>, turn: number): Promise<Sample> {
  const ms: Partial<Record<Way, number>> = {};
  for (let i = 0; i < WAYS.length; i++) {
    const way = WAYS[(turn + i) % WAYS.length]!;
    ms[way] = await timed(ways[way], query);
  }
  return { query: query.query, directMs: ms.direct!, directKeepAliveMs: ms['direct-ka']!, quiverMs: ms.quiver! };
}

/** One request, form-POSTed in one write (as Quiver forwards it), timed until the last byte of the answer. */
function timed(target: Target, query: QueryInstance): Promise<number> {
  const body = Buffer.from(new URLSearchParams({ query: query.text }).toString());
  const headers = { accept: ACCEPT[query.form], 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length };
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(target.endpoint, { method: 'POST', agent: target.agent, headers }, (response) => {
      response.on('data', () => undefined);
      response.on('error', reject);
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`${target.endpoint} answered ${response.statusCode} to ${query.query}`));
        else resolve(Number(process.hrtime.bigint() - started) / 1e6);
      });
    });
    req.once('socket', (socket) => socket.setNoDelay(true));
    req.on('error', reject);
    req.end(body);
  });
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
  const cell = (value: number): string => value.toFixed(2).padStart(10);
  const row = (label: string, list: Sample[]): string => {
    const direct = median(list.map((s) => s.directMs));
    const directKeepAlive = median(list.map((s) => s.directKeepAliveMs));
    const quiver = median(list.map((s) => s.quiverMs));
    const paired = median(list.map((s) => s.quiverMs - s.directMs));
    return `${label.padEnd(8)} ${String(list.length).padStart(5)}${cell(direct)}${cell(directKeepAlive)}${cell(quiver)}${cell(quiver - direct)}${cell(paired)}`;
  };
  const heading = ['direct', 'direct-ka', 'quiver', 'overhead', 'paired'].map((h) => h.padStart(10)).join('');
  console.log(`${'query'.padEnd(8)} ${'n'.padStart(5)}${heading}`);
  for (const name of names) console.log(row(name, samples.filter((s) => s.query === name)));
  console.log(row('all', samples));
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(`${'mean'.padEnd(14)}${cell(mean(samples.map((s) => s.directMs)))}${cell(mean(samples.map((s) => s.directKeepAliveMs)))}${cell(mean(samples.map((s) => s.quiverMs)))}`);
  console.log('medians of latency (ms) until the last byte; direct: a new connection per request, direct-ka: kept alive;');
  console.log('overhead = quiver median - direct median; paired = median of per-request differences (quiver - direct)');
}

await main();
