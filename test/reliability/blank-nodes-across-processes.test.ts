/**
 * A blank node written by one process is never another process's: the same document posted to a
 * server before and after a restart, the same INSERT DATA run by two `quiver update`s, the same file
 * loaded twice, each gives a node of its own. (They once shared labels: each process counted its
 * documents from zero, so a restarted server's first `_:x` was the previous one's, silently.)
 * Every format a Graph Store write or a LOAD reads, every write path, two processes each.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startServerProcess } from './server-process.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const run = promisify(execFile);

/** One document per format, each with one blank node `x` and a predicate naming the format. */
const DOCUMENTS: { format: string; contentType: string; text: string }[] = [
  { format: 'ntriples', contentType: 'application/n-triples', text: '_:x <http://ex/ntriples> "v" .\n' },
  { format: 'nquads', contentType: 'application/n-quads', text: '_:x <http://ex/nquads> "v" .\n' },
  { format: 'turtle', contentType: 'text/turtle', text: '_:x <http://ex/turtle> "v" .\n' },
  { format: 'trig', contentType: 'application/trig', text: '{ _:x <http://ex/trig> "v" . }\n' },
  { format: 'jsonld', contentType: 'application/ld+json', text: '{ "@id": "_:x", "http://ex/jsonld": "v" }' },
  {
    format: 'rdfxml',
    contentType: 'application/rdf+xml',
    text: '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex/"><rdf:Description rdf:nodeID="x"><ex:rdfxml>v</ex:rdfxml></rdf:Description></rdf:RDF>',
  },
];

const EXTENSIONS: Record<string, string> = { ntriples: 'nt', nquads: 'nq', turtle: 'ttl', trig: 'trig', jsonld: 'jsonld', rdfxml: 'rdf' };

/** Distinct subjects per predicate (its local name), as the store holds them. */
async function subjectsPerPredicate(store: string): Promise<Record<string, number>> {
  const query = 'SELECT ?p (COUNT(DISTINCT ?s) AS ?n) { ?s ?p ?o } GROUP BY ?p';
  const { stdout } = await run(process.execPath, [MAIN, 'query', '--store', store, '--format', 'csv', query]);
  const counts: Record<string, number> = {};
  for (const line of stdout.trim().split(/\r?\n/).slice(1)) {
    const [predicate, n] = line.split(',');
    counts[predicate!.replace('http://ex/', '')] = Number(n);
  }
  return counts;
}

async function postEveryFormat(origin: string): Promise<void> {
  for (const document of DOCUMENTS) {
    const response = await fetch(`${origin}/sparql/store?default`, { method: 'POST', headers: { 'content-type': document.contentType }, body: document.text });
    assert.equal(response.status, 204, `${document.format}: ${await response.text()}`);
  }
}

/** Runs `write` against a server on the store, then against another server started on it after the first stopped. */
async function beforeAndAfterRestart(serverArgs: string[], write: (origin: string) => Promise<void>): Promise<void> {
  for (let round = 0; round < 2; round++) {
    const server = await startServerProcess(serverArgs);
    try {
      await write(server.origin);
    } finally {
      await server.stop();
    }
  }
}

describe('blank nodes written by two processes', { timeout: 120_000 }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'quiver-blank-nodes-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a Graph Store POST of every format, before and after a restart: two nodes each', async () => {
    const store = join(dir, 'gsp');
    await beforeAndAfterRestart(['--store', store], postEveryFormat);
    const counts = await subjectsPerPredicate(store);
    for (const { format } of DOCUMENTS) assert.equal(counts[format], 2, `${format}: ${JSON.stringify(counts)}`);
  });

  it('INSERT DATA and an INSERT template by two quiver update processes: two nodes each', async () => {
    const store = join(dir, 'update');
    for (let round = 0; round < 2; round++) {
      await run(process.execPath, [MAIN, 'update', '--store', store, 'INSERT DATA { _:x <http://ex/inserted> "v" }']);
      await run(process.execPath, [MAIN, 'update', '--store', store, 'INSERT { _:x <http://ex/templated> "v" } WHERE {}']);
    }
    const counts = await subjectsPerPredicate(store);
    assert.equal(counts['inserted'], 2);
    assert.equal(counts['templated'], 2);
  });

  it('LOAD of every format, before and after a server restart: two nodes each', async () => {
    const store = join(dir, 'loaded');
    const documents = join(dir, 'documents');
    mkdirSync(documents);
    const loads = DOCUMENTS.map(({ format, text }) => {
      const file = join(documents, `document.${EXTENSIONS[format]}`);
      writeFileSync(file, text);
      return `LOAD <${pathToFileURL(file).href}>`;
    }).join(' ;\n');
    await beforeAndAfterRestart(['--store', store, '--load-dir', documents], async (origin) => {
      const response = await fetch(`${origin}/sparql/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-update' },
        body: loads,
      });
      assert.equal(response.status, 200, await response.text());
    });
    const counts = await subjectsPerPredicate(store);
    for (const { format } of DOCUMENTS) assert.equal(counts[format], 2, `${format}: ${JSON.stringify(counts)}`);
  });

  it('the same file bulk-loaded twice, into an empty store and then beside its data: two nodes each', async () => {
    const store = join(dir, 'load');
    for (const { format, text } of DOCUMENTS) {
      const file = join(dir, `document.${EXTENSIONS[format]}`);
      writeFileSync(file, text);
      for (let round = 0; round < 2; round++) await run(process.execPath, [MAIN, 'load', '--store', store, file]);
    }
    const counts = await subjectsPerPredicate(store);
    for (const { format } of DOCUMENTS) assert.equal(counts[format], 2, `${format}: ${JSON.stringify(counts)}`);
  });
});
