/**
 * BSBM Explore query mixes, made by the shared instantiator (../shared/bench/bsbm/params.mjs): it
 * picks parameter values from the dataset as the BSBM test driver does, and resamples until each
 * instance returns rows, so an empty answer from an engine is suspicious rather than normal.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export interface QueryInstance {
  /** BSBM query name, q01..q12. */
  query: string;
  /** Position in its mix, from 1. */
  seq: number;
  form: 'select' | 'ask' | 'construct' | 'describe';
  /** The template's parameters as substituted, e.g. { ProductXYZ: '<...Product655>' }. */
  params: Record<string, string>;
  text: string;
  /** Whether the answer is fully determined (no LIMIT/OFFSET that could cut between ties). */
  deterministic: boolean;
}

export interface QueryMix {
  /** From 1, over warm-up and measured mixes together. */
  mix: number;
  queries: QueryInstance[];
}

export interface MixSet {
  warmup: QueryMix[];
  measured: QueryMix[];
  datasetStats: unknown;
}

interface ManifestEntry {
  seq: number;
  query: string;
  form: QueryInstance['form'];
  file: string;
  params: Record<string, string>;
}
interface Manifest {
  datasetStats: unknown;
  mixes: { mix: number; queries: ManifestEntry[] }[];
}

const run = promisify(execFile);

export interface MixRequest {
  paramsScript: string;
  dataset: string;
  seed: number;
  warmup: number;
  measured: number;
  mix: 'official' | 'all';
  /** Keep only these query names; empty keeps all. */
  only: string[];
  outDir: string;
}

/** Runs params.mjs once for warm-up and measured mixes together (distinct parameters for each). */
export async function generateMixes(request: MixRequest): Promise<MixSet> {
  const total = request.warmup + request.measured;
  await run(
    process.execPath,
    [
      // params.mjs holds the whole dataset's statistics in memory: 100k products (35M triples) need
      // more than V8's default heap limit.
      '--max-old-space-size=16384',
      request.paramsScript,
      '--data',
      request.dataset,
      '--seed',
      String(request.seed),
      '--mixes',
      String(total),
      '--usecase',
      'explore',
      '--mix',
      request.mix,
      '--out',
      request.outDir,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const { mixes, datasetStats } = readMixes(request.outDir, request.only);
  return { warmup: mixes.slice(0, request.warmup), measured: mixes.slice(request.warmup), datasetStats };
}

/** The mixes params.mjs wrote to `outDir` (its manifest and one file per query), keeping only the queries named in `only` (empty: all). */
export function readMixes(outDir: string, only: string[] = []): { mixes: QueryMix[]; datasetStats: Manifest['datasetStats'] } {
  const manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8')) as Manifest;
  return { mixes: manifest.mixes.map((m) => readMix(outDir, m.mix, m.queries, only)), datasetStats: manifest.datasetStats };
}

function readMix(outDir: string, mix: number, entries: ManifestEntry[], only: string[]): QueryMix {
  const kept = only.length === 0 ? entries : entries.filter((e) => only.includes(e.query));
  return {
    mix,
    queries: kept.map((e) => {
      const text = readFileSync(join(outDir, e.file), 'utf8');
      return { query: e.query, seq: e.seq, form: e.form, params: e.params, text, deterministic: !/\b(LIMIT|OFFSET)\b/i.test(stripComments(text)) };
    }),
  };
}

function stripComments(text: string): string {
  return text.replace(/^\s*#.*$/gm, '');
}

/** The instantiator next to the dataset when it is the shared one, else the shared copy. */
export function paramsScriptFor(dataset: string, repoRoot: string): string {
  const beside = join(dirname(dataset), 'params.mjs');
  try {
    readFileSync(beside);
    return beside;
  } catch {
    return join(repoRoot, '../shared/bench/bsbm/params.mjs');
  }
}

/** A stable name of one query instance, the same in every engine's run. */
export function instanceKey(mix: number, seq: number): string {
  return `${mix}/${seq}`;
}
