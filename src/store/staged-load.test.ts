import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { DEFAULT_GRAPH_ID } from './quad-store.js';
import { LmdbQuadStore, openStore } from './lmdb-store.js';
import { LOAD_MARKER } from './staged-load.js';
import { StoreInUseError } from './store-lock.js';
import { LOAD_RUNS_DIRECTORY } from './spilled-runs.js';
import { LmdbStoreWriter } from './lmdb-writer.js';
import { hashTermKeyBytes } from './term-hash.js';
import { allQuads, seededRandom, sortedKeys } from './fixtures/sample-quads.js';
import { literal, namedNode, termKey } from '../rdf/terms.js';

const term = (i: number) => namedNode(`http://example.org/t${i}`);

async function withDirectory(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-staged-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Closes the store as if its process had been killed during its staged load: the load marker then
 * names a process that has exited.
 */
async function closeAsIfKilled(store: LmdbQuadStore, dir: string): Promise<void> {
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
  await store.close();
  const raw = open({ path: dir, maxDbs: 32 });
  const meta = raw.openDB({ name: 'meta', encoding: 'binary' });
  const owner = JSON.parse(Buffer.from(meta.getBinary(LOAD_MARKER)!).toString('utf8')) as { pid: number; boot: string };
  await meta.put(LOAD_MARKER, Buffer.from(JSON.stringify({ ...owner, pid: deadPid })));
  await raw.close();
}

test('a staged load into an empty store has the effect of one transaction, statistics included', async () => {
  const staged = openStore({ memory: true }) as LmdbQuadStore;
  const single = openStore({ memory: true });
  try {
    const load = staged.beginStagedLoad();
    assert.ok(load);
    // Three transactions; the same quad in two of them counts once.
    for (const stage of [
      [0, 1, 2],
      [2, 3, 4],
      [0, 1, 2],
    ]) {
      await load.stage(async (w) => {
        const [a, b, c] = stage.map((i) => w.intern(term(i)));
        w.addAll(Uint32Array.of(a, b, c, DEFAULT_GRAPH_ID, c, b, a, a));
      });
    }
    load.finish();
    single.write((w) => {
      for (const stage of [
        [0, 1, 2],
        [2, 3, 4],
      ]) {
        const [a, b, c] = stage.map((i) => w.intern(term(i)));
        w.add(a, b, c, DEFAULT_GRAPH_ID);
        w.add(c, b, a, a);
      }
    });
    const [a, b] = [staged.reader(), single.reader()];
    assert.deepEqual(sortedKeys(allQuads(a)), sortedKeys(allQuads(b)));
    assert.deepEqual(a.statistics(), b.statistics());
    a.release();
    b.release();
    assert.equal(
      staged.write(() => 'writable again'),
      'writable again',
    );
  } finally {
    await Promise.all([staged.close(), single.close()]);
  }
});

test('an aborted staged load leaves the store empty, even after committed stages', async () => {
  const store = openStore({ memory: true }) as LmdbQuadStore;
  try {
    const load = store.beginStagedLoad()!;
    await load.stage(async (w) => {
      w.addAll(Uint32Array.of(w.intern(term(1)), w.intern(term(2)), w.intern(term(3)), DEFAULT_GRAPH_ID));
    });
    load.abort();
    const reader = store.reader();
    assert.equal(reader.statistics().quadCount, 0);
    assert.equal(reader.statistics().termCount, 0);
    assert.equal(reader.idOf(term(1)), undefined);
    reader.release();
    assert.ok(store.beginStagedLoad(), 'empty again, so a staged load may start');
  } finally {
    await store.close();
  }
});

test('opening a store whose staged load died (its process is gone) clears what that load committed', async () => {
  await withDirectory(async (dir) => {
    const store = openStore({ path: dir }) as LmdbQuadStore;
    const load = store.beginStagedLoad()!;
    await load.stage(async (w) => {
      w.addAll(Uint32Array.of(w.intern(term(1)), w.intern(term(2)), w.intern(term(3)), DEFAULT_GRAPH_ID));
    });
    await closeAsIfKilled(store, dir);

    const reopened = openStore({ path: dir });
    try {
      const reader = reopened.reader();
      assert.equal(reader.statistics().quadCount, 0);
      assert.equal(reader.idOf(term(1)), undefined);
      reader.release();
    } finally {
      await reopened.close();
    }
  });
});

test('while a staged load runs, nothing else opens the store (its stages are left alone), and afterwards anything does', async () => {
  await withDirectory(async (dir) => {
    const store = openStore({ path: dir }) as LmdbQuadStore;
    const load = store.beginStagedLoad()!;
    await load.stage(async (w) => {
      w.addAll(Uint32Array.of(w.intern(term(1)), w.intern(term(2)), w.intern(term(3)), DEFAULT_GRAPH_ID));
    });
    // Writable or not: the message names the loading process.
    assert.throws(
      () => openStore({ path: dir }),
      (error: Error) => error instanceof StoreInUseError && error.message.includes(`process ${process.pid}`),
    );
    assert.throws(() => openStore({ path: dir, readOnly: true }), StoreInUseError);
    load.finish();
    const other = openStore({ path: dir });
    const reader = other.reader();
    assert.equal(reader.count(0, 0, 0, DEFAULT_GRAPH_ID), 1);
    reader.release();
    await other.close();
    await store.close();
  });
});

test('a load into an empty store that another handle has open is no staged load', async () => {
  await withDirectory(async (dir) => {
    const store = openStore({ path: dir }) as LmdbQuadStore;
    const other = openStore({ path: dir, readOnly: true });
    try {
      let told: number[] | undefined;
      assert.equal(
        store.beginStagedLoad((pids) => (told = pids)),
        undefined,
      );
      assert.deepEqual(told, [process.pid]);
      // Once the other handle is closed, it is.
      await other.close();
      const load = store.beginStagedLoad();
      assert.ok(load);
      load.abort();
      // And the claim ends with the load: the store opens again.
      await openStore({ path: dir, readOnly: true }).close();
    } finally {
      await other.close();
      await store.close();
    }
  });
});

/** Runs fn with QUIVER_LOAD_MEMORY_ENTRIES set (the held-back entries' cap), restoring it after. */
async function withMemoryCap<T>(entries: number | undefined, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.QUIVER_LOAD_MEMORY_ENTRIES;
  if (entries === undefined) delete process.env.QUIVER_LOAD_MEMORY_ENTRIES;
  else process.env.QUIVER_LOAD_MEMORY_ENTRIES = String(entries);
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.QUIVER_LOAD_MEMORY_ENTRIES;
    else process.env.QUIVER_LOAD_MEMORY_ENTRIES = saved;
  }
}

