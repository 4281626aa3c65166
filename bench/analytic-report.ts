/**
 * The analytic workload's report: per shape, each engine's median milliseconds over all instances
 * and rounds and its ratio to the fastest engine on that shape; per engine, the workload's total (the
 * sum of each instance's median); the cross-check of the answers; load and memory. As JSON and
 * Markdown, like the Explore report (report.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { LoadReport } from './engines/engine.js';
import type { ProcessMemory } from './engines/process-memory.js';
import type { InstanceResult } from './analytic-run.js';
import type { MachineInfo } from './machine.js';
import { percentile } from './report.js';

export interface AnalyticEngineReport {
  name: string;
  description: string;
  load: LoadReport;
  memory?: ProcessMemory;
  results: InstanceResult[];
}

export interface AnalyticDisagreement {
  shape: string;
  index: number;
  params: Record<string, unknown>;
  problems: Record<string, string>;
}

export interface AnalyticReport {
  machine: MachineInfo;
  /** Load average (1, 5, 15 min) when the report was made: the machine is shared. */
  loadAverage: number[];
  options: Record<string, unknown>;
  dataset: { path: string; triples?: number };
  shapes: { name: string; title: string }[];
  engines: AnalyticEngineReport[];
  skipped: { name: string; reason: string }[];
  disagreements: AnalyticDisagreement[];
  /** Instances compared across at least two engines. */
  compared: number;
}

export interface ShapeRow {
  shape: string;
  /** Engine → median ms over the shape's measured samples (undefined: none succeeded). */
  medianMs: Record<string, number | undefined>;
  /** Engines whose answer to some instance of the shape differed from the others': not a result. */
  wrong: string[];
  /** The fastest engine among those that answered every instance alike. */
  fastest?: string;
}

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export function shapeRows(report: Pick<AnalyticReport, 'shapes' | 'engines' | 'disagreements'>): ShapeRow[] {
  return report.shapes.map(({ name }) => {
    const medianMs = Object.fromEntries(report.engines.map((e) => [e.name, median(e.results.filter((r) => r.shape === name).flatMap((r) => r.ms))]));
    const wrong = [...new Set(report.disagreements.filter((d) => d.shape === name).flatMap((d) => Object.keys(d.problems)))];
    const answered = Object.entries(medianMs).filter((entry): entry is [string, number] => entry[1] !== undefined && !wrong.includes(entry[0]));
    const fastest = answered.sort((a, b) => a[1] - b[1])[0]?.[0];
    return { shape: name, medianMs, wrong, fastest };
  });
}

/** The workload's time on one engine: the sum of every instance's median; failed instances counted apart. */
export function workloadTotal(engine: AnalyticEngineReport): { ms: number; failed: number } {
  let ms = 0;
  let failed = 0;
  for (const result of engine.results) {
    const m = median(result.ms);
    if (m === undefined) failed++;
    else ms += m;
  }
  return { ms, failed };
}

export function currentLoadAverage(): number[] {
  return loadavg().map((l) => Math.round(l * 100) / 100);
}

const fixed = (n: number | undefined, digits = 1): string => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(digits));
const mib = (bytes: number | undefined): string => (bytes === undefined ? '–' : `${(bytes / 2 ** 20).toFixed(0)} MiB`);

export function renderAnalyticMarkdown(report: AnalyticReport): string {
  const names = report.engines.map((e) => e.name);
  const lines = [`# Analytic workload, ${report.machine.date.slice(0, 10)}`, ''];
  lines.push(...renderCheck(report), '');
  lines.push(
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, ${report.machine.os}, Node ${report.machine.node}; load average at the end ${report.loadAverage.join(' ')} (a shared machine: compare the ratios within this run).`,
  );
  lines.push(`Dataset: \`${report.dataset.path}\`. Options: \`${JSON.stringify(report.options)}\`.`, '');
  lines.push('## Engines', '');
  for (const e of report.engines) lines.push(`- **${e.name}**: ${e.description}`);
  for (const s of report.skipped) lines.push(`- ${s.name}: skipped, ${s.reason}`);
  lines.push(
    '',
    '## Load and memory',
    '',
    '| engine | triples | load s | triples/s | store bytes/triple | peak server RSS | load method |',
    '|---|---:|---:|---:|---:|---:|---|',
  );
  for (const e of report.engines) {
    const l = e.load;
    lines.push(
      `| ${e.name} | ${l.triples} | ${fixed(l.seconds)} | ${fixed(l.triplesPerSecond, 0)} | ${fixed(l.bytesPerTriple)} | ${mib(e.memory?.peakRssBytes)} | ${l.method} |`,
    );
  }
  lines.push('', '## Median ms per shape (ratio to the fastest engine on it)', '');
  lines.push(
    'Ratios are to the fastest engine whose answers agree; a time marked *wrong* is an engine whose answer to some instance differed (see the cross-check above), never counted as the fastest.',
    '',
  );
  lines.push(`| shape | ${names.join(' | ')} | fastest |`, `|---|${names.map(() => '---:').join('|')}|---|`);
  const titles = new Map(report.shapes.map((s) => [s.name, s.title]));
  for (const row of shapeRows(report)) {
    const best = row.fastest ? row.medianMs[row.fastest]! : undefined;
    const cells = names.map((n) => {
      const ms = row.medianMs[n];
      if (ms === undefined) return 'failed';
      return `${fixed(ms)} (${fixed(best ? ms / best : undefined, 2)})${row.wrong.includes(n) ? ' *wrong*' : ''}`;
    });
    lines.push(`| ${row.shape} ${titles.get(row.shape)} | ${cells.join(' | ')} | ${row.fastest ?? '–'} |`);
  }
  const totals = report.engines.map((e) => workloadTotal(e));
  lines.push(
    `| **total** (sum of instance medians) | ${totals.map((t) => `**${fixed(t.ms, 0)}**${t.failed ? ` + ${t.failed} failed` : ''}`).join(' | ')} | |`,
    '',
  );
  return lines.join('\n');
}

function renderCheck(report: AnalyticReport): string[] {
  if (report.disagreements.length === 0)
    return [`Answers: all ${report.compared} instances agree across the engines (rows in order where the shape orders them, numbers within 1e-6).`];
  const lines = [`## ⚠ ANSWERS DISAGREE OR FAIL (${report.disagreements.length} instances of ${report.compared})`, ''];
  for (const d of report.disagreements) {
    lines.push(
      `- ${d.shape} #${d.index}: ${Object.entries(d.problems)
        .map(([engine, why]) => `${engine}: ${why}`)
        .join('; ')}`,
    );
  }
  return lines;
}

export function consoleAnalyticSummary(report: AnalyticReport): string {
  const lines = report.engines.map((e) => {
    const total = workloadTotal(e);
    return `${e.name.padEnd(9)} analytic total ${fixed(total.ms, 0).padStart(8)} ms${total.failed ? `, ${total.failed} instances failed` : ''}`;
  });
  lines.push(...renderCheck(report));
  return lines.join('\n');
}

export function writeAnalyticReports(outDir: string, name: string, reports: AnalyticReport[]): { json: string; markdown: string } {
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, `${name}.json`);
  const markdown = join(outDir, `${name}.md`);
  writeFileSync(json, JSON.stringify(reports.length === 1 ? reports[0] : { datasets: reports }, null, 2) + '\n');
  writeFileSync(markdown, reports.map(renderAnalyticMarkdown).join('\n'));
  return { json, markdown };
}
