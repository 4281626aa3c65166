/**
 * The time limit of updates and Graph Store writes through LocalService, on the writer thread: an
 * update past its limit is stopped while it writes, rolled back (the store as it was, dictionary and
 * indexes sound) and the writer is free at once. The limit counts from the request's arrival.
 *
 * That the stop happens inside the write phase, not only at the WHERE clause's checkpoints, is
 * shown with a watched writer in engine/update/update-time-limit.test.ts; here the writes are simply
 * long (tens or hundreds of thousands of quads) while what comes before them is short. Each limit is
 * a third of what its operation takes without one on this machine, timed in a scratch store first:
 * the stop falls in the writes (or, for LOAD and PUT, as they start) however fast the machine is,
 * with room for the test to run faster than its timing did when other tests load the machine.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalService, type LocalService } from './local-service.js';
import { openStore } from '../store/lmdb-store.js';
import { checkStoreConsistency } from '../store/consistency-check.js';
import { loadFile } from '../loader/file-loader.js';
import { CancelledError, TimeoutError } from '../errors.js';

const EX = 'http://example.org/';
const PREFIX = `PREFIX : <${EX}> `;
/** Subjects with an :k triple; a WHERE over two of them has SIDE² solutions. */
const SIDE = 300;
/**
 * 360,000 new quads from 90,000 solutions, in a named graph (six indexes): the WHERE clause takes a
 * small part of the update's time, the writes the rest.
 */
const CROSS_INSERT = `INSERT { GRAPH :pairs { ?a :p1 ?b . ?a :p2 ?b . ?a :p3 ?b . ?a :p4 ?b } } WHERE { ?a :k ?x . ?b :k ?y }`;
/** Quads of the graph :kept, which a PUT past its limit must leave as they are. */
const KEPT = 10;
/** Triples of the document that LOAD and a Graph Store PUT read. */
const DOCUMENT_TRIPLES = 100_000;
/**
 * A grid of :n quads (GRID² of them over 2 × GRID terms) in a named graph for DELETE WHERE to
 * remove: the WHERE clause takes about a quarter of the update's time.
 */
const GRID = 260;
/** How long after its limit a stopped update may take to report back (checks, abort, a loaded machine). */
const STOP_SLACK_MS = 2500;

interface Contents {
  quads: number;
  terms: number;
}

/** A LocalService over a store the bulk loader filled with `quads` (N-Quads), and a document for LOAD. */
class Fixture {
  service!: LocalService;
  initial!: Contents;
  private constructor(readonly dir: string) {}

  static async start(quads: string): Promise<Fixture> {
    const fixture = new Fixture(await mkdtemp(join(tmpdir(), 'quiver-writer-limit-')));
    await mkdir(fixture.files);
    await writeFile(fixture.document, numberTriples(DOCUMENT_TRIPLES));
    const data = join(fixture.dir, 'data.nq');
    await writeFile(data, quads);
    await bulkLoad(fixture.store, data);
    fixture.service = await createLocalService({ store: fixture.store, workers: 1, loadDir: fixture.files });
    fixture.initial = await contents(fixture.store);
    return fixture;
  }

  get store(): string {
    return join(this.dir, 'store');
  }

  get files(): string {
    return join(this.dir, 'files');
  }

  /** The N-Triples document that LOAD and a Graph Store PUT read. */
  get document(): string {
    return join(this.files, 'numbers.nt');
  }

  /**
   * The store holds what it held at the start, and is sound; a small update then runs at once (and
   * is undone: its terms are the store's already, so the dictionary stays as it was too).
   */
  async unchanged(): Promise<void> {
    assert.deepEqual(await contents(this.store), this.initial);
    const started = performance.now();
    await this.service.update({ update: `${PREFIX} INSERT DATA { :kept0 :p :o }`, timeoutMs: 5000 });
    assert.ok(performance.now() - started < 1000, 'a one-triple update waited');
    await this.service.update({ update: `${PREFIX} DELETE DATA { :kept0 :p :o }` });
  }

