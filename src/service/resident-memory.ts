/**
 * How much memory the process holds that the system cannot take back by itself: on Linux, the
 * anonymous pages (heaps, buffers) and shared memory (a store on tmpfs) of /proc/self/status.
 * Pages of files the process maps (the store's LMDB file) are left out: the kernel drops them
 * under pressure and reads them again, so they do not bring on the OOM killer; counting them would
 * hold queries back for as long as a large store sits in the page cache. Elsewhere, the resident
 * set size, which includes them.
 */
import { readFileSync } from 'node:fs';

const STATUS = '/proc/self/status';
let procReadable = process.platform === 'linux';

export function residentBytes(): number {
  if (procReadable) {
    try {
      return unreclaimableBytes(readFileSync(STATUS, 'latin1'));
    } catch {
      procReadable = false;
    }
  }
  return process.memoryUsage.rss();
}

/** RssAnon + RssShmem of a /proc/<pid>/status text, in bytes. */
export function unreclaimableBytes(status: string): number {
  const anon = kilobytes(status, 'RssAnon');
  const shmem = kilobytes(status, 'RssShmem');
  if (anon === undefined) throw new Error('no RssAnon in the process status');
  return (anon + (shmem ?? 0)) * 1024;
}

function kilobytes(status: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : undefined;
}
