/**
 * What each update form reports it changed: real changes only, in total and per graph. The store
 * starts each case with `:a :p 1` in the default graph and `:b :p 2` in <urn:g1>.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStore } from '../../store/lmdb-store.js';
import type { QuadStore } from '../../store/quad-store.js';
import { runUpdate } from '../query-engine.js';

const P = 'PREFIX : <urn:x:> ';

describe('update summaries', () => {
  let store: QuadStore;
  let dir: string;
  let dataFile: string;

  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'quiver-update-summary-')));
    dataFile = join(dir, 'data.ttl');
    await writeFile(dataFile, '<urn:x:a> <urn:x:p> 1 . <urn:x:c> <urn:x:p> 3 . <urn:x:d> <urn:x:p> 4 .');
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await store?.close();
    store = openStore({ memory: true });
    await runUpdate(store, `${P} INSERT DATA { :a :p 1 GRAPH <urn:g1> { :b :p 2 } }`);
  });

  const update = (text: string) => runUpdate(store, P + text, { loadDirectory: dir });

  it('INSERT DATA counts only quads that were not there', async () => {
    assert.deepEqual(await update('INSERT DATA { :a :p 1 . :a :p 5 GRAPH <urn:g2> { :a :p 1 } }'), {
      inserted: 2,
      deleted: 0,
      graphs: [
        { graph: null, inserted: 1, deleted: 0 },
        { graph: 'urn:g2', inserted: 1, deleted: 0 },
      ],
    });
  });

  it('DELETE DATA counts only quads that were there', async () => {
    assert.deepEqual(await update('DELETE DATA { :a :p 1 . :a :p 99 GRAPH <urn:g1> { :b :p 2 } }'), {
      inserted: 0,
      deleted: 2,
      graphs: [
        { graph: null, inserted: 0, deleted: 1 },
        { graph: 'urn:g1', inserted: 0, deleted: 1 },
      ],
    });
  });

  it('DELETE/INSERT WHERE counts both, per graph', async () => {
    const summary = await update('DELETE { GRAPH <urn:g1> { ?s :p ?o } } INSERT { ?s :q ?o } WHERE { GRAPH <urn:g1> { ?s :p ?o } }');
    assert.deepEqual(summary.graphs, [
      { graph: null, inserted: 1, deleted: 0 },
      { graph: 'urn:g1', inserted: 0, deleted: 1 },
    ]);
  });

  it('LOAD counts the new quads of the document', async () => {
    const iri = pathToFileURL(dataFile).href;
    assert.deepEqual(await update(`LOAD <${iri}>`), { inserted: 2, deleted: 0, graphs: [{ graph: null, inserted: 2, deleted: 0 }] });
    assert.deepEqual(await update(`LOAD <${iri}> INTO GRAPH <urn:g3>`), {
      inserted: 3,
      deleted: 0,
      graphs: [{ graph: 'urn:g3', inserted: 3, deleted: 0 }],
    });
  });

  it('CLEAR and DROP count the quads they remove; CREATE changes none', async () => {
    assert.deepEqual(await update('CREATE GRAPH <urn:g9>'), { inserted: 0, deleted: 0, graphs: [] });
    assert.deepEqual(await update('CLEAR GRAPH <urn:g1>'), { inserted: 0, deleted: 1, graphs: [{ graph: 'urn:g1', inserted: 0, deleted: 1 }] });
    assert.deepEqual(await update('DROP ALL'), { inserted: 0, deleted: 1, graphs: [{ graph: null, inserted: 0, deleted: 1 }] });
  });

  it('DROP of a named graph counts its quads', async () => {
    assert.equal((await update('DROP GRAPH <urn:g1>')).deleted, 1);
  });

  it('ADD counts what is new in the destination', async () => {
    await update('INSERT DATA { GRAPH <urn:g2> { :a :p 1 } }');
    assert.deepEqual(await update('ADD DEFAULT TO <urn:g2>'), { inserted: 0, deleted: 0, graphs: [] });
    assert.deepEqual(await update('ADD <urn:g1> TO DEFAULT'), { inserted: 1, deleted: 0, graphs: [{ graph: null, inserted: 1, deleted: 0 }] });
  });

  it('COPY counts the cleared destination and the copy', async () => {
    assert.deepEqual(await update('COPY DEFAULT TO <urn:g1>'), { inserted: 1, deleted: 1, graphs: [{ graph: 'urn:g1', inserted: 1, deleted: 1 }] });
  });

  it('MOVE counts the source emptied as deletions too', async () => {
    assert.deepEqual(await update('MOVE <urn:g1> TO DEFAULT'), {
      inserted: 1,
      deleted: 2,
      graphs: [
        { graph: null, inserted: 1, deleted: 1 },
        { graph: 'urn:g1', inserted: 0, deleted: 1 },
      ],
    });
  });

  it('several operations add up, a quad deleted then inserted again counting in each', async () => {
    assert.deepEqual(await update('DELETE DATA { :a :p 1 } ; INSERT DATA { :a :p 1 } ; INSERT DATA { :a :p 1 }'), {
      inserted: 1,
      deleted: 1,
      graphs: [{ graph: null, inserted: 1, deleted: 1 }],
    });
  });
});
