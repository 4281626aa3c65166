import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EvaluationError, ProtocolError } from '../../errors.js';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { runQuery, runUpdate } from '../query-engine.js';
import { permittedPath, readLoadDirectoryFile } from './load-directory.js';

describe('LOAD of local files', () => {
  let root: string;
  let loadDir: string;
  let store: QuadStore;
  const fileIri = (path: string): string => pathToFileURL(path).href;

  before(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'quiver-load-dir-')));
    loadDir = join(root, 'allowed');
    await mkdir(join(loadDir, 'sub'), { recursive: true });
    await writeFile(join(loadDir, 'sub', 'data.ttl'), '<urn:s> <urn:p> "inside" .');
    await writeFile(join(root, 'secret.ttl'), '<urn:s> <urn:p> "secret" .');
    await symlink(join(root, 'secret.ttl'), join(loadDir, 'link-out.ttl'));
    await symlink(join(loadDir, 'sub', 'data.ttl'), join(loadDir, 'link-in.ttl'));
    store = openStore({ memory: true });
  });
  after(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  async function values(): Promise<string[]> {
    const result = await runQuery(store, 'SELECT ?o { ?s ?p ?o }');
    assert.equal(result.kind, 'bindings');
    return [...result.rows]
      .flat()
      .map((row) => row[0]!.value)
      .sort();
  }

  it('reads a file under the load directory, also through a link that stays inside', async () => {
    assert.equal((await readLoadDirectoryFile(fileIri(join(loadDir, 'sub', 'data.ttl')), loadDir)).length, 1);
    assert.equal(await permittedPath(fileIri(join(loadDir, 'link-in.ttl')), loadDir), join(loadDir, 'sub', 'data.ttl'));
  });

  it('reads no local file when no load directory is configured', async () => {
    await assert.rejects(readLoadDirectoryFile(fileIri(join(loadDir, 'sub', 'data.ttl')), undefined), ProtocolError);
  });

  it("refuses files outside it, '..' and links that lead out", async () => {
    await assert.rejects(permittedPath(fileIri(join(root, 'secret.ttl')), loadDir), /outside the load directory/);
    await assert.rejects(permittedPath(`${fileIri(loadDir)}/sub/../../secret.ttl`, loadDir), /'\.\.' is not allowed/);
    await assert.rejects(permittedPath(`${fileIri(loadDir)}/%2e%2e/secret.ttl`, loadDir), /'\.\.' is not allowed/);
    await assert.rejects(permittedPath(fileIri(join(loadDir, 'link-out.ttl')), loadDir), /outside the load directory/);
    await assert.rejects(permittedPath(fileIri(loadDir), loadDir), /outside the load directory/, 'the directory itself is no document');
    await assert.rejects(permittedPath('file://elsewhere.example/etc/passwd', loadDir), /not a path on this machine/);
  });

  it('says a missing file inside the directory is a failed LOAD, which SILENT tolerates', async () => {
    await assert.rejects(permittedPath(fileIri(join(loadDir, 'missing.ttl')), loadDir), EvaluationError);
    await runUpdate(store, `LOAD SILENT <${fileIri(join(loadDir, 'missing.ttl'))}>`, { loadDirectory: loadDir });
    assert.deepEqual(await values(), []);
  });

  it('loads through runUpdate only with a load directory, and a refusal changes nothing', async () => {
    const load = `INSERT DATA { <urn:a> <urn:b> "before" } ; LOAD <${fileIri(join(loadDir, 'sub', 'data.ttl'))}>`;
    await assert.rejects(runUpdate(store, load), /no load directory/);
    await assert.rejects(runUpdate(store, load, { loadDirectory: loadDir, allowLoad: false }), /LOAD is disabled/);
    await assert.rejects(runUpdate(store, `LOAD <${fileIri(join(root, 'secret.ttl'))}>`, { loadDirectory: loadDir }), ProtocolError);
    assert.deepEqual(await values(), []);
    await runUpdate(store, load, { loadDirectory: loadDir });
    assert.deepEqual(await values(), ['before', 'inside']);
  });
});
