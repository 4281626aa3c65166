/**
 * The LOAD policy seen over HTTP: switched off (--no-load), and local files only from a configured
 * load directory (--load-dir). A refused LOAD is a 400 and leaves the store as it was.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLocalService } from '../../src/service/local-service.js';
import { encodeQuery, SPARQL_UPDATE, startServer, type RunningServer } from './harness.js';

async function update(server: RunningServer, text: string): Promise<Response> {
  return fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: text });
}

async function count(server: RunningServer): Promise<number> {
  const query = 'SELECT (COUNT(*) AS ?n) { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
  const json = (await (await fetch(server.url(`/sparql/select?${encodeQuery({ query })}`))).json()) as any;
  return Number(json.results.bindings[0].n.value);
}

describe('LOAD policy over HTTP', () => {
  let root: string;
  let loadDir: string;
  let documentIri: string;
  let outsideIri: string;

  before(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'quiver-load-policy-')));
    loadDir = join(root, 'imports');
    await mkdir(loadDir);
    await writeFile(join(loadDir, 'data.nt'), '<urn:s> <urn:p> "from a file" .\n');
    await writeFile(join(root, 'private.nt'), '<urn:s> <urn:p> "private" .\n');
    documentIri = pathToFileURL(join(loadDir, 'data.nt')).href;
    outsideIri = pathToFileURL(join(root, 'private.nt')).href;
  });
  after(async () => rm(root, { recursive: true, force: true }));

  describe('with LOAD switched off', () => {
    let server: RunningServer;
    before(async () => (server = await startServer(await createLocalService({ memory: true, workers: 1, allowLoad: false, loadDir }))));
    after(async () => server.close());

    it('answers 400 and changes nothing, even for the earlier operations of the request', async () => {
      const response = await update(server, `INSERT DATA { <urn:a> <urn:b> <urn:c> } ; LOAD <${documentIri}>`);
      assert.equal(response.status, 400);
      assert.match(await response.text(), /LOAD is disabled on this server/);
      assert.equal(await count(server), 0);
    });
  });

  describe('with a load directory', () => {
    let server: RunningServer;
    before(async () => (server = await startServer(await createLocalService({ memory: true, workers: 1, loadDir }))));
    after(async () => server.close());

    it('refuses a file outside the directory with 400 and loads one inside', async () => {
      const refused = await update(server, `LOAD <${outsideIri}>`);
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /outside the load directory/);
      assert.equal(await count(server), 0);
      assert.equal((await update(server, `LOAD <${documentIri}> INTO GRAPH <urn:g>`)).status, 200);
      assert.equal(await count(server), 1);
    });
  });

  describe('without a load directory (the default)', () => {
    let server: RunningServer;
    before(async () => (server = await startServer(await createLocalService({ memory: true, workers: 1 }))));
    after(async () => server.close());

    it('reads no local file', async () => {
      const refused = await update(server, `LOAD <${documentIri}>`);
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /reads no local files/);
      assert.equal(await count(server), 0);
    });
  });
});
