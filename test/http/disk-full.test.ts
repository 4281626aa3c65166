/**
 * A full disk, for real: the store lives on a tmpfs of a few MiB (mounting one needs root, as in
 * CI; elsewhere the test is skipped and says why). Writes past the room left are answered 507 with
 * a message that says the disk is full, keep nothing, lose nothing acknowledged before; /health
 * says the store is not writable; once space returns, /health is 200 and writes work again.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalService } from '../../src/service/local-service.js';
import { SPARQL_QUERY, SPARQL_UPDATE, startServer, type RunningServer } from './harness.js';

const DISK_SIZE = '4m';
/** Taken from the disk before the store fills it, and given back to show writes work again. */
const FILLER_BYTES = 1536 * 1024;
const TRIPLES_PER_WRITE = 200;

function mountTinyDisk(): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_SIZE}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs here (needs root): ${(error as Error).message.split('\n')[0]}` };
  }
}

const disk = mountTinyDisk();

describe('a full disk', { skip: 'skip' in disk ? disk.skip : false }, () => {
  const dir = 'dir' in disk ? disk.dir : '';
  const filler = join(dir, 'filler');
  let server: RunningServer;
  let acknowledged = 0;

  before(async () => {
    writeFileSync(filler, Buffer.alloc(FILLER_BYTES, 1));
    server = await startServer(await createLocalService({ store: join(dir, 'store'), workers: 1 }));
  });
  after(async () => {
    await server?.close();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (batch: number): Promise<Response> => {
    const triples = Array.from(
      { length: TRIPLES_PER_WRITE },
      (_, i) => `<urn:s:${batch}:${i}> <urn:p> "${'a value that takes some room '.repeat(4)}${batch} ${i}"`,
    );
    return fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: `INSERT DATA { ${triples.join(' . ')} }` });
  };
  const count = async (): Promise<number> => {
    const response = await fetch(server.url('/sparql/select'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_QUERY, accept: 'text/csv' },
      body: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
    });
    return Number((await response.text()).split('\r\n')[1]);
  };
  const health = async (): Promise<{ status: number; body: { writable: boolean; problem?: string } }> => {
    const response = await fetch(server.url('/health'), { headers: { accept: 'application/json' } });
    return { status: response.status, body: (await response.json()) as { writable: boolean; problem?: string } };
  };

  it('answers the write that does not fit 507, saying the disk is full, and keeps every write acknowledged before', async () => {
    let refused: Response | undefined;
    for (let batch = 0; batch < 1000 && !refused; batch++) {
      const response = await write(batch);
      if (response.status === 200) acknowledged++;
      else refused = response;
    }
    assert.ok(refused, 'the disk never filled');
    assert.ok(acknowledged > 0);
    assert.equal(refused.status, 507);
    const message = await refused.text();
    assert.match(message, /the disk of the store is full/);
    assert.doesNotMatch(message, /Input\/output error|setup locks/);
    assert.equal(await count(), acknowledged * TRIPLES_PER_WRITE);
  });

  it('says on /health that the store is not writable while the disk is full', async () => {
    const { status, body } = await health();
    assert.equal(status, 503);
    assert.equal(body.writable, false);
    assert.match(body.problem ?? '', /disk of the store is full/);
  });

  it('writes again once space returns, and /health is 200 again', async () => {
    rmSync(filler);
    const { status, body } = await health();
    assert.equal(status, 200);
    assert.equal(body.writable, true);
    const response = await write(1_000_000);
    assert.equal(response.status, 200, await response.text());
    assert.equal(await count(), (acknowledged + 1) * TRIPLES_PER_WRITE);
  });
});
