/**
 * How long the one-shot commands take, wall clock, against an existing store: `quiver query
 * 'ASK {}'`, `quiver --help` and `quiver --version`, next to `node -e ''` on the same machine (the
 * floor no Node program gets under). Median of RUNS runs each. `quiver` is the package's bin, the
 * bundled command (scripts/build-cli.mjs); the unbundled one (dist/src/cli/main.js) is shown beside
 * it for the query. The load average is printed too: on a busy machine every figure grows.
 * Run: npm run build && node dist/bench/cli-startup.js [RUNS]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './machine.js';

const RUNS = Number(process.argv[2] ?? 10);
const MAIN = resolve(fileURLToPath(new URL('../src/cli/quiver.js', import.meta.url)));
const UNBUNDLED = resolve(fileURLToPath(new URL('../src/cli/main.js', import.meta.url)));

function medianMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    execFileSync(process.execPath, args, { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const store = mkdtempSync(join(tmpdir(), 'quiver-cli-bench-'));
try {
  execFileSync(process.execPath, [MAIN, 'update', '--store', store, 'INSERT DATA { <urn:a> <urn:b> <urn:c> }']);
  const machine = describeMachine();
  console.log(`${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${machine.date}`);
  console.log(`median of ${RUNS} runs, wall clock; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}:`);
  const rows: [string, string[]][] = [
    ["node -e ''", ['-e', '']],
    ['quiver --version', [MAIN, '--version']],
    ['quiver --help', [MAIN, '--help']],
    ["quiver query --store S 'ASK {}'", [MAIN, 'query', '--store', store, 'ASK {}']],
    ['  the same, unbundled (main.js)', [UNBUNDLED, 'query', '--store', store, 'ASK {}']],
  ];
  for (const [name, args] of rows) console.log(`  ${name.padEnd(36)} ${medianMs(args).toFixed(0).padStart(6)} ms`);
  console.log(`load average after: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  rmSync(store, { recursive: true, force: true });
}
