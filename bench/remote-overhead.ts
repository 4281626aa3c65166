/**
 * What remote mode costs: BSBM Explore queries sent to Virtuoso directly and through Quiver in
 * remote mode (`quiver serve --remote`, its own process) in the same run, one client, the order of
 * the ways rotating from one query instance to the next. Latency is until the last byte of the
 * answer. Prints the median per query and overall, and the median of the paired differences.
 * Also prints the CPU time the Quiver process spent per request: on a busy machine the latency
 * difference includes waiting for a core (two processes instead of one), the CPU time does not.
 *
 * Virtuoso is asked two ways: on a new connection per request (`direct`, the bar's baseline), and
 * on one kept-alive connection (`direct-ka`). Virtuoso leaves Nagle's algorithm on and writes an
 * answer of more than 32 KiB in pieces, so on a kept-alive connection each piece after the first
 * waits for the client's delayed ACK (40 ms on Linux): BSBM Q2 then takes 45 ms instead of 6 with
 * a plain client such as this one's. (Quiver keeps its connections to Virtuoso and acknowledges
 * such pieces at once: see src/net/piece-acks.ts; the servers started here run
 * with `--remote-ack-pieces reuse`, Virtuoso skipping the empty lines, unless `--ack-pieces MODE`
 * says otherwise.) Quiver itself is asked on a kept-alive connection (it sends with TCP_NODELAY).
 *
 *   npm run build && node dist/bench/remote-overhead.js [--mixes 20] [--warmup 100] [--dataset FILE]  [--proxy] [--clients-compare] [--ack-pieces MODE] [--cpu-prof DIR] [--node-flag FLAG]...
 *
 * The overall figures come with 95% intervals from a bootstrap over the query instances (each
 * instance's latencies every way resampled together), to tell a difference from this machine's noise.
 *
 * `--proxy` adds a fourth way: a bare node:http forwarding proxy (no parsing, a new connection to
 * Virtuoso per request, as Quiver's), the floor of any Node.js server in the middle on this machine.
 *
 * `--clients-compare` adds a second Quiver server beside the first, the two differing only in the
 * client that talks to Virtuoso: `quiver` with remote mode's own HTTP/1.1 client (QUIVER_REMOTE_HTTP1=1,
 * src/service/remote-http1.ts), `quiver-undici` with net/'s undici client (QUIVER_REMOTE_HTTP1=0,
 * src/net/http-client.ts). Both are ways alternated like the others, each with its added latency and
 * its process's CPU per request: whether the hand-written client still wins, and by how much.
 *
 * `--cpu-prof DIR` runs the Quiver server under `node --cpu-prof` (profile written to DIR when it
 * stops; read it with bench/profile-summary.ts).
 *
 * `--node-flag FLAG` (repeatable) starts the Quiver server with that Node.js/V8 flag, e.g.
 * `--node-flag=--initial-old-space-size=64` or `--node-flag=--trace-gc` to compare heap settings.
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
import { Random } from './random.js';

const ACCEPT: Record<QueryInstance['form'], string> = {
  select: 'application/sparql-results+json',
  ask: 'application/sparql-results+json',
  construct: 'application/n-triples',
  describe: 'application/n-triples',
};

type Way = 'direct' | 'direct-ka' | 'quiver' | 'quiver-undici' | 'proxy';

interface Sample {
  query: string;
  ms: Partial<Record<Way, number>>;
}

/** Warm-up mixes sent every way; the others go to Quiver only. */
const WARMUP_EVERY_WAY = 5;
const BOOTSTRAP_RESAMPLES = 2000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mixes: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '100' },
      dataset: { type: 'string', default: '../shared/bench/bsbm/bsbm-1000.nt.gz' },
      seed: { type: 'string', default: '808080' },
      'cpu-prof': { type: 'string' },
      proxy: { type: 'boolean', default: false },
      'clients-compare': { type: 'boolean', default: false },
      'ack-pieces': { type: 'string', default: 'reuse' },
      'node-flag': { type: 'string', multiple: true, default: [] },
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
  const startQuiver = (ownClient: string, profileDir: string | undefined): ReturnType<typeof startChildServer> =>
    startChildServer({
      command: process.execPath,
      args: [
        ...values['node-flag']!,
        ...profiling(profileDir),
        join(repoRoot, 'dist/src/cli/main.js'),
        'serve',
        '--remote',
        virtuoso.endpoint,
        '--remote-ack-pieces',
        values['ack-pieces']!,
        '--port',
        '0',
      ],
      env: { ...process.env, QUIVER_REMOTE_HTTP1: ownClient },
      startupMs: 30_000,
    });
  const quiver = await startQuiver('1', values['cpu-prof']);
  const undici = values['clients-compare'] ? await startQuiver('0', values['cpu-prof'] && join(values['cpu-prof'], 'undici')) : undefined;
  const selectEndpoint = (server: { endpoint: string }): string => server.endpoint.replace(/\/sparql$/, '/sparql/select');
  const proxy = values.proxy ? await startBareProxy(virtuoso.endpoint) : undefined;
  const ways: Partial<Record<Way, Target>> = {
    direct: { endpoint: virtuoso.endpoint, agent: new Agent({ keepAlive: false }) },
    'direct-ka': { endpoint: virtuoso.endpoint, agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
    quiver: { endpoint: selectEndpoint(quiver), agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
  };
  if (undici) ways['quiver-undici'] = { endpoint: selectEndpoint(undici), agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
  if (proxy) ways.proxy = { endpoint: proxy.endpoint, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
  const processes: [string, number][] = [['Quiver', quiver.pid]];
  if (undici) processes.push(['Quiver (undici client)', undici.pid]);
  try {
    console.log(`Virtuoso: ${virtuoso.description}, ${virtuoso.load.triples} triples loaded`);
    let turn = 0;
    for (const [n, mix] of mixes.warmup.entries()) {
      for (const query of mix.queries) {
        if (n < WARMUP_EVERY_WAY) await measure(query, ways, turn++);
        else {
          await timed(ways.quiver!, query);
          if (ways['quiver-undici']) await timed(ways['quiver-undici'], query);
        }
      }
    }
    const samples: Sample[] = [];
    const cpuBefore = processes.map(([, pid]) => cpuMs(pid));
    for (const mix of mixes.measured) for (const query of mix.queries) samples.push(await measure(query, ways, turn++));
    report(samples, Object.keys(ways) as Way[], Number(values.seed));
    processes.forEach(([name, pid], i) => console.log(`${name} process CPU per request: ${((cpuMs(pid) - cpuBefore[i]!) / samples.length).toFixed(2)} ms`));
  } finally {
    for (const target of Object.values(ways)) target.agent.destroy();
    await proxy?.stop();
    await undici?.stop();
    await quiver.stop();
    await virtuoso.stop();
  }
}

function profiling(dir: string | undefined): string[] {
  return dir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(dir)];
}

interface Target {
  endpoint: string;
  agent: Agent;
}

/** The query one way after the other, starting with a different way each turn. */
async function measure(query: QueryInstance, ways: Partial<Record<Way, Target>>, turn: number): Promise<Sample> {
  const names = Object.keys(ways) as Way[];
  const ms: Partial<Record<Way, number>> = {};
  for (let i = 0; i < names.length; i++) {
    const way = names[(turn + i) % names.length]!;
    ms[way] = await timed(ways[way]!, query);
  }
  return { query: query.query, ms };
}

/**
 * A bare forwarding proxy in a child process: the request body read, sent on a new connection to
 * Virtuoso, the answer piped back. What any Node.js HTTP server in the middle costs here.
 */
function startBareProxy(endpoint: string): ReturnType<typeof startChildServer> {
  const script = `
    import http from 'node:http';
    const target = new URL(${JSON.stringify(endpoint)});
    const agent = new http.Agent({ keepAlive: false });
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = { 'content-type': req.headers['content-type'], accept: req.headers.accept, 'content-length': body.length };
        const out = http.request(target, { method: 'POST', agent, headers }, (r) => {
          res.writeHead(r.statusCode, { 'content-type': r.headers['content-type'] });
          r.pipe(res);
        });
        out.on('socket', (s) => s.setNoDelay(true));
        out.end(body);
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port + '/sparql'));
    process.on('SIGTERM', () => process.exit(0));`;
  return startChildServer({ command: process.execPath, args: ['--input-type=module', '-e', script], startupMs: 10_000 });
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
  const sorted = Float64Array.from(values).sort();
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Quiver's (or the proxy's) added latency in a set of samples: the difference of medians, and the median of paired differences. */
function added(samples: Sample[], way: Way): { overhead: number; paired: number } {
  const through = samples.map((s) => s.ms[way]!);
  return { overhead: median(through) - median(samples.map((s) => s.ms.direct!)), paired: median(samples.map((s) => s.ms[way]! - s.ms.direct!)) };
}

/** 95% intervals of both figures, from resampling the query instances (with replacement). */
function bootstrap(samples: Sample[], way: Way, seed: number): { overhead: [number, number]; paired: [number, number] } {
  const random = new Random(seed, 'bootstrap', way);
  const overheads: number[] = [];
  const paireds: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    const resample = samples.map(() => samples[Math.floor(random.next() * samples.length)]!);
    const { overhead, paired } = added(resample, way);
    overheads.push(overhead);
    paireds.push(paired);
  }
  const interval = (values: number[]): [number, number] => {
    const sorted = Float64Array.from(values).sort();
    return [sorted[Math.floor(sorted.length * 0.025)]!, sorted[Math.ceil(sorted.length * 0.975) - 1]!];
  };
  return { overhead: interval(overheads), paired: interval(paireds) };
}

function report(samples: Sample[], ways: Way[], seed: number): void {
  const names = [...new Set(samples.map((s) => s.query))].sort();
  // Wide enough for every way's name and a space.
  const width = Math.max(10, ...ways.map((way) => way.length + 1));
  const cell = (value: number): string => value.toFixed(2).padStart(width);
  const row = (label: string, list: Sample[]): string => {
    const medians = ways.map((way) => cell(median(list.map((s) => s.ms[way]!)))).join('');
    const { overhead, paired } = added(list, 'quiver');
    return `${label.padEnd(8)} ${String(list.length).padStart(5)}${medians}${cell(overhead)}${cell(paired)}`;
  };
  const heading = [...ways, 'overhead', 'paired'].map((h) => h.padStart(width)).join('');
  console.log(`${'query'.padEnd(8)} ${'n'.padStart(5)}${heading}`);
  for (const name of names)
    console.log(
      row(
        name,
        samples.filter((s) => s.query === name),
      ),
    );
  console.log(row('all', samples));
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(`${'mean'.padEnd(14)}${ways.map((way) => cell(mean(samples.map((s) => s.ms[way]!)))).join('')}`);
  console.log('medians of latency (ms) until the last byte; direct: a new connection per request, direct-ka: kept alive;');
  console.log('overhead = quiver median - direct median; paired = median of per-request differences (quiver - direct)');
  const range = ([low, high]: [number, number]): string => `${low.toFixed(2)} – ${high.toFixed(2)}`;
  for (const way of ways.filter((w) => w !== 'direct' && w !== 'direct-ka')) {
    const figures = added(samples, way);
    const intervals = bootstrap(samples, way, seed);
    console.log(
      `${way} adds ${figures.overhead.toFixed(2)} ms (95%: ${range(intervals.overhead)}), paired ${figures.paired.toFixed(2)} ms (95%: ${range(intervals.paired)})`,
    );
  }
  // The bar's baseline is `direct`. A client of Virtuoso alone could keep its connection instead:
  // faster on small answers (no connect), 40 ms slower on Q2; shown so that the figure is read
  // against both.
  const keptAlive = median(samples.map((s) => s.ms['direct-ka']!));
  console.log(`against direct-ka instead: quiver median - direct-ka median = ${(median(samples.map((s) => s.ms.quiver!)) - keptAlive).toFixed(2)} ms`);
  if (ways.includes('quiver-undici')) clientsCompared(samples, seed);
}

/** Remote mode's own HTTP/1.1 client against net/'s undici client: the median of paired differences, with its interval. */
function clientsCompared(samples: Sample[], seed: number): void {
  const paired = (list: Sample[]): number => median(list.map((s) => s.ms['quiver-undici']! - s.ms.quiver!));
  const random = new Random(seed, 'bootstrap', 'clients');
  const resampled: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) resampled.push(paired(samples.map(() => samples[Math.floor(random.next() * samples.length)]!)));
  const sorted = Float64Array.from(resampled).sort();
  const [low, high] = [sorted[Math.floor(sorted.length * 0.025)]!, sorted[Math.ceil(sorted.length * 0.975) - 1]!];
  console.log(
    `quiver-undici - quiver (own HTTP/1.1 client): median ${(median(samples.map((s) => s.ms['quiver-undici']!)) - median(samples.map((s) => s.ms.quiver!))).toFixed(2)} ms, paired ${paired(samples).toFixed(2)} ms (95%: ${low.toFixed(2)} – ${high.toFixed(2)})`,
  );
}

await main();
