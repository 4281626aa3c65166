/**
 * Loading the dataset into a fresh Quiver store the way users do: the `quiver load` CLI in a child
 * process, timed from start to exit (Node start-up included, as a user would see it).
 */
import { execFile } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoadFigures {
  triples: number;
  seconds: number;
  triplesPerSecond: number;
  storeBytes: number;
  bytesPerTriple: number;
}

/** Loads `dataset` into a new store at `storeDir` (emptied first) with `quiver load`. */
export async function loadQuiverStore(dataset: string, storeDir: string, repoRoot: string): Promise<LoadFigures> {
  rmSync(storeDir, { recursive: true, force: true });
  const cli = join(repoRoot, 'dist/src/cli/main.js');
  const started = process.hrtime.bigint();
  const { stdout, stderr } = await run(process.execPath, [cli, 'load', '--store', storeDir, dataset], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const triples = statementsLoaded(stdout + stderr);
  const storeBytes = directoryBytes(storeDir);
  return { triples, seconds, triplesPerSecond: triples / seconds, storeBytes, bytesPerTriple: storeBytes / triples };
}

/** The count from the loader's summary line, "FILE: 374,911 statements (374,911 new) in 2.2 s". */
export function statementsLoaded(output: string): number {
  const match = /([\d,]+) statements \(([\d,]+) new\)/.exec(output);
  if (!match) throw new Error(`quiver load did not report a statement count:\n${output.slice(-500)}`);
  return Number(match[1].replace(/,/g, ''));
}

export function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // Allocated blocks, not the apparent size: LMDB may grow its file sparsely.
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).blocks * 512;
  }
  return total;
}
