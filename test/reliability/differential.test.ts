/**
 * Differential testing: random queries (BGPs of 1-4 patterns, OPTIONAL, FILTER, UNION, DISTINCT,
 * ORDER BY + LIMIT, GROUP BY + COUNT) over BSBM data, answered by Quiver (with and without its
 * optimizer) and by Oxigraph; the multisets of answers must be the same. A disagreement is shrunk
 * to a minimal query and reported with both answers.
 *
 * CI: 200 queries over the first 60,000 triples. Full run (QUIVER_FULL=1): 5,000 queries over the
 * whole file. QUIVER_DIFF_QUERIES and QUIVER_DIFF_TRIPLES override; QUIVER_SEED replays.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import * as oxigraph from 'oxigraph';
import { openStore } from '../../src/store/lmdb-store.js';
import { loadFile } from '../../src/loader/file-loader.js';
import { runQuery } from '../../src/engine/query-engine.js';
import type { EngineQueryOptions } from '../../src/engine/engine-api.js';
import type { QuadStore } from '../../src/store/quad-store.js';
import { Random, seedFromEnv } from './prng.js';
import { runSize, timeLimit } from './run-size.js';
import { parseNTriples, profile } from './data-profile.js';
import { QueryGenerator, render, shrinkings, type GeneratedQuery } from './query-generator.js';
import { multisetMinus, rowString, type TermLike } from './term-strings.js';

const QUERIES = runSize('QUIVER_DIFF_QUERIES', 200, 5000);
/** A long run says how far it got, so that a failure or a stop late in it still leaves figures. */
const PROGRESS_EVERY = 500;
const TRIPLES = runSize('QUIVER_DIFF_TRIPLES', 60_000, Number.MAX_SAFE_INTEGER);
/** Queries with more answers than this are skipped (a cross product, not a test). */
const ROW_CAP = 20_000;
const QUERY_MS = 1000;

type Answer = { variables: string[]; rows: string[] } | { skipped: string };

let quiver: QuadStore;
let oxi: oxigraph.Store;
let dataText: string;
let tmp: string;

before(async () => {
  const started = Date.now();
  dataText = bsbmSlice(TRIPLES);
  tmp = mkdtempSync(join(tmpdir(), 'quiver-diff-'));
  const file = join(tmp, 'data.nt');
  writeFileSync(file, dataText);
  quiver = openStore({ memory: true });
  await loadFile(quiver, { path: file, format: 'ntriples', gzip: false });
  oxi = new oxigraph.Store();
  oxi.load(dataText, { format: 'application/n-triples' });
  console.log(`differential: ${TRIPLES === Number.MAX_SAFE_INTEGER ? 'all' : TRIPLES} BSBM triples loaded into both engines in ${Date.now() - started} ms`);
});

