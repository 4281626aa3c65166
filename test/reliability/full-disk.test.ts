/**
 * A full disk, over and over (issue 18, finding 9: a full disk was misreported). A real `quiver
 * serve --store` runs on a tmpfs of its own; each round fills the disk with a file but for a
 * random room, lets clients write into it at random (updates and Graph Store writes of random
 * sizes) until the store has no room, then gives the room back. Every answer must be 2xx or 507
 * (saying the disk is full), every acknowledged write must be there and every refused one absent;
 * while the disk is full /health says 503 and reads go on; once there is room, /health is 200 and
 * writes work again.
 *
 * No root needed: the server runs in a user and mount namespace of its own (`unshare -rm`, open to
 * unprivileged users where the kernel allows user namespaces), where it may mount the tmpfs; the
 * test reaches the tmpfs through /proc/<pid>/root. Where unshare cannot do that the test is skipped,
 * and says why. (test/http/disk-full.test.ts mounts one directly, as root.)
 *
 * CI: 3 rounds. Full (QUIVER_FULL=1, or QUIVER_FULL_DISK_ROUNDS=N): 20. Replay: QUIVER_SEED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Random, seedFromEnv } from './prng.js';
import { runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { selectRows, sleep } from './sparql-client.js';

const ROUNDS = runSize('QUIVER_FULL_DISK_ROUNDS', 3, 20);
/** Room for the store to grow by a round's worth of writes twenty times over, and still have room. */
const DISK = '64m';
const WRITERS = 2;
/** Writes per writer and round at most: a round ends when each writer has been refused once. */
const MAX_WRITES = 400;

/** Why the test cannot run here, or undefined when it can. */
function namespaceUnavailable(): string | undefined {
  try {
    execFileSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', `mount -t tmpfs -o size=1m tmpfs "${tmpdir()}"`], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    const detail = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message.split('\n')[0];
    return `cannot mount a tmpfs in a user namespace here (unshare --user --map-root-user --mount): ${detail}`;
  }
}

const skip = namespaceUnavailable();

/** The server, on a tmpfs mounted at `dir` inside its own namespace. */
function startOnTinyDisk(dir: string): Promise<ServerProcess> {
  const mountThenServe = `mount -t tmpfs -o size=${DISK} tmpfs "$0" && exec "$@"`;
  return startServerProcess(['--store', join(dir, 'store'), '--workers', '1'], {
    wrapper: ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', mountThenServe, dir],
  });
}

/** A file on the server's tmpfs that takes up all the room but `room` bytes. */
function fillDisk(file: string, room: number): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(64 * 1024, 7);
  let size = 0;
  try {
    for (;;) size += writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  ftruncateSync(fd, Math.max(0, size - room));
  closeSync(fd);
}

type Fate = 'acknowledged' | 'refused';

interface WriteKind {
  name: string;
  send(origin: string, id: string, payload: string): Promise<Response>;
}

/** Each write leaves `<urn:w:ID> <urn:mark> "ID"` (in a graph of its own or the default graph), with a payload. */
const WRITE_KINDS: WriteKind[] = [
  {
    name: 'INSERT DATA',
    send: (origin, id, payload) =>
      fetch(`${origin}/sparql/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-update' },
        body: `INSERT DATA { <urn:w:${id}> <urn:mark> "${id}" . ${payload} }`,
      }),
  },
  {
    name: 'INSERT DATA into a graph',
    send: (origin, id, payload) =>
      fetch(`${origin}/sparql/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-update' },
        body: `INSERT DATA { GRAPH <urn:g:${id}> { <urn:w:${id}> <urn:mark> "${id}" . ${payload} } }`,
      }),
  },
  {
    name: 'Graph Store PUT',
    send: (origin, id, payload) =>
      fetch(`${origin}/sparql/store?graph=${encodeURIComponent(`urn:g:${id}`)}`, {
        method: 'PUT',
        headers: { 'content-type': 'text/turtle' },
        body: `<urn:w:${id}> <urn:mark> "${id}" . ${payload}`,
      }),
  },
  {
    name: 'Graph Store POST',
    send: (origin, id, payload) =>
      fetch(`${origin}/sparql/store?graph=${encodeURIComponent(`urn:g:${id}`)}`, {
        method: 'POST',
        headers: { 'content-type': 'text/turtle' },
        body: `<urn:w:${id}> <urn:mark> "${id}" . ${payload}`,
      }),
  },
];

/** Triples of random number and size: a write of a few hundred bytes to a few hundred KiB. */
function payload(random: Random, id: string): string {
  const triples = random.int(1, 300);
  const size = random.int(10, 1000);
  return Array.from({ length: triples }, (_, i) => `<urn:w:${id}> <urn:payload> "${i} ${'z'.repeat(size)}" .`).join(' ');
}

interface Ledger {
  fates: Map<string, Fate>;
  statuses: Map<number, number>;
  failures: string[];
}

