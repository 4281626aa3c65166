/**
 * Who has a store open, across threads and processes: every open handle holds a SHARED claim, and a
 * staged load (staged-load.ts) takes an EXCLUSIVE one besides, which it gets only when no other handle
 * anywhere has the store open. A staged load commits several transactions, keeps the next term ID and
 * the statistics in memory between them and undoes itself by clearing the store, so it is safe only
 * when nothing else reads or writes the store meanwhile; every other write is one LMDB transaction,
 * and LMDB already serializes those across processes.
 *
 * The mechanism: one empty file per claim in <store>/holders, created with O_EXCL, its name saying
 * whose it is (pid, the process's start time, the boot and the PID namespace) and which kind. Each
 * party first creates its own file and then lists the directory: a shared claim that sees a live
 * exclusive one withdraws (and retries briefly, then gives up with StoreInUseError); an exclusive claim
 * that sees any other live claim withdraws (the loader then loads in one transaction instead). Of two
 * parties that create their files in either order, the later one's listing sees the earlier one's file,
 * so they never both go ahead; both may withdraw, which is safe.
 *
 * Why not something else:
 *  - Node has no flock/fcntl locks; a lock that needs a native addon is more to build and ship.
 *  - A single lock file (O_EXCL, PID inside) needs a stale lock to be removed and recreated by whoever
 *    finds it stale, and two processes doing so at once can both end up believing they hold it. Here a
 *    claim file is never recreated under the same name (each has a random token), so removing a stale
 *    one is idempotent and needs no coordination, and nothing is ever read out of a half-written file
 *    (everything is in the name, created atomically).
 *  - LMDB's own locks: its write mutex (robust: freed when its owner dies) lasts one transaction, not
 *    the minutes of a staged load, and its reader table lists read transactions, not open handles.
 *  - Keeping the claims inside LMDB would need a write transaction to open a store (which waits for a
 *    running load's transaction) and is impossible for a read-only handle.
 * Stale claims (SIGKILL, a crash, power loss) are claims whose process is gone: the pid no longer runs,
 * or runs a different process (another start time, or a zombie), or the machine has rebooted since.
 * They are ignored and removed by whoever lists them. A claim of another PID namespace (a container
 * sharing the directory) cannot be checked and counts as live: the error names its file, which an
 * operator may remove once sure that process is gone.
 *
 * Every process on one machine must use this module (as every Quiver command does); a store on a
 * network file system is out of scope, as it is for LMDB itself.
 */
import { mkdirSync, readdirSync, readFileSync, readlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The subdirectory of a store holding the claims. */
export const HOLDERS_DIRECTORY = 'holders';
/**
 * How long opening a store waits for an exclusive claim to go away before refusing: long enough for a
 * loader that found the store shared to withdraw, far too short to wait for a load.
 */
const SHARED_WAIT_MS = 500;
const RETRY_MS = 10;

type ClaimKind = 'shared' | 'exclusive';

/** A process, as far as it can be told apart from a later one with the same pid. */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/PID/stat); '' where unknown. */
  start: string;
  /** Linux boot id; '' where unknown. */
  boot: string;
  /** The PID namespace's inode; '' where unknown. */
  pidNamespace: string;
}

interface Claim extends ProcessIdentity {
  file: string;
  token: string;
  kind: ClaimKind;
}

/** The store is bulk-loaded by another process, which must be its only user meanwhile. */
export class StoreInUseError extends Error {
  constructor(
    readonly path: string,
    readonly holder: ProcessIdentity,
    readonly claimFile: string,
  ) {
    super(
      `the store at ${path} is being bulk-loaded by process ${holder.pid} (quiver load into an empty store has the store to itself ` +
        `until it ends); try again when it has finished (its claim: ${claimFile})`,
    );
    this.name = 'StoreInUseError';
  }
}

export class StoreLock {
  private exclusive: string | undefined;
  private released = false;

  private constructor(
    private readonly directory: string | undefined,
    private readonly token: string,
    private readonly shared: string | undefined,
  ) {}

  /**
   * A shared claim on the store at `path` (the directory exists for a writable open). Throws
   * StoreInUseError while a live exclusive claim stays. A read-only handle on a directory it cannot
   * write gets no claim (it cannot disturb anybody; it may see a bulk load half way).
   */
  static acquireShared(path: string, readOnly: boolean): StoreLock {
    const directory = join(path, HOLDERS_DIRECTORY);
    try {
      // Not recursive for a read-only open: that must not create a missing store.
      mkdirSync(directory, { recursive: !readOnly });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (readOnly && code !== 'EEXIST' && isUnwritable(code)) return new StoreLock(undefined, '', undefined);
      if (code !== 'EEXIST') throw error;
    }
    const token = claimToken();
    const deadline = Date.now() + SHARED_WAIT_MS;
    for (;;) {
      let file: string;
      try {
        file = createClaim(directory, token, 'shared');
      } catch (error) {
        if (readOnly && isUnwritable((error as NodeJS.ErrnoException).code)) return new StoreLock(undefined, '', undefined);
        throw error;
      }
      const blocking = liveClaims(directory).find((claim) => claim.kind === 'exclusive' && claim.token !== token);
      if (blocking === undefined) return new StoreLock(directory, token, file);
      removeFile(file);
      if (Date.now() >= deadline) throw new StoreInUseError(path, blocking, join(directory, blocking.file));
      sleep(RETRY_MS);
    }
  }

