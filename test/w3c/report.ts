/**
 * The run's summary: a table per suite folder, the skip reasons, and the failures checked against
 * known-failures.json (a list that must stay true: a listed test that passes is reported too).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, type SuiteRun, type TestResult } from './runner.js';

/** Test id → why it is expected to fail. */
export type KnownFailures = Record<string, string>;

/** The list lives in the source tree (the build does not copy JSON). */
export function knownFailuresFile(): string {
  return path.join(repoRoot(), 'test/w3c/known-failures.json');
}

export function readKnownFailures(file: string): KnownFailures {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${path.basename(file)} must be an object of test id → reason`);
  }
  return parsed as KnownFailures;
}

export interface Assessment {
  /** Failed and not listed: these make the run fail. */
  unexpectedFailures: TestResult[];
  /** Listed and failed as expected. */
  knownFailures: TestResult[];
  /** Listed but passed: the list must lose them. */
  fixed: TestResult[];
  /** Listed ids that did not run at all (skipped or unknown); only meaningful for a full run. */
  notRun: string[];
}

export function assess(run: SuiteRun, known: KnownFailures): Assessment {
  const ran = new Map(run.results.filter((r) => r.status !== 'skip').map((r) => [r.test.id, r]));
  return {
    unexpectedFailures: run.results.filter((r) => r.status === 'fail' && !(r.test.id in known)),
    knownFailures: run.results.filter((r) => r.status === 'fail' && r.test.id in known),
    fixed: run.results.filter((r) => r.status === 'pass' && r.test.id in known),
    notRun: Object.keys(known).filter((id) => !ran.has(id)),
  };
}

interface Counts {
  pass: number;
  fail: number;
  known: number;
  skip: number;
}

function countsBySuite(run: SuiteRun, known: KnownFailures): Map<string, Counts> {
  const bySuite = new Map<string, Counts>();
  for (const r of run.results) {
    let counts = bySuite.get(r.test.suite);
    if (!counts) bySuite.set(r.test.suite, (counts = { pass: 0, fail: 0, known: 0, skip: 0 }));
    if (r.status === 'fail' && r.test.id in known) counts.known++;
    else counts[r.status]++;
  }
  return bySuite;
}

export function summaryTable(run: SuiteRun, known: KnownFailures): string {
  const bySuite = countsBySuite(run, known);
  const suites = [...bySuite.keys()].sort();
  const total: Counts = { pass: 0, fail: 0, known: 0, skip: 0 };
  const width = Math.max(12, ...suites.map((s) => s.length));
  const line = (name: string, c: Counts) =>
    `${name.padEnd(width)} ${String(c.pass).padStart(5)} ${String(c.fail).padStart(5)} ${String(c.known).padStart(6)} ${String(c.skip).padStart(5)}`;
  const lines = [`${'suite'.padEnd(width)}  pass  fail  known  skip`];
  for (const suite of suites) {
    const c = bySuite.get(suite)!;
    lines.push(line(suite, c));
    for (const k of Object.keys(total) as (keyof Counts)[]) total[k] += c[k];
  }
  lines.push('-'.repeat(width + 25), line('total', total));
  return lines.join('\n');
}

export function skipSummary(run: SuiteRun): string {
  const byReason = new Map<string, number>();
  for (const r of run.results) if (r.status === 'skip') byReason.set(r.reason!, (byReason.get(r.reason!) ?? 0) + 1);
  const lines = ['Skipped:'];
  for (const [reason, n] of [...byReason].sort((a, b) => b[1] - a[1])) lines.push(`  ${String(n).padStart(4)}  ${reason}`);
  lines.push('  (not loaded: sparql10/extended-manifest-evaluation.ttl, an optional extension outside the standard suites)');
  return lines.join('\n');
}

/** One line: how many passed, failed (and how many of those are known), were skipped. */
export function totalsLine(run: SuiteRun, known: KnownFailures): string {
  const a = assess(run, known);
  const passed = run.results.filter((r) => r.status === 'pass').length;
  const skipped = run.results.filter((r) => r.status === 'skip').length;
  return `${passed} passed, ${a.unexpectedFailures.length} failed, ${a.knownFailures.length} known failures, ${skipped} skipped, ${(run.elapsedMs / 1000).toFixed(1)} s`;
}

export function failureLine(r: TestResult): string {
  return `  ${r.test.id}  "${r.test.name}": ${r.reason}`;
}

export function fullReport(run: SuiteRun, known: KnownFailures, options: { verbose?: boolean; fullRun?: boolean } = {}): string {
  const a = assess(run, known);
  const ranCount = run.results.filter((r) => r.status !== 'skip').length;
  const parts = [
    `W3C SPARQL and RDF 1.2 test suites: ${run.manifests.length} manifests, ${run.results.length} tests selected, ${ranCount} run, ${(run.elapsedMs / 1000).toFixed(1)} s`,
    '',
    summaryTable(run, known),
    '',
    skipSummary(run),
  ];
  if (a.knownFailures.length > 0) {
    parts.push('', `Known failures (${a.knownFailures.length}, listed in known-failures.json):`);
    for (const r of a.knownFailures) {
      parts.push(failureLine(r));
      if (options.verbose && r.details) parts.push(indent(r.details, '      '), '');
    }
  }
  if (a.fixed.length > 0) {
    parts.push('', `Listed as known failures but now PASS (${a.fixed.length}): remove them from known-failures.json`);
    parts.push(...a.fixed.map((r) => `  ${r.test.id}`));
  }
  if (options.fullRun && a.notRun.length > 0) {
    parts.push('', `Listed as known failures but not run (${a.notRun.length}): remove or fix the ids`);
    parts.push(...a.notRun.map((id) => `  ${id}`));
  }
  if (a.unexpectedFailures.length > 0) {
    parts.push('', `FAILURES (${a.unexpectedFailures.length}):`);
    for (const r of a.unexpectedFailures) {
      parts.push(failureLine(r));
      if (options.verbose && r.details) parts.push(indent(r.details, '      '), '');
    }
  }
  return parts.join('\n');
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}
