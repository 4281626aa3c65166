/**
 * Telling a full disk from other write failures. LMDB writes its pages with pwrite and grows its
 * file as it goes; when the filesystem has no room, lmdb-js throws a plain Error whose `code` is the
 * errno: ENOSPC (28) where the kernel says so, but on tmpfs and others EIO (5), "Input/output
 * error", sometimes followed by lmdb-js's own words ("Attempting to setup locks after open"). A
 * full LMDB map is MDB_MAP_FULL (-30792; lmdb-js grows the map by itself, so it is rare). EIO is
 * also what a failing disk says, so it counts as "full" only when the filesystem really has little
 * room left. The failed transaction was aborted as a whole: nothing of it is in the store.
 */
import { statfsSync } from 'node:fs';
import { StorageFullError } from '../errors.js';

const ENOSPC = 28;
const EIO = 5;
const MDB_MAP_FULL = -30792;

/** Free space under which a disk counts as full: 64 MiB, or 5% of a smaller filesystem. */
const ROOM_BYTES = 64 * 2 ** 20;
const ROOM_SHARE = 0.05;

/** The error a failed write should be reported as: a StorageFullError when the disk or map is full, else the error itself. */
export function storageErrorOf(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : '';
  if (code === MDB_MAP_FULL || text.includes('MDB_MAP_FULL')) {
    return new StorageFullError(`the store is full: its LMDB map reached its size limit (${path}); nothing of this write was kept`);
  }
  const noSpace = code === ENOSPC || /no space left on device/i.test(text);
  const ioError = code === EIO || /input\/output error/i.test(text);
  if (noSpace || (ioError && !hasRoomToWrite(path))) {
    return new StorageFullError(
      `the disk of the store is full (${describeFreeSpace(path)} free at ${path}); nothing of this write was kept, and writes work again once there is room`,
    );
  }
  return error;
}

/** Whether the filesystem of `path` has room to write again (true when that cannot be told). */
export function hasRoomToWrite(path: string): boolean {
  const space = freeSpace(path);
  if (space === undefined) return true;
  return space.free >= Math.min(ROOM_BYTES, space.total * ROOM_SHARE);
}

function freeSpace(path: string): { free: number; total: number } | undefined {
  try {
    const stats = statfsSync(path);
    return { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
  } catch {
    return undefined;
  }
}

function describeFreeSpace(path: string): string {
  const space = freeSpace(path);
  if (space === undefined) return 'no room';
  return space.free < 2 ** 20 ? `${Math.round(space.free / 1024)} KiB` : `${Math.round(space.free / 2 ** 20)} MiB`;
}
