/**
 * `quiver serve --update-timeout 1`, the real process: an update and a Graph Store PUT that would
 * write for many seconds are answered 504 at about the limit, a small update right after is
 * acknowledged at once, and after a restart the store shows no trace of the stopped writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/lmdb-store.js';
import { checkStoreConsistency } from '../../src/store/consistency-check.js';
import { loadFile } from '../../src/loader/file-loader.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { postUpdate, selectRows } from './sparql-client.js';

const EX = 'http://example.org/';
/** Subjects with an :k triple; the cross product of two of them is 90,000 solutions. */
const SIDE = 300;
/** 360,000 quads in a named graph (six indexes): the writes take most of the update's time. */
const CROSS_INSERT = `PREFIX : <${EX}> INSERT { GRAPH :pairs { ?a :p1 ?b . ?a :p2 ?b . ?a :p3 ?b . ?a :p4 ?b } } WHERE { ?a :k ?x . ?b :k ?y }`;
const KEPT = 10;
const PUT_TRIPLES = 100_000;
const LIMIT_MS = 1000;
/** How long after its limit a stopped write may take to be answered (a loaded machine). */
const STOP_SLACK_MS = 2500;

test('quiver serve --update-timeout 1: writes past the limit answer 504, leave nothing, and free the writer', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-update-timeout-'));
  const store = join(dir, 'store');
  let server: ServerProcess | undefined;
  try {
    await loadBase(store, join(dir, 'base.nq'));
    const initial = await checkStoreConsistency(store);
    assert.deepEqual(initial.problems, []);
    server = await startServerProcess(['--store', store, '--workers', '1', '--update-timeout', '1']);
    const origin = server.origin;

    await answersInTime(() => postUpdate(origin, CROSS_INSERT), 504);
    await answersInTime(() => putGraph(origin, `${EX}kept`, bigGraph()), 504);
    const started = performance.now();
    const small = await postUpdate(origin, `INSERT DATA { <${EX}small> <${EX}p> <${EX}o> }`);
    assert.equal(small.status, 200, await small.text());
    assert.ok(performance.now() - started < 1000, 'the small update waited');

    await server.stop();
    server = undefined;
    const after = await checkStoreConsistency(store);
    assert.deepEqual(after.problems, []);
    // The small update's quad and its one new term: nothing else.
    assert.deepEqual({ quads: after.quads, terms: after.terms }, { quads: initial.quads + 1, terms: initial.terms + 1 });

    server = await startServerProcess(['--store', store, '--workers', '1']);
    const [counts] = await selectRows(server.origin, `SELECT (COUNT(*) AS ?all) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }`);
    assert.equal(Number(counts!.all!.value), SIDE + KEPT + 1);
    const kept = await selectRows(server.origin, `SELECT ?s WHERE { GRAPH <${EX}kept> { ?s ?p ?o } }`);
    assert.equal(kept.length, KEPT);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Answers `status` within the limit and a little more. */
async function answersInTime(send: () => Promise<Response>, status: number): Promise<void> {
  const started = performance.now();
  const response = await send();
  const body = await response.text();
  const took = performance.now() - started;
  assert.equal(response.status, status, body);
  assert.ok(took < LIMIT_MS + STOP_SLACK_MS, `answered after ${Math.round(took)} ms`);
}

function putGraph(origin: string, graph: string, ntriples: string): Promise<Response> {
  return fetch(`${origin}/sparql/store?graph=${encodeURIComponent(graph)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/n-triples' },
    body: ntriples,
  });
}

/** 100,000 triples, about 5 MB: parsed in a fraction of the limit, written in many times it. */
function bigGraph(): string {
  const lines: string[] = [];
  for (let i = 0; i < PUT_TRIPLES; i++) lines.push(`<${EX}n${i}> <${EX}n> "${i}" .`);
  return lines.join('\n') + '\n';
}

async function loadBase(store: string, file: string): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; i < SIDE; i++) lines.push(`<${EX}s${i}> <${EX}k> "${i}" .`);
  for (let i = 0; i < KEPT; i++) lines.push(`<${EX}kept${i}> <${EX}p> <${EX}o> <${EX}kept> .`);
  writeFileSync(file, lines.join('\n') + '\n');
  const handle = openStore({ path: store });
  try {
    await loadFile(handle, { path: file, format: 'nquads', gzip: false });
  } finally {
    await handle.close();
  }
}
