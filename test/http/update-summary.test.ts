/**
 * An update's answer says what it changed, against a real server: the Quiver-Inserted and
 * Quiver-Deleted headers always, a JSON body only for a client whose Accept names JSON, and the
 * protocol's empty 200 for everyone else.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

describe('update answers with what changed', () => {
  let server: RunningServer;
  before(async () => (server = await startLocalServer()));
  after(async () => server.close());

  const post = (update: string, accept?: string) =>
    fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE, ...(accept ? { accept } : {}) },
      body: update,
    });

  it('an empty 200 with the counts in headers for a client that asks for nothing in particular', async () => {
    const response = await post('INSERT DATA { <urn:a> <urn:p> 1 . <urn:a> <urn:p> 2 }', '*/*');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('quiver-inserted'), '2');
    assert.equal(response.headers.get('quiver-deleted'), '0');
    assert.equal(await response.text(), '');
  });

  it('the figures per graph as JSON when Accept names application/json', async () => {
    const response = await post(
      'DELETE DATA { <urn:a> <urn:p> 1 } ; INSERT DATA { <urn:a> <urn:p> 2 . GRAPH <urn:g> { <urn:a> <urn:p> 3 } }',
      'application/json',
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await response.json(), {
      inserted: 1,
      deleted: 1,
      graphs: [
        { graph: null, inserted: 0, deleted: 1 },
        { graph: 'urn:g', inserted: 1, deleted: 0 },
      ],
    });
    assert.equal(response.headers.get('quiver-inserted'), '1');
  });

  it('inserting what is there already counts nothing', async () => {
    const response = await post('INSERT DATA { <urn:a> <urn:p> 2 }');
    assert.equal(response.headers.get('quiver-inserted'), '0');
    assert.equal(await response.text(), '');
  });

  it('DROP over the form-encoded protocol counts what it removed', async () => {
    const response = await fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ update: 'DROP ALL' }),
    });
    assert.deepEqual(await response.json(), {
      inserted: 0,
      deleted: 2,
      graphs: [
        { graph: null, inserted: 0, deleted: 1 },
        { graph: 'urn:g', inserted: 0, deleted: 1 },
      ],
    });
  });
});