  /**
   * Takes the exclusive claim when no other handle, in any thread or process, has the store open;
   * otherwise returns the pids of those that do (and takes nothing).
   */
  tryExclusive(): number[] | undefined {
    if (this.released) throw new Error('the store is closed');
    if (this.exclusive !== undefined) return undefined;
    if (this.directory === undefined) return [];
    const file = createClaim(this.directory, this.token, 'exclusive');
    const others = liveClaims(this.directory).filter((claim) => claim.token !== this.token);
    if (others.length > 0) {
      removeFile(file);
      return [...new Set(others.map((claim) => claim.pid))];
    }
    this.exclusive = file;
    return undefined;
  }

  releaseExclusive(): void {
    if (this.exclusive === undefined) return;
    removeFile(this.exclusive);
    this.exclusive = undefined;
  }

  /** Gives up every claim of this handle (it is closing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.releaseExclusive();
    if (this.shared !== undefined) removeFile(this.shared);
  }
}

function createClaim(directory: string, token: string, kind: ClaimKind): string {
  const self = currentProcess();
  const name = [self.pid, self.start || 'x', self.boot || 'x', self.pidNamespace || 'x', token, kind].join('.');
  writeFileSync(join(directory, name), '', { flag: 'wx' });
  return join(directory, name);
}

/** The claims of live processes; stale ones are removed on the way. */
function liveClaims(directory: string): Claim[] {
  const live: Claim[] = [];
  for (const file of readdirSync(directory)) {
    const claim = parseClaim(file);
    if (claim === undefined) continue;
    if (isAlive(claim)) live.push(claim);
    else removeFile(join(directory, file));
  }
  return live;
}

function parseClaim(file: string): Claim | undefined {
  const parts = file.split('.');
  if (parts.length !== 6) return undefined;
  const [pid, start, boot, pidNamespace, token, kind] = parts;
  if (!/^\d+$/.test(pid) || (kind !== 'shared' && kind !== 'exclusive')) return undefined;
  const known = (value: string) => (value === 'x' ? '' : value);
  return { file, pid: Number(pid), start: known(start), boot: known(boot), pidNamespace: known(pidNamespace), token, kind };
}

let self: ProcessIdentity | undefined;

export function currentProcess(): ProcessIdentity {
  self ??= {
    pid: process.pid,
    start: processStat(process.pid)?.start ?? '',
    boot: readText('/proc/sys/kernel/random/boot_id').replace(/[^0-9a-f-]/gi, ''),
    pidNamespace: pidNamespaceOf('self'),
  };
  return self;
}

/**
 * Whether the process still runs. Unknown fields are not compared; a process of another PID
 * namespace cannot be looked up and counts as running.
 */
export function isAlive(owner: Partial<ProcessIdentity> & { pid: number }): boolean {
  const me = currentProcess();
  if (owner.boot && me.boot && owner.boot !== me.boot) return false;
  if (owner.pidNamespace && me.pidNamespace && owner.pidNamespace !== me.pidNamespace) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: it exists, and belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = processStat(owner.pid);
  if (stat === undefined) return true;
  if (stat.zombie) return false;
  return !owner.start || owner.start === stat.start;
}

/** From /proc/PID/stat: the start time (field 22) and whether it is a zombie; undefined off Linux. */
function processStat(pid: number): { start: string; zombie: boolean } | undefined {
  const text = readText(`/proc/${pid}/stat`);
  // The command name (field 2) is in parentheses and may hold anything, ')' included.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields.length < 20) return undefined;
  return { start: fields[19], zombie: fields[0] === 'Z' || fields[0] === 'X' };
}

function pidNamespaceOf(pid: string): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/ns/pid`))?.[1] ?? '';
  } catch {
    return '';
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already: removed as stale by another process, or the directory went (a memory store).
  }
}

/** A directory that cannot be created: read-only, not ours, or the store is missing (LMDB says so next). */
function isUnwritable(code: string | undefined): boolean {
  return code === 'EACCES' || code === 'EROFS' || code === 'EPERM' || code === 'ENOENT';
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * 48 random bits naming one handle's claims. Math.random (seeded per process by V8 from the
 * operating system) is enough to tell handles apart, and node:crypto would cost a one-shot command
 * some 10 ms to load.
 */
function claimToken(): string {
  return Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
}