const STAGES = 12;
const QUADS_PER_STAGE = 3000;

interface StagedLoadOptions {
  failAt?: number;
  duringLoad?: () => void;
  heldBackPerTransaction?: number;
  /** Into a store that holds loadInStages' default load: see stageQuads. */
  intoData?: boolean;
  /** One transaction instead of stages (what a staged load must equal). */
  single?: boolean;
  /** Throws after this many transactions of the held-back writes: a load that dies there. */
  dieInHeldBackAfter?: number;
}

/**
 * Loads quads in stages as the file loader does (see stageQuads). `failAt`: the stage that throws
 * half way, and the load is aborted.
 */
async function loadInStages(store: LmdbQuadStore, options: StagedLoadOptions = {}): Promise<void> {
  const quads = new StageQuads(options);
  if (options.single) {
    await store.writeAsync(async (w) => {
      for (let stage = 0; stage < STAGES; stage++) quads.add(w as LmdbStoreWriter, stage);
    });
    return;
  }
  const load = store.beginStagedLoad()!;
  try {
    for (let stage = 0; stage < STAGES; stage++) await load.stage(async (w) => quads.add(w, stage));
    load.finish(options.heldBackPerTransaction, options.dieInHeldBackAfter);
  } catch (error) {
    if (options.dieInHeldBackAfter === undefined) load.abort();
    throw error;
  }
}

