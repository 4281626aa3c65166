/**
 * The time limit of updates and Graph Store writes through LocalService, on the writer thread: an
 * update past its limit is stopped while it writes, rolled back (the store as it was, dictionary and
 * indexes sound) and the writer is free at once. The limit counts from the request's arrival.
 *
 * That the stop happens inside the write phase, not only at the WHERE clause's checkpoints, is
 * shown with a watched writer in engine/update/update-time-limit.test.ts; here the writes are simply
 * far longer than the limit (tens or hundreds of thousands of quads) while what comes before them is
 * short.
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
const LIMIT_MS = 1200;
/** LOAD and PUT parse their document before they write: about a quarter of their time for N-Triples. */
const DOCUMENT_LIMIT_MS = 2000;
const DELETE_LIMIT_MS = 700;
/** How long after its limit a stopped update may take to report back (checks, abort, a loaded machine). */
const STOP_SLACK_MS = 2500;

interface Contents {
  quads: number;
  terms: number;
}

/** A LocalService over a store the bulk loader filled with `quads` (N-Quads), and files for LOAD. */
class Fixture {
  service!: LocalService;
  initial!: Contents;
  private constructor(readonly dir: string) {}

  static async start(quads: string): Promise<Fixture> {
    const fixture = new Fixture(await mkdtemp(join(tmpdir(), 'quiver-writer-limit-')));
    await mkdir(fixture.files);
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

describe('LocalService: an update past its time limit while it writes', () => {
  let fixture: Fixture;
  let service: LocalService;
  let documentFile: string;

  before(async () => {
    fixture = await Fixture.start(baseQuads());
    service = fixture.service;
    assert.equal(fixture.initial.quads, SIDE + KEPT);
    documentFile = join(fixture.files, 'numbers.nt');
    await writeFile(documentFile, numberTriples(DOCUMENT_TRIPLES));
  });
  after(() => fixture?.close());

  test('INSERT … WHERE of 360,000 quads', async () => {
    await stoppedInTime(service.update({ update: PREFIX + CROSS_INSERT, timeoutMs: LIMIT_MS }), TimeoutError);
    assert.equal(await ask(service, 'ASK { GRAPH :pairs { ?a ?p ?b } }'), false);
    await fixture.unchanged();
  });

  test('two operations, the second past the limit: the first is undone too', async () => {
    const update = `${PREFIX} INSERT DATA { :kept3 :p :o } ; ${CROSS_INSERT}`;
    await stoppedInTime(service.update({ update, timeoutMs: LIMIT_MS }), TimeoutError);
    assert.equal(await ask(service, 'ASK { :kept3 :p :o }'), false);
    await fixture.unchanged();
  });

  test('LOAD of 100,000 triples into a new graph', async () => {
    const update = `LOAD <file://${documentFile}> INTO GRAPH <${EX}loaded>`;
    await stoppedInTime(service.update({ update, timeoutMs: DOCUMENT_LIMIT_MS }), TimeoutError, DOCUMENT_LIMIT_MS);
    await fixture.unchanged();
  });

  test('a Graph Store PUT of 100,000 triples over an existing graph', async () => {
    const text = await readFile(documentFile, 'utf8');
    const put = service.putGraph(`${EX}kept`, { text, contentType: 'application/n-triples', baseIri: EX }, { timeoutMs: DOCUMENT_LIMIT_MS });
    await stoppedInTime(put, TimeoutError, DOCUMENT_LIMIT_MS);
    assert.equal(await ask(service, `ASK { GRAPH :kept { :kept${KEPT - 1} :p :o } }`), true);
    await fixture.unchanged();
  });

  test('an update whose client goes away while it writes is stopped and rolled back too', async () => {
    const client = new AbortController();
    setTimeout(() => client.abort(), LIMIT_MS);
    await stoppedInTime(service.update({ update: PREFIX + CROSS_INSERT, signal: client.signal }), CancelledError);
    await fixture.unchanged();
  });

  test('the limit counts from arrival: an update queued behind one that overruns runs once the writer is freed', async () => {
    const started = performance.now();
    const overrun = service.update({ update: PREFIX + CROSS_INSERT, timeoutMs: LIMIT_MS });
    // Arrived while the writer was busy, with time to spare after the overrunning update's stop.
    const patient = service.update({ update: `${PREFIX} INSERT DATA { :kept1 :p :o }`, timeoutMs: LIMIT_MS + STOP_SLACK_MS });
    // Its limit passes while it waits: it never reaches the store.
    const hasty = service.update({ update: `${PREFIX} INSERT DATA { :kept2 :p :o }`, timeoutMs: LIMIT_MS / 4 });
    await assert.rejects(hasty, TimeoutError);
    assert.ok(performance.now() - started < LIMIT_MS, 'the queued update waited past its own limit');
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

  before(async () => {
    fixture = await Fixture.start(baseQuads() + gridQuads());
    assert.equal(fixture.initial.quads, SIDE + KEPT + GRID * GRID);
  });
  after(() => fixture?.close());

  test('DELETE WHERE of 67,600 quads', async () => {
    const run = fixture.service.update({ update: `${PREFIX} DELETE WHERE { GRAPH :grid { ?s :n ?o } }`, timeoutMs: DELETE_LIMIT_MS });
    await stoppedInTime(run, TimeoutError, DELETE_LIMIT_MS);
    await fixture.unchanged();
  });
});

/** Rejects with `error` by the end of its limit and a little more. */
async function stoppedInTime(run: Promise<unknown>, error: new () => Error, limitMs = LIMIT_MS): Promise<void> {
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
