/**
 * Top self-time functions of V8 CPU profiles (`node --cpu-prof`), per profile file (one per thread:
 * the Quiver server writes one for its main thread and one per query worker).
 *
 *   node dist/bench/profile-summary.js [--top N] FILE.cpuprofile|DIR ...
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  /** file:line, relative to the repo where possible. */
  where: string;
  selfMs: number;
  /** Share of the busy (non-idle) time. */
  selfPercent: number;
}

export interface ProfileSummary {
  file: string;
  busyMs: number;
  idleMs: number;
  functions: HotSpot[];
  /** Self time per source file: which module the time goes to. */
  files: HotSpot[];
}

const IDLE = new Set(['(idle)', '(program)']);

export function summarizeProfile(file: string, top = 25, root = process.cwd()): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, { name: string; where: string; us: number }>();
  const byFile = new Map<string, { name: string; where: string; us: number }>();
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (IDLE.has(frame.functionName)) {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const source = shortUrl(frame.url, root);
    const where = source ? `${source}:${frame.lineNumber + 1}` : '';
    const name = frame.functionName || '(anonymous)';
    add(byFunction, `${name}@${where}`, name, where, us);
    add(byFile, source || name, source || name, '', us);
  }
  const rank = (m: Map<string, { name: string; where: string; us: number }>): HotSpot[] =>
    [...m.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((h) => ({ name: h.name, where: h.where, selfMs: h.us / 1000, selfPercent: busyUs ? (100 * h.us) / busyUs : 0 }));
  return { file, busyMs: busyUs / 1000, idleMs: idleUs / 1000, functions: rank(byFunction), files: rank(byFile) };
}

function add(map: Map<string, { name: string; where: string; us: number }>, key: string, name: string, where: string, us: number): void {
  const entry = map.get(key);
  if (entry) entry.us += us;
  else map.set(key, { name, where, us });
}

function shortUrl(url: string, root: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  return path.startsWith('/') ? relative(root, path) : path;
}

/** Profile files under the given paths (directories are searched one level). */
export function profileFiles(paths: string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => join(p, f))
      : [p],
  );
}

export function renderSummary(summary: ProfileSummary, top = 15): string {
  const lines = [`${basename(summary.file)}: busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`];
  for (const h of summary.functions.slice(0, top))
    lines.push(`  ${h.selfPercent.toFixed(1).padStart(5)}%  ${h.selfMs.toFixed(0).padStart(7)} ms  ${h.name}  ${h.where}`);
  lines.push('  by file:');
  for (const h of summary.files.slice(0, 8)) lines.push(`  ${h.selfPercent.toFixed(1).padStart(5)}%  ${h.selfMs.toFixed(0).padStart(7)} ms  ${h.name}`);
  return lines.join('\n');
}

function main(argv: string[]): void {
  let top = 15;
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--top') top = Number(argv[++i]);
    else paths.push(argv[i]);
  }
  if (paths.length === 0) {
    process.stderr.write('usage: node dist/bench/profile-summary.js [--top N] FILE.cpuprofile|DIR ...\n');
    process.exitCode = 2;
    return;
  }
  const summaries = profileFiles(paths)
    .map((f) => summarizeProfile(f, top))
    .sort((a, b) => b.busyMs - a.busyMs);
  process.stdout.write(summaries.map((s) => renderSummary(s, top)).join('\n\n') + '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main(process.argv.slice(2));
