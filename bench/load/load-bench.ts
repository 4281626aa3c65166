/**
 * Bulk-load benchmark: loads the BSBM data (../shared/bench/bsbm/bsbm-1000.nt.gz) and a larger
 * generated data set of the same shape into empty stores through the `quiver load` path, and prints
 * statements per second and bytes per statement on disk, with the machine's details.
 *
 *   node dist/bench/load/load-bench.js [--data FILE.nt.gz] [--generated N] [--runs R]
 *
 * `--generated 0` loads only the --data file (e.g. a 100k-product file made by the BSBM harness).
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { loadFile } from '../../src/loader/file-loader.js';
import { rdfFormatForFileName } from '../../src/formats/format-table.js';
import { openStore } from '../../src/store/lmdb-store.js';
import { describeMachine } from '../machine.js';
import { bsbmLikeChunks } from './bsbm-like-data.js';

interface LoadFigures {
  name: string;
  statements: number;
  seconds: number;
  /** CPU time of the whole process (user + system, every thread): steadier than wall time on a shared machine. */
  cpuSeconds: number;
  perSecond: number;
  storeBytes: number;
  bytesPerStatement: number;
}

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(process.cwd(), '../shared/bench/bsbm/bsbm-1000.nt.gz') },
    generated: { type: 'string', default: '3000000' },
    runs: { type: 'string', default: '1' },
  },
});

async function measure(name: string, file: string): Promise<LoadFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-load-bench-'));
  try {
    const store = openStore({ path: dir });
    const { format, gzip } = rdfFormatForFileName(file)!;
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    const result = await loadFile(store, { path: file, format, gzip });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    await store.close();
    const storeBytes = statSync(join(dir, 'data.mdb')).size;
    return {
      name,
      statements: result.statements,
      seconds: round(seconds, 2),
      cpuSeconds: round((cpu.user + cpu.system) / 1e6, 2),
      perSecond: Math.round(result.statements / seconds),
      storeBytes,
      bytesPerStatement: round(storeBytes / result.statements, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The generated data set, gzip-compressed, written to `path`. */
async function generate(path: string, statements: number): Promise<void> {
  const gzip = createGzip({ level: 1 });
  const out = gzip.pipe(createWriteStream(path));
  for (const chunk of bsbmLikeChunks(statements)) if (!gzip.write(chunk)) await once(gzip, 'drain');
  gzip.end();
  await once(out, 'close');
}

function round(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

async function main(): Promise<void> {
  const machine = describeMachine();
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${machine.date}`);
  const runs = Number(values.runs);
  const figures: LoadFigures[] = [];
  for (let run = 0; run < runs; run++) figures.push(await measure(basename(values.data!).replace(/\.nt(\.gz)?$/, ''), values.data!));
  const count = Number(values.generated);
  if (count === 0) return void console.table(figures);
  const dir = mkdtempSync(join(tmpdir(), 'quiver-load-bench-data-'));
  try {
    const generated = join(dir, 'generated.nt.gz');
    await generate(generated, count);
    for (let run = 0; run < runs; run++) figures.push(await measure(`generated-${count}`, generated));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.table(figures);
}

await main();
