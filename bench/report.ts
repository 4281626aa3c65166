/**
 * The benchmark report: throughput (QMpH, BSBM's query mixes per hour), per-query latency, load
 * figures, memory, the answer cross-check, and the machine; as JSON (for tools) and Markdown.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnswerCheck, Disagreement } from './answer-check.js';
import type { LoadReport } from './engines/engine.js';
import type { ProcessMemory } from './engines/process-memory.js';
import type { DriverRun } from './http-driver.js';
import type { MachineInfo } from './machine.js';

export const QUERY_NAMES = Array.from({ length: 12 }, (_, i) => 'q' + String(i + 1).padStart(2, '0'));

export interface QueryLatency {
  count: number;
  medianMs: number;
  p95Ms: number;
  meanMs: number;
  maxMs: number;
}

export interface RunSummary {
  clients: number;
  mixes: number;
  wallSeconds: number;
  /** Query mixes per hour. */
  qmph: number;
  errors: number;
  perQuery: Record<string, QueryLatency>;
}

export interface EngineReport {
  name: string;
  description: string;
  load: LoadReport;
  /** Of the server process, read after all its runs. */
  memory?: ProcessMemory;
  runs: RunSummary[];
}

export interface QmphRatio {
  clients: number;
  peer: string;
  quiverQmph: number;
  peerQmph: number;
  /** Quiver / peer: above 1, Quiver is faster. */
  ratio: number;
}

export interface BenchReport {
  machine: MachineInfo;
  options: Record<string, unknown>;
  dataset: { path: string; products?: number; stats: unknown };
  engines: EngineReport[];
  skipped: { name: string; reason: string }[];
  ratios: QmphRatio[];
  answers: AnswerCheck;
}

export function summarizeRun(run: DriverRun): RunSummary {
  const perQuery: Record<string, QueryLatency> = {};
  for (const name of QUERY_NAMES) {
    const times = run.samples.filter((s) => s.query === name && s.error === undefined).map((s) => s.ms);
    if (times.length > 0) perQuery[name] = latency(times);
  }
  return {
    clients: run.clients,
    mixes: run.mixes,
    wallSeconds: run.wallSeconds,
    qmph: (run.mixes * 3600) / run.wallSeconds,
    errors: run.samples.filter((s) => s.error !== undefined).length,
    perQuery,
  };
}

function latency(times: number[]): QueryLatency {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    count: sorted.length,
    medianMs: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    meanMs: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    maxMs: sorted[sorted.length - 1],
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function qmphRatios(engines: EngineReport[]): QmphRatio[] {
  const quiver = engines.find((e) => e.name === 'quiver');
  if (!quiver) return [];
  return engines
    .filter((e) => e !== quiver)
    .flatMap((peer) =>
      quiver.runs.flatMap((q) => {
        const p = peer.runs.find((r) => r.clients === q.clients);
        return p ? [{ clients: q.clients, peer: peer.name, quiverQmph: q.qmph, peerQmph: p.qmph, ratio: q.qmph / p.qmph }] : [];
      }),
    );
}

export function writeReport(outDir: string, name: string, report: BenchReport): { json: string; markdown: string } {
  return writeReports(outDir, name, [report]);
}

/** One dataset: its report as before. Several: {datasets, scaling} and one Markdown file with the scaling first. */
export function writeReports(outDir: string, name: string, reports: BenchReport[]): { json: string; markdown: string } {
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, `${name}.json`);
  const markdown = join(outDir, `${name}.md`);
  const scaling = scalingRows(reports);
  writeFileSync(json, JSON.stringify(reports.length === 1 ? reports[0] : { datasets: reports, scaling }, null, 2) + '\n');
  const sections = reports.map((r) => renderMarkdown(r));
  writeFileSync(markdown, (scaling.length > 0 ? renderScaling(scaling).join('\n') + '\n\n' : '') + sections.join('\n'));
  return { json, markdown };
}