/**
 * The quads of one stage, term keys as UTF-8 bytes with their hashes as the file loader sends them.
 * Into an empty store: all new in the first half; in the second half each key is looked up first (a
 * parser that forgot which keys it sent), so keys held back, spilled or written are all found
 * again. Into data (`intoData`): every key is looked up, new ones are numbered past the first load's,
 * and most terms are the first load's, so many quads hold only old terms; five predicates and one
 * graph are new. A tenth of the quads are in named graphs.
 */
class StageQuads {
  private readonly random: () => number;
  private readonly hash = new Uint32Array(2);
  private sent: number;

  constructor(private readonly options: StagedLoadOptions) {
    this.random = seededRandom(options.intoData ? 12 : 11);
    this.sent = options.intoData ? 100_000 : 0;
  }

  add(w: LmdbStoreWriter, stage: number): void {
    const random = this.random;
    const intoData = this.options.intoData === true;
    const lookUp = intoData || stage >= STAGES / 2;
    const batch = new Uint32Array(QUADS_PER_STAGE * 4);
    for (let i = 0; i < QUADS_PER_STAGE; i++) {
      if (stage === this.options.failAt && i === QUADS_PER_STAGE / 2) throw new Error('bad data half way');
      // New terms go up with the load; a looked-up term may be any sent before.
      const pick = () => (lookUp && random() < 0.7 ? Math.floor(random() * this.sent) : this.sent++);
      const s = this.idOf(w, pick(), lookUp);
      const p = this.idOf(w, 1_000_000 + Math.floor(random() * (intoData ? 25 : 20)), lookUp || this.sent > 20);
      const o = this.idOf(w, pick(), lookUp);
      const g = random() < 0.1 ? this.idOf(w, 2_000_000 + Math.floor(random() * (intoData ? 4 : 3)), lookUp || this.sent > 40) : DEFAULT_GRAPH_ID;
      batch.set([s, p, o, g], i * 4);
    }
    w.addAll(batch);
    this.options.duringLoad?.();
  }

  private idOf(w: LmdbStoreWriter, n: number, lookUp: boolean): number {
    const bytes = Buffer.from(termKey(n % 7 === 0 ? literal(`value ${n}`) : namedNode(`http://example.org/r${n}`)), 'utf8');
    hashTermKeyBytes(bytes, 0, bytes.length, this.hash);
    return lookUp ? w.internKeyBytes(bytes, this.hash[0], this.hash[1]) : w.internNewKeyBytes(bytes, this.hash[0], this.hash[1]);
  }
}

/** Every entry of every database of the store at `dir` (closed), as hex key/value pairs by database name. */
async function databaseContents(dir: string): Promise<Record<string, string[]>> {
  const env = open({ path: dir, maxDbs: 32, readOnly: true });
  try {
    const names = [
      'spo',
      'pos',
      'osp',
      'gspo',
      'gpos',
      'gosp',
      'spog',
      'posg',
      'ospg',
      'id2term',
      'term2id',
      'meta',
      'graphs',
      'predicates',
      'predicateSketches',
    ];
    const contents: Record<string, string[]> = {};
    for (const name of names) {
      const db = env.openDB({ name, encoding: 'binary', keyEncoding: 'binary', dupSort: name === 'term2id' });
      const rows: string[] = [];
      for (const { key, value } of db.getRange({})) {
        // The data version is a fresh random value at each commit, not content.
        if (name === 'meta' && Buffer.from(key as Uint8Array).toString() === 'dataVersion') continue;
        rows.push(`${Buffer.from(key as Uint8Array).toString('hex')}=${Buffer.from(value as Uint8Array).toString('hex')}`);
      }
      contents[name] = rows;
    }
    return contents;
  } finally {
    await env.close();
  }
}

