/** Shared by the load and dump suites: fixtures, throw-away store directories, dataset comparison. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/lmdb-store.js';
import { ANY, DEFAULT_GRAPH_ID, type QuadStore } from '../../src/store/quad-store.js';
import type { Term } from '../../src/rdf/terms.js';
import { matchRows, type Row } from '../w3c/isomorphism.js';
import { repoRoot } from '../protocol/protocol-manifest.js';

export function fixture(name: string): string {
  return join(repoRoot(), 'test', 'cli-load', 'fixtures', name);
}

export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'quiver-load-test-'));
}

export function removeDirectory(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/** Every quad of the store as rows of terms (graph last; undefined for the default graph). */
export function datasetRows(store: QuadStore): Row[] {
  const reader = store.reader();
  try {
    const rows: Row[] = [];
    const add = (quad: ArrayLike<number>, graph: Term | undefined) =>
      rows.push([reader.termOf(quad[0]!), reader.termOf(quad[1]!), reader.termOf(quad[2]!), graph]);
    for (const quad of reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)) add(quad, undefined);
    for (const quad of reader.scan(ANY, ANY, ANY, ANY)) add(quad, reader.termOf(quad[3]!));
    return rows;
  } finally {
    reader.release();
  }
}

/** Whether two stores hold the same dataset, blank nodes matched up to renaming. */
export function sameDataset(a: QuadStore, b: QuadStore): boolean {
  return matchRows(datasetRows(a), datasetRows(b)) !== undefined;
}

export async function withStore<T>(path: string, fn: (store: QuadStore) => Promise<T> | T): Promise<T> {
  const store = openStore({ path });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `quiver ARGS` in a child process. */
export function runCli(args: string[], options: { stdin?: Buffer | string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    const input = new PassThrough();
    input.pipe(child.stdin);
    input.end(options.stdin ?? '');
  });
}