/** Writes until refused for want of room (or MAX_WRITES), recording each write's fate. */
async function writeUntilFull(server: ServerProcess, random: Random, round: number, writer: number, ledger: Ledger): Promise<void> {
  for (let n = 0; n < MAX_WRITES; n++) {
    const id = `${round}-${writer}-${n}`;
    const kind = random.pick(WRITE_KINDS);
    const response = await kind.send(server.origin, id, payload(random, id));
    const body = await response.text();
    ledger.statuses.set(response.status, (ledger.statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 200 && response.status < 300) {
      ledger.fates.set(id, 'acknowledged');
      continue;
    }
    if (response.status === 507 && /the disk of the store is full/.test(body)) {
      ledger.fates.set(id, 'refused');
      return;
    }
    ledger.failures.push(`round ${round}: ${kind.name} ${id} answered ${response.status}: ${body.slice(0, 300)}`);
    return;
  }
}

async function health(server: ServerProcess): Promise<{ httpStatus: number; writable: boolean; problem?: string }> {
  const response = await fetch(`${server.origin}/health`, { headers: { accept: 'application/json' } });
  const body = (await response.json()) as { writable: boolean; problem?: string };
  return { httpStatus: response.status, writable: body.writable, problem: body.problem };
}

/** /health until it answers `status`, for up to `withinMs`. */
async function healthBecomes(server: ServerProcess, status: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while ((await health(server)).httpStatus !== status) {
    if (Date.now() > until) return false;
    await sleep(100);
  }
  return true;
}

/** The ids whose mark is in the store, in any graph. */
async function marksInStore(server: ServerProcess): Promise<Set<string>> {
  const rows = await selectRows(server.origin, 'SELECT ?id WHERE { { ?s <urn:mark> ?id } UNION { GRAPH ?g { ?s <urn:mark> ?id } } }');
  return new Set(rows.map((row) => row['id']!.value));
}

test(
  `a full disk, ${ROUNDS} times over: 507 and /health 503, nothing acknowledged lost, writes again once there is room`,
  { skip, timeout: timeLimit(180_000, 1_200_000) },
  async () => {
    const seed = seedFromEnv();
    const random = new Random(seed, 'full-disk');
    console.log(`full disk: seed ${seed} (replay with QUIVER_SEED=${seed}), ${ROUNDS} rounds on a ${DISK} tmpfs`);
    const dir = mkdtempSync(join(tmpdir(), 'quiver-full-disk-'));
    const server = await startOnTinyDisk(dir);
    // The server's view of the tmpfs, from outside its mount namespace.
    const filler = join(`/proc/${server.child.pid}/root`, dir, 'filler');
    const ledger: Ledger = { fates: new Map(), statuses: new Map(), failures: [] };
    const rooms: number[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const room = random.int(128, 2048) * 1024;
        rooms.push(room);
        fillDisk(filler, room);
        await Promise.all(Array.from({ length: WRITERS }, (_, w) => writeUntilFull(server, new Random(seed, 'full-disk', round, w), round, w, ledger)));
        const full = await health(server);
        if (full.httpStatus !== 503 || full.writable || !/disk of the store is full/.test(full.problem ?? ''))
          ledger.failures.push(`round ${round}: /health while full: ${JSON.stringify(full)}`);
        await checkLedger(server, ledger, round);
        rmSync(filler);
        if (!hasRoom(dir, server)) ledger.failures.push(`round ${round}: the store has filled the disk by itself; the test's disk is too small`);
        else if (!(await healthBecomes(server, 200, 5000))) ledger.failures.push(`round ${round}: /health did not come back once there was room`);
        const after = await WRITE_KINDS[0].send(server.origin, `${round}-after`, '');
        await after.arrayBuffer();
        if (after.status !== 200) ledger.failures.push(`round ${round}: a write once there was room answered ${after.status}`);
        else ledger.fates.set(`${round}-after`, 'acknowledged');
      }
      await checkLedger(server, ledger, ROUNDS);
    } finally {
      await server.stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
    const fates = [...ledger.fates.values()];
    const statuses = [...ledger.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    console.log(
      `full disk: ${fates.filter((f) => f === 'acknowledged').length} writes acknowledged, ${fates.filter((f) => f === 'refused').length} refused (${statuses}); ` +
        `rooms left per round: ${rooms.map((r) => `${Math.round(r / 1024)} KiB`).join(', ')}`,
    );
    for (const failure of ledger.failures.slice(0, 10)) console.log(`full disk failure: ${failure}`);
    assert.equal(ledger.failures.length, 0, `${ledger.failures.length} failures (seed ${seed}); first: ${ledger.failures[0]}`);
  },
);

/**
 * Whether the server's disk has room again by the server's own measure (storage-full.ts: 64 MiB
 * free, or 5% of a smaller disk): until then /health rightly stays 503, writes that fit in pages
 * the store freed notwithstanding.
 */
function hasRoom(dir: string, server: ServerProcess): boolean {
  const { bavail, blocks, bsize } = statfsSync(join(`/proc/${server.child.pid}/root`, dir));
  return bavail * bsize >= Math.min(64 * 2 ** 20, blocks * bsize * 0.05);
}

/** Every acknowledged write is there, every refused one absent; reads work with the disk full. */
async function checkLedger(server: ServerProcess, ledger: Ledger, round: number): Promise<void> {
  const present = await marksInStore(server);
  for (const [id, fate] of ledger.fates) {
    if (fate === 'acknowledged' && !present.has(id)) ledger.failures.push(`round ${round}: acknowledged write ${id} is missing`);
    if (fate === 'refused' && present.has(id)) ledger.failures.push(`round ${round}: refused write ${id} is in the store`);
  }
}