test('a staged load whose held-back entries spill to run files stores exactly what one held in memory stores, and deletes the files', async () => {
  await withDirectory(async (dir) => {
    const contents: Record<string, string[]>[] = [];
    // The held-back entries written in one transaction, or in many that each go on where the
    // previous one stopped (from memory, and from the merge of the run files).
    for (const [cap, heldBackPerTransaction] of [
      [undefined, undefined],
      [1000, undefined],
      [undefined, 5000],
      [1000, 5000],
    ]) {
      const path = join(dir, `store-${cap ?? 'default'}-${heldBackPerTransaction ?? 'default'}`);
      const runs = join(path, LOAD_RUNS_DIRECTORY);
      let spilled = false;
      await withMemoryCap(cap, async () => {
        const store = openStore({ path }) as LmdbQuadStore;
        try {
          await loadInStages(store, { heldBackPerTransaction, duringLoad: () => (spilled ||= existsSync(runs) && readdirSync(runs).length > 0) });
        } finally {
          await store.close();
        }
      });
      assert.equal(spilled, cap !== undefined, 'only the small cap spills');
      assert.equal(existsSync(runs), false, 'the run files are gone');
      contents.push(await databaseContents(path));
    }
    const [inMemory, ...others] = contents;
    assert.ok(inMemory.pos.length > STAGES * QUADS_PER_STAGE * 0.8);
    assert.ok(inMemory.gpos.length > 0);
    assert.ok(inMemory.term2id.length > 10_000);
    for (const other of others) for (const name of Object.keys(inMemory)) assert.deepEqual(other[name], inMemory[name], name);
  });
});

test('a staged load that fails after spilling leaves the store empty and no run files', async () => {
  await withDirectory(async (dir) => {
    await withMemoryCap(1000, async () => {
      const store = openStore({ path: dir }) as LmdbQuadStore;
      try {
        await assert.rejects(loadInStages(store, { failAt: 8 }), /bad data half way/);
        assert.equal(existsSync(join(dir, LOAD_RUNS_DIRECTORY)), false);
        const reader = store.reader();
        assert.equal(reader.statistics().quadCount, 0);
        assert.equal(reader.statistics().termCount, 0);
        reader.release();
        // Empty again: the next load runs, spilling, to the end.
        await loadInStages(store);
        const after = store.reader();
        assert.ok(after.statistics().quadCount > 0);
        after.release();
      } finally {
        await store.close();
      }
      const contents = await databaseContents(dir);
      assert.equal(contents.pos.length + contents.gpos.length, contents.spo.length + contents.gspo.length);
    });
  });
});

/** A store at `path` with loadInStages' default load, and its databases' contents. */
async function storeWithData(path: string): Promise<Record<string, string[]>> {
  const store = openStore({ path }) as LmdbQuadStore;
  try {
    await loadInStages(store);
  } finally {
    await store.close();
  }
  return databaseContents(path);
}

test('a staged load into a store with data has the effect of one transaction, statistics and dictionary included', async () => {
  await withDirectory(async (dir) => {
    const contents: Record<string, string[]>[] = [];
    for (const [name, options] of [
      ['single', { single: true }],
      ['staged', {}],
      ['staged, spilling, held back in many transactions', { cap: 1000, heldBackPerTransaction: 5000 }],
    ] as const) {
      const path = join(dir, name);
      await storeWithData(path);
      await withMemoryCap('cap' in options ? options.cap : undefined, async () => {
        const store = openStore({ path }) as LmdbQuadStore;
        try {
          await loadInStages(store, { ...options, intoData: true });
        } finally {
          await store.close();
        }
      });
      contents.push(await databaseContents(path));
    }
    const [single, ...staged] = contents;
    assert.equal(single.loadLog, undefined, 'databaseContents does not list the log');
    for (const other of staged) {
      for (const name of ['spo', 'pos', 'osp', 'gspo', 'gpos', 'gosp', 'spog', 'posg', 'ospg', 'id2term', 'graphs'])
        assert.deepEqual(other[name], single[name], name);
      // The term -> ID entries are the same set, the counts the same figures.
      assert.deepEqual([...other.term2id].sort(), [...single.term2id].sort());
      assert.deepEqual(other.meta, single.meta);
      assert.deepEqual(other.predicates, single.predicates);
    }
  });
});