export interface ScalingRow {
  engine: string;
  clients: number;
  fromProducts: number;
  toProducts: number;
  fromQmph: number;
  toQmph: number;
  /** toQmph / fromQmph: 0.6 means the larger dataset runs 40% fewer mixes per hour. */
  ratio: number;
}

/** Each engine's QMpH on each larger dataset against the smallest, at the same client count. */
export function scalingRows(reports: BenchReport[]): ScalingRow[] {
  const sized = reports.filter((r) => r.dataset.products !== undefined).sort((a, b) => a.dataset.products! - b.dataset.products!);
  if (sized.length < 2) return [];
  const [base, ...larger] = sized;
  return larger.flatMap((report) =>
    report.engines.flatMap((engine) =>
      engine.runs.flatMap((run) => {
        const before = base.engines.find((e) => e.name === engine.name)?.runs.find((r) => r.clients === run.clients);
        if (!before) return [];
        return [
          {
            engine: engine.name,
            clients: run.clients,
            fromProducts: base.dataset.products!,
            toProducts: report.dataset.products!,
            fromQmph: before.qmph,
            toQmph: run.qmph,
            ratio: run.qmph / before.qmph,
          },
        ];
      }),
    ),
  );
}

export function renderScaling(rows: ScalingRow[]): string[] {
  const lines = [
    '## QMpH from the smallest dataset to the larger ones',
    '',
    '| engine | clients | products | QMpH | products | QMpH | larger/smaller | drop |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.engine} | ${r.clients} | ${r.fromProducts} | ${fixed(r.fromQmph, 0)} | ${r.toProducts} | ${fixed(r.toQmph, 0)} | ${fixed(r.ratio, 2)} | ${fixed((1 - r.ratio) * 100, 0)}% |`,
    );
  }
  return lines;
}

const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const mib = (bytes: number | undefined): string => (bytes === undefined || !Number.isFinite(bytes) ? '–' : `${fixed(bytes / 2 ** 20, 0)} MiB`);

export function renderMarkdown(report: BenchReport): string {
  const size = report.dataset.products ? `, ${report.dataset.products} products` : '';
  const lines: string[] = [`# BSBM Explore benchmark, ${report.machine.date.slice(0, 10)}${size}`, ''];
  lines.push(...renderAnswerCheck(report.answers), '');
  lines.push(
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, ${report.machine.os}, Node ${report.machine.node}.`,
  );
  lines.push(
    `Dataset: \`${report.dataset.path}\`${report.dataset.products ? ` (${report.dataset.products} products)` : ''}. Options: \`${JSON.stringify(report.options)}\`.`,
    '',
  );
  lines.push('## Engines', '');
  for (const e of report.engines) lines.push(`- **${e.name}**: ${e.description}`);
  for (const s of report.skipped) lines.push(`- ${s.name}: skipped, ${s.reason}`);
  lines.push(
    '',
    '## Load and memory',
    '',
    '| engine | triples | load s | triples/s | store bytes/triple | peak server RSS | RSS at end | load method |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const e of report.engines) {
    const l = e.load;
    lines.push(
      `| ${e.name} | ${l.triples} | ${fixed(l.seconds)} | ${fixed(l.triplesPerSecond, 0)} | ${l.bytesPerTriple === undefined ? '–' : fixed(l.bytesPerTriple)} | ${mib(e.memory?.peakRssBytes)} | ${mib(e.memory?.rssBytes)} | ${l.method} |`,
    );
  }
  lines.push('', '## Throughput (QMpH: query mixes per hour)', '', '| engine | clients | mixes | seconds | QMpH | errors |', '|---|---:|---:|---:|---:|---:|');
  for (const e of report.engines)
    for (const r of e.runs) lines.push(`| ${e.name} | ${r.clients} | ${r.mixes} | ${fixed(r.wallSeconds)} | ${fixed(r.qmph, 0)} | ${r.errors} |`);
  if (report.ratios.length > 0) {
    lines.push('');
    for (const r of report.ratios)
      lines.push(`- ${r.clients} client(s): Quiver/${r.peer} QMpH = ${fixed(r.quiverQmph, 0)} / ${fixed(r.peerQmph, 0)} = **${fixed(r.ratio, 2)}**`);
  }
  const clientCounts = [...new Set(report.engines.flatMap((e) => e.runs.map((r) => r.clients)))];
  for (const clients of clientCounts) lines.push('', ...renderLatencies(report.engines, clients));
  lines.push('');
  return lines.join('\n');
}

