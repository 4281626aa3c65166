/**
 * Memory of a streamed load: pipes generated BSBM-shaped N-Triples (no file, any size) into
 * `quiver load -` and samples the child's resident memory as the statements go in. A load whose
 * memory is bounded shows RSS levelling off while the statement count keeps growing.
 *
 *   node dist/bench/load/memory-bench.js [--statements N] [--every N]
 *
 * --every: statements between two printed samples (default: a tenth of the total).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bsbmLikeChunks } from './bsbm-like-data.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const { values } = parseArgs({ options: { statements: { type: 'string', default: '5000000' }, every: { type: 'string' } } });

interface Resident {
  /** VmRSS: everything resident, pages of the memory-mapped store file included. */
  total: number;
  /** RssAnon: the process's own memory (heap, buffers, LMDB's dirty pages); the file's pages are the kernel's to drop. */
  anonymous: number;
}

function residentMiB(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  return { total: mib('VmRSS'), anonymous: mib('RssAnon') };
}

async function main(): Promise<void> {
  const total = Number(values.statements);
  const dir = mkdtempSync(join(tmpdir(), 'quiver-memory-bench-'));
  try {
    const child = spawn(process.execPath, [CLI, 'load', '--store', join(dir, 'store'), '--format', 'ntriples', '--quiet', '-'], {
      stdio: ['pipe', 'inherit', 'inherit'],
    });
    const exited = once(child, 'exit');
    const started = Date.now();
    let sent = 0;
    let peak = 0;
    let peakAnonymous = 0;
    const every = values.every === undefined ? total / 10 : Number(values.every);
    let nextReport = every;
    const sample = (): Resident => {
      const now = residentMiB(child.pid!);
      peak = Math.max(peak, now.total);
      peakAnonymous = Math.max(peakAnonymous, now.anonymous);
      return now;
    };
    const sampler = setInterval(() => {
      // The child may have exited between two samples.
      try {
        sample();
      } catch {
        /* gone */
      }
    }, 200);
    console.log('statements sent    RSS now (MiB)   anonymous now (MiB)   peak RSS (MiB)   peak anonymous (MiB)');
    for (const chunk of bsbmLikeChunks(total)) {
      if (!child.stdin.write(chunk)) await once(child.stdin, 'drain');
      sent += 12;
      if (sent >= nextReport) {
        const now = sample();
        console.log(
          `${String(sent).padStart(15)} ${String(now.total).padStart(16)} ${String(now.anonymous).padStart(21)} ${String(peak).padStart(16)} ${String(peakAnonymous).padStart(22)}`,
        );
        nextReport += every;
      }
    }
    child.stdin.end();
    // The commit (secondary indexes, dictionary) happens after the last statement: keep sampling.
    const [code] = await exited;
    clearInterval(sampler);
    console.log(
      `exit ${code}, ${sent} statements in ${((Date.now() - started) / 1000).toFixed(1)} s, peak RSS ${peak} MiB, peak anonymous ${peakAnonymous} MiB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