test('a staged load into a store with data that fails leaves every database as it was, and no log', async () => {
  await withDirectory(async (dir) => {
    for (const cap of [undefined, 1000]) {
      const path = join(dir, `store-${cap ?? 'default'}`);
      const before = await storeWithData(path);
      await withMemoryCap(cap, async () => {
        const store = openStore({ path }) as LmdbQuadStore;
        try {
          await assert.rejects(loadInStages(store, { intoData: true, failAt: 8 }), /bad data half way/);
          assert.equal(existsSync(join(path, LOAD_RUNS_DIRECTORY)), false);
        } finally {
          await store.close();
        }
      });
      assert.deepEqual(await databaseContents(path), before);
      assert.equal(await loadLogEntries(path), 0);
    }
  });
});

test('opening a store whose staged load into data died undoes it: killed in the stages or in the held-back writes', async () => {
  await withDirectory(async (dir) => {
    for (const where of ['stages', 'held-back writes'] as const) {
      const path = join(dir, where);
      const before = await storeWithData(path);
      const store = openStore({ path }) as LmdbQuadStore;
      if (where === 'stages') {
        const load = store.beginStagedLoad()!;
        const quads = new StageQuads({ intoData: true });
        for (let stage = 0; stage < 5; stage++) await load.stage(async (w) => quads.add(w, stage));
        assert.ok((await loadLogEntriesOf(store)) > 0, 'quads of old terms were logged');
      } else {
        await assert.rejects(loadInStages(store, { intoData: true, heldBackPerTransaction: 5000, dieInHeldBackAfter: 3 }), /died after 3/);
      }
      await closeAsIfKilled(store, path);
      const reopened = openStore({ path });
      await reopened.close();
      assert.deepEqual(await databaseContents(path), before, where);
      // The undo is idempotent: the store opens as before again, and takes the same load to the end.
      const again = openStore({ path }) as LmdbQuadStore;
      try {
        await loadInStages(again, { intoData: true });
        assert.ok(again.reader().statistics().quadCount > 0);
      } finally {
        await again.close();
      }
    }
  });
});

/** Entries of the load's log in a closed store. */
async function loadLogEntries(path: string): Promise<number> {
  const env = open({ path, maxDbs: 32, readOnly: true });
  try {
    return env.openDB({ name: 'loadLog', encoding: 'binary', keyEncoding: 'binary' }).getKeysCount();
  } finally {
    await env.close();
  }
}

/** Entries of the log of a store open in this process, in its latest commit. */
async function loadLogEntriesOf(store: LmdbQuadStore): Promise<number> {
  const context = (store as unknown as { context: { dbs: { loadLog: { getKeysCount(range: object): number } }; env: { resetReadTxn(): void } } }).context;
  context.env.resetReadTxn();
  return context.dbs.loadLog.getKeysCount({});
}

test('opening a store clears the run files of a load that died, and stray ones a finished load left', async () => {
  await withDirectory(async (dir) => {
    const runs = join(dir, LOAD_RUNS_DIRECTORY);
    await withMemoryCap(1000, async () => {
      const store = openStore({ path: dir }) as LmdbQuadStore;
      const load = store.beginStagedLoad()!;
      await load.stage(async (w) => {
        const ids = Array.from({ length: 3000 }, (_, i) => w.intern(term(i)));
        w.addAll(Uint32Array.from(ids.flatMap((id, i) => [id, ids[(i * 7) % ids.length], ids[(i * 13) % ids.length], DEFAULT_GRAPH_ID])));
      });
      assert.ok(readdirSync(runs).length > 0, 'spilled');
      // The run files stay, as after a kill.
      await closeAsIfKilled(store, dir);
    });
    const reopened = openStore({ path: dir });
    assert.equal(existsSync(runs), false);
    const reader = reopened.reader();
    assert.equal(reader.statistics().quadCount, 0);
    reader.release();
    await reopened.close();

    // No marker (the load committed, then died before deleting its files): the files are stray.
    mkdirSync(runs);
    writeFileSync(join(runs, 'default-0-0.run'), Buffer.alloc(16));
    const again = openStore({ path: dir });
    assert.equal(existsSync(runs), false);
    await again.close();
  });
});