  async close(): Promise<void> {
    await this.service?.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The writes each test stops, as functions of the service and a limit (none: run to the end). */
const writes = {
  crossInsert: (service: LocalService, timeoutMs?: number) => service.update({ update: PREFIX + CROSS_INSERT, timeoutMs }),
  load: (service: LocalService, file: string, timeoutMs?: number) => service.update({ update: `LOAD <file://${file}> INTO GRAPH <${EX}loaded>`, timeoutMs }),
  put: async (service: LocalService, file: string, timeoutMs?: number) =>
    service.putGraph(`${EX}kept`, { text: await readFile(file, 'utf8'), contentType: 'application/n-triples', baseIri: EX }, { timeoutMs }),
  deleteGrid: (service: LocalService, timeoutMs?: number) => service.update({ update: `${PREFIX} DELETE WHERE { GRAPH :grid { ?s :n ?o } }`, timeoutMs }),
};

describe('LocalService: an update past its time limit while it writes', () => {
  let fixture: Fixture;
  let service: LocalService;
  /** A third of what each write takes without a limit. */
  const limit = { insert: 0, load: 0, put: 0 };

  before(async () => {
    limit.insert = await thirdOfTime(baseQuads(), (scratch) => writes.crossInsert(scratch.service));
    limit.load = await thirdOfTime(baseQuads(), (scratch) => writes.load(scratch.service, scratch.document));
    limit.put = await thirdOfTime(baseQuads(), (scratch) => writes.put(scratch.service, scratch.document));
    fixture = await Fixture.start(baseQuads());
    service = fixture.service;
    assert.equal(fixture.initial.quads, SIDE + KEPT);
  });
  after(() => fixture?.close());

  test('INSERT … WHERE of 360,000 quads', async () => {
    await stoppedInTime(writes.crossInsert(service, limit.insert), TimeoutError, limit.insert);
    assert.equal(await ask(service, 'ASK { GRAPH :pairs { ?a ?p ?b } }'), false);
    await fixture.unchanged();
  });

  test('two operations, the second past the limit: the first is undone too', async () => {
    const update = `${PREFIX} INSERT DATA { :kept3 :p :o } ; ${CROSS_INSERT}`;
    await stoppedInTime(service.update({ update, timeoutMs: limit.insert }), TimeoutError, limit.insert);
    assert.equal(await ask(service, 'ASK { :kept3 :p :o }'), false);
    await fixture.unchanged();
  });

  test('LOAD of 100,000 triples into a new graph', async () => {
    await stoppedInTime(writes.load(service, fixture.document, limit.load), TimeoutError, limit.load);
    await fixture.unchanged();
  });

  test('a Graph Store PUT of 100,000 triples over an existing graph', async () => {
    await stoppedInTime(writes.put(service, fixture.document, limit.put), TimeoutError, limit.put);
    assert.equal(await ask(service, `ASK { GRAPH :kept { :kept${KEPT - 1} :p :o } }`), true);
    await fixture.unchanged();
  });

  test('an update whose client goes away while it writes is stopped and rolled back too', async () => {
    const client = new AbortController();
    setTimeout(() => client.abort(), limit.insert);
    await stoppedInTime(service.update({ update: PREFIX + CROSS_INSERT, signal: client.signal }), CancelledError, limit.insert);
    await fixture.unchanged();
  });

  test('the limit counts from arrival: an update queued behind one that overruns runs once the writer is freed', async () => {
    const started = performance.now();
    const overrun = writes.crossInsert(service, limit.insert);
    // Arrived while the writer was busy, with time to spare after the overrunning update's stop.
    const patient = service.update({ update: `${PREFIX} INSERT DATA { :kept1 :p :o }`, timeoutMs: limit.insert + STOP_SLACK_MS });
    // Its limit passes while it waits: it never reaches the store.
    const hasty = service.update({ update: `${PREFIX} INSERT DATA { :kept2 :p :o }`, timeoutMs: limit.insert / 4 });
    await assert.rejects(hasty, TimeoutError);
    assert.ok(performance.now() - started < limit.insert, 'the queued update waited past its own limit');
    await assert.rejects(overrun, TimeoutError);
    await patient;
    assert.equal(await ask(service, 'ASK { :kept1 :p :o }'), true);
    assert.equal(await ask(service, 'ASK { :kept2 :p :o }'), false);
    await service.update({ update: `${PREFIX} DELETE DATA { :kept1 :p :o }` });
    await fixture.unchanged();
  });
});

describe('LocalService: a DELETE past its time limit while it writes', () => {
  let fixture: Fixture;
  let deleteLimit = 0;

  before(async () => {
    deleteLimit = await thirdOfTime(baseQuads() + gridQuads(), (scratch) => writes.deleteGrid(scratch.service));
    fixture = await Fixture.start(baseQuads() + gridQuads());
    assert.equal(fixture.initial.quads, SIDE + KEPT + GRID * GRID);
  });
  after(() => fixture?.close());

  test('DELETE WHERE of 67,600 quads', async () => {
    await stoppedInTime(writes.deleteGrid(fixture.service, deleteLimit), TimeoutError, deleteLimit);
    await fixture.unchanged();
  });
});

/**
 * A third of what `write` takes without a limit in a store like the test's, with the document for
 * LOAD and PUT at hand: a limit that stops the same write well before its end.
 */
async function thirdOfTime(quads: string, write: (scratch: Fixture) => Promise<unknown>): Promise<number> {
  const scratch = await Fixture.start(quads);
  try {
    const started = performance.now();
    await write(scratch);
    return (performance.now() - started) / 3;
  } finally {
    await scratch.close();
  }
}

/** Rejects with `error` by the end of its limit and a little more. */
async function stoppedInTime(run: Promise<unknown>, error: new () => Error, limitMs: number): Promise<void> {
  const started = performance.now();
  await assert.rejects(run, error);
  const took = performance.now() - started;
  assert.ok(took < limitMs + STOP_SLACK_MS, `stopped after ${Math.round(took)} ms`);
}

async function ask(service: LocalService, query: string): Promise<boolean> {
  const result = await service.query({ query: PREFIX + query });
  assert.equal(result.kind, 'boolean');
  return result.value;
}

async function contents(store: string): Promise<Contents> {
  const check = await checkStoreConsistency(store);
  assert.deepEqual(check.problems, []);
  return { quads: check.quads, terms: check.terms };
}

function baseQuads(): string {
  const lines: string[] = [];
  for (let i = 0; i < SIDE; i++) lines.push(`<${EX}s${i}> <${EX}k> "${i}" .`);
  for (let i = 0; i < KEPT; i++) lines.push(`<${EX}kept${i}> <${EX}p> <${EX}o> <${EX}kept> .`);
  return lines.join('\n') + '\n';
}

function gridQuads(): string {
  const lines: string[] = [];
  for (let i = 0; i < GRID; i++) for (let j = 0; j < GRID; j++) lines.push(`<${EX}a${i}> <${EX}n> <${EX}b${j}> <${EX}grid> .`);
  return lines.join('\n') + '\n';
}

function numberTriples(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`<${EX}n${i}> <${EX}n> "${i}" .`);
  return lines.join('\n') + '\n';
}

/** Fills the store with the bulk loader, far faster than updates would. */
async function bulkLoad(path: string, file: string): Promise<void> {
  const store = openStore({ path });
  try {
    await loadFile(store, { path: file, format: 'nquads', gzip: false });
  } finally {
    await store.close();
  }
}