function renderLatencies(engines: EngineReport[], clients: number): string[] {
  const runs = engines.map((e) => ({ name: e.name, run: e.runs.find((r) => r.clients === clients) }));
  const head = runs.map((r) => `${r.name} median | ${r.name} p95`).join(' | ');
  const quiver = runs.find((r) => r.name === 'quiver');
  const peers = runs.filter((r) => r.name !== 'quiver');
  const ratioHead = quiver ? peers.map((p) => `median ${p.name}/quiver`).join(' | ') : '';
  const lines = [`## Latency per query, ${clients} client(s), ms`, '', `| query | ${head}${ratioHead ? ' | ' + ratioHead : ''} |`];
  lines.push(`|---|${runs.map(() => '---:|---:').join('|')}|${ratioHead ? peers.map(() => '---:').join('|') + '|' : ''}`);
  for (const name of QUERY_NAMES) {
    const cells = runs.map((r) => {
      const q = r.run?.perQuery[name];
      return q ? `${fixed(q.medianMs)} | ${fixed(q.p95Ms)}` : '– | –';
    });
    if (cells.every((c) => c === '– | –')) continue;
    const ratios = quiver
      ? peers.map((p) => {
          const a = p.run?.perQuery[name]?.medianMs;
          const b = quiver.run?.perQuery[name]?.medianMs;
          return a !== undefined && b !== undefined ? fixed(a / b, 2) : '–';
        })
      : [];
    lines.push(`| ${name.toUpperCase()} | ${cells.join(' | ')}${ratios.length ? ' | ' + ratios.join(' | ') : ''} |`);
  }
  if (quiver) lines.push('', 'A ratio below 1: the peer answers that query faster than Quiver.');
  return lines;
}

function renderAnswerCheck(check: AnswerCheck): string[] {
  const lines: string[] = [];
  const bad = check.rowCountDisagreements.length + check.contentDisagreements.length + check.failures.length;
  if (bad === 0)
    return [`Answers: all ${check.compared} query instances agree across engines and client counts (row counts, and rows where the answer is determined).`];
  lines.push(`## ⚠ ANSWERS DISAGREE (${bad} query instances)`, '');
  lines.push(`Compared ${check.compared} query instances. A fast wrong answer is a bug; these need a look before any figure below means anything.`, '');
  const section = (title: string, items: Disagreement[]): void => {
    if (items.length === 0) return;
    lines.push(`### ${title} (${items.length})`, '');
    for (const d of items) {
      const answers = Object.entries(d.answers)
        .map(([run, a]) => `${run}: ${a}`)
        .join('; ');
      lines.push(`- ${d.query.toUpperCase()} mix ${d.mix} #${d.seq} \`${JSON.stringify(d.params)}\` → ${answers}`);
    }
    lines.push('');
  };
  section('Row counts differ', check.rowCountDisagreements);
  section('Same counts, different rows (no LIMIT, so the rows are determined)', check.contentDisagreements);
  section('Failed requests', check.failures);
  return lines;
}

/** The lines the harness prints at the end. */
export function consoleSummary(report: BenchReport): string {
  const lines: string[] = [];
  for (const e of report.engines)
    for (const r of e.runs)
      lines.push(
        `${e.name.padEnd(9)} ${String(r.clients).padStart(2)} client(s): ${fixed(r.qmph, 0).padStart(7)} QMpH (${r.mixes} mixes in ${fixed(r.wallSeconds)} s, ${r.errors} errors)`,
      );
  for (const r of report.ratios) lines.push(`Quiver/${r.peer} QMpH at ${r.clients} client(s): ${fixed(r.ratio, 2)}`);
  lines.push(...renderAnswerCheck(report.answers).filter((l) => l.length > 0));
  return lines.join('\n');
}
