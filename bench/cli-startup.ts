/**
 * How long the one-shot commands take, wall clock, against an existing store: `quiver query
 * 'ASK {}'`, `quiver --help` and `quiver --version`, next to `node -e ''` on the same machine (the
 * floor no Node program gets under). Median of RUNS runs each. `quiver` is the package's bin, the
 * bundled command (scripts/build-cli.mjs), which runs `query` from a CommonJS bundle through V8's
 * code cache (src/cli/code-cache.ts): the query is timed with that cache (written by a first run
 * before the timing), without it (QUIVER_CODE_CACHE=off, as a first run is), and unbundled
 * (dist/src/cli/main.js). The load average is printed too: on a busy machine every figure grows.
 * Run: npm run build && node dist/bench/cli-startup.js [RUNS]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './machine.js';

const RUNS = Number(process.argv[2] ?? 10);
const MAIN = resolve(fileURLToPath(new URL('../src/cli/quiver.cjs', import.meta.url)));
const UNBUNDLED = resolve(fileURLToPath(new URL('../src/cli/main.js', import.meta.url)));

function medianMs(args: string[], env: NodeJS.ProcessEnv): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    execFileSync(process.execPath, args, { stdio: 'ignore', env });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const store = mkdtempSync(join(tmpdir(), 'quiver-cli-bench-'));
const codeCache = mkdtempSync(join(tmpdir(), 'quiver-cli-bench-cache-'));
const cached = { ...process.env, QUIVER_CODE_CACHE: codeCache };
const uncached = { ...process.env, QUIVER_CODE_CACHE: 'off' };
try {
  // Also the first run, which writes the code cache the timed runs take.
  execFileSync(process.execPath, [MAIN, 'update', '--store', store, 'INSERT DATA { <urn:a> <urn:b> <urn:c> }'], { env: cached });
  const machine = describeMachine();
  console.log(`${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${machine.date}`);
  console.log(
    `median of ${RUNS} runs, wall clock; load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}:`,
  );
  const query = ['query', '--store', store, 'ASK {}'];
  const rows: [string, string[], NodeJS.ProcessEnv][] = [
    ["node -e ''", ['-e', ''], cached],
    ['quiver --version', [MAIN, '--version'], cached],
    ['quiver --help', [MAIN, '--help'], cached],
    ["quiver query --store S 'ASK {}'", [MAIN, ...query], cached],
    ['  the same, without the code cache', [MAIN, ...query], uncached],
    ['  the same, unbundled (main.js)', [UNBUNDLED, ...query], cached],
  ];
  for (const [name, args, env] of rows) console.log(`  ${name.padEnd(36)} ${medianMs(args, env).toFixed(0).padStart(6)} ms`);
  console.log(
    `load average after: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(store, { recursive: true, force: true });
  rmSync(codeCache, { recursive: true, force: true });
}