after(async () => {
  await quiver?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test(`Quiver and Oxigraph agree on ${QUERIES} random queries over BSBM`, { timeout: timeLimit(300_000, 7_200_000) }, async () => {
  const seed = seedFromEnv();
  const random = new Random(seed);
  const data = profile(parseNTriples(dataText));
  const generator = new QueryGenerator(data, random);
  console.log(`differential: seed ${seed} (replay with QUIVER_SEED=${seed}), ${QUERIES} queries over ${data.subjects.length} subjects`);
  const started = Date.now();
  const counts = { compared: 0, skipped: 0, nonEmpty: 0, unoptimizedCompared: 0, disagreements: 0 };
  const reports: string[] = [];
  for (let i = 0; i < QUERIES; i++) {
    if (i > 0 && i % PROGRESS_EVERY === 0)
      console.log(`differential: ${i} queries so far (${JSON.stringify(counts)}), ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const query = generator.generate();
    const verdict = await compare(query);
    if (verdict === 'skipped') {
      counts.skipped++;
      continue;
    }
    counts.compared++;
    if (verdict.nonEmpty) counts.nonEmpty++;
    if (verdict.unoptimized) counts.unoptimizedCompared++;
    if (verdict.problem) {
      counts.disagreements++;
      if (reports.length < 5) reports.push(await minimizedReport(query));
    }
  }
  console.log(
    `differential: ${counts.compared} queries compared (${counts.nonEmpty} with answers, ${counts.unoptimizedCompared} also without the optimizer), ` +
      `${counts.skipped} skipped (over ${ROW_CAP} rows or ${QUERY_MS} ms), ${counts.disagreements} disagreements, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  for (const report of reports) console.log(report);
  assert.equal(counts.disagreements, 0, `disagreements (seed ${seed}):\n${reports.join('\n\n')}`);
  assert.ok(counts.nonEmpty > counts.compared / 4, 'too few queries had answers to test anything');
});

interface Verdict {
  nonEmpty: boolean;
  unoptimized: boolean;
  problem?: string;
}

async function compare(query: GeneratedQuery): Promise<Verdict | 'skipped'> {
  const text = render(query);
  // Quiver first: it has a time limit and stops at the row cap; Oxigraph would compute it all.
  const optimized = await quiverAnswer(text, {});
  if ('skipped' in optimized) return 'skipped';
  const expected = oxigraphAnswer(text);
  if ('skipped' in expected) return 'skipped';
  const problem = difference('Quiver', optimized, expected);
  const unoptimizedAnswer = await quiverAnswer(text, { optimize: false } as EngineQueryOptions);
  const unoptimized = !('skipped' in unoptimizedAnswer);
  const problem2 = unoptimized ? difference('Quiver without optimizer', unoptimizedAnswer, expected) : undefined;
  return { nonEmpty: expected.rows.length > 0, unoptimized, problem: problem ?? problem2 };
}

function difference(name: string, actual: Answer, expected: Answer): string | undefined {
  if ('skipped' in actual || 'skipped' in expected) return undefined;
  if ([...actual.variables].sort().join(' ') !== [...expected.variables].sort().join(' ')) {
    return `${name} variables ${actual.variables.join(' ')}; Oxigraph: ${expected.variables.join(' ')}`;
  }
  const missing = multisetMinus(expected.rows, actual.rows);
  const extra = multisetMinus(actual.rows, expected.rows);
  if (missing.length === 0 && extra.length === 0) return undefined;
  return (
    `${name}: ${actual.rows.length} rows, Oxigraph: ${expected.rows.length} rows\n` +
    `  only Oxigraph (${missing.length}): ${missing.slice(0, 5).join(' | ')}\n` +
    `  only ${name} (${extra.length}): ${extra.slice(0, 5).join(' | ')}`
  );
}

async function quiverAnswer(text: string, options: EngineQueryOptions): Promise<Answer> {
  try {
    const result = await runQuery(quiver, text, { ...options, deadline: Date.now() + QUERY_MS });
    if (result.kind !== 'bindings') throw new Error(`not a SELECT: ${text}`);
    const variables = [...result.variables].sort();
    const index = variables.map((v) => result.variables.indexOf(v));
    const rows: string[] = [];
    for (const batch of result.rows) {
      for (const row of batch) rows.push(rowString(variables, (v) => row[index[variables.indexOf(v)]] as TermLike | undefined));
      if (rows.length > ROW_CAP) return { skipped: 'too many rows' };
    }
    return { variables, rows };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { skipped: 'time limit' };
    throw new Error(`Quiver failed on ${text}: ${(error as Error).message}`, { cause: error });
  }
}

function oxigraphAnswer(text: string): Answer {
  const solutions = oxi.query(text) as Map<string, TermLike>[];
  if (solutions.length > ROW_CAP) return { skipped: 'too many rows' };
  const variables = variablesOf(text, solutions);
  return { variables, rows: solutions.map((s) => rowString(variables, (v) => s.get(v))) };
}

/** Oxigraph's solutions are maps without the unbound variables: the projection comes from the text. */
function variablesOf(text: string, solutions: Map<string, TermLike>[]): string[] {
  const head = /^SELECT (?:DISTINCT )?(.*?) WHERE/.exec(text)![1].replace(/COUNT\([^)]*\)/g, '');
  if (head !== '*') return [...new Set([...head.matchAll(/\?(\w+)/g)].map((m) => m[1]))].sort();
  // The pattern's variables only: one named in ORDER BY alone is not in scope for `*`.
  const where = text.slice(text.indexOf('WHERE'), text.lastIndexOf('}'));
  const names = new Set([...where.matchAll(/\?(\w+)/g)].map((m) => m[1]));
  for (const s of solutions) for (const k of s.keys()) names.add(k);
  return [...names].sort();
}

/** Shrinks the query while the disagreement stays, and describes the smallest one. */
async function minimizedReport(query: GeneratedQuery): Promise<string> {
  let current = query;
  let problem = (await compareForReport(current))!;
  for (let changed = true; changed;) {
    changed = false;
    for (const smaller of shrinkings(current)) {
      const p = await compareForReport(smaller);
      if (p) {
        current = smaller;
        problem = p;
        changed = true;
        break;
      }
    }
  }
  return `DISAGREEMENT\n  query: ${render(current)}\n  (original: ${render(query)})\n  ${problem}`;
}

async function compareForReport(query: GeneratedQuery): Promise<string | undefined> {
  const verdict = await compare(query);
  return verdict === 'skipped' ? undefined : verdict.problem;
}

/** The first `triples` lines of ../shared/bench/bsbm/bsbm-1000.nt.gz (BSBM has no blank nodes). */
function bsbmSlice(triples: number): string {
  const file = resolve(repoRoot(), '../shared/bench/bsbm/bsbm-1000.nt.gz');
  if (!existsSync(file)) throw new Error(`the BSBM data is missing: ${file}`);
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  if (!Number.isFinite(triples) || triples === Number.MAX_SAFE_INTEGER) return text;
  let end = 0;
  for (let n = 0; n < triples && end !== -1; n++) end = text.indexOf('\n', end + 1);
  return end === -1 ? text : text.slice(0, end + 1);
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}
