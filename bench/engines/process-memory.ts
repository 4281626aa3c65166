/**
 * Memory of a server process as the kernel accounts it (Linux /proc). VmHWM is the peak resident
 * set since the process started, so reading it once before stopping the server catches the peak
 * without sampling; it includes the pages of memory-mapped files the process touched (LMDB).
 */
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Peak resident set size, bytes. */
  peakRssBytes: number;
  /** Resident set size now, bytes. */
  rssBytes: number;
}

export function processMemory(pid: number): ProcessMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined; // not Linux, or the process is gone
  }
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { peakRssBytes: kib('VmHWM'), rssBytes: kib('VmRSS') };
}
