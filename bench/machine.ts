/** The machine a run was measured on: figures mean little without it. */
import { readFileSync } from 'node:fs';
import { cpus, totalmem, release, platform } from 'node:os';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  date: string;
}

export function describeMachine(): MachineInfo {
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()}`,
    node: process.version,
    date: new Date().toISOString(),
  };
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1].trim();
  } catch {
    // not Linux: fall back to what Node reports
  }
  return cpus()[0]?.model ?? 'unknown';
}
