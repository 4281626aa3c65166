/**
 * {base}/sparql/vocabulary: the store's classes and properties ranked by use and prefixes for their
 * namespaces, counted once and kept, counted again after a write; under the query credentials.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../src/server/http-error.js';
import { SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

interface Vocabulary {
  classes: { iri: string; count: number }[];
  properties: { iri: string; count: number }[];
  prefixes: Record<string, string>;
  countedAt: string;
  countMs: number;
}

const SHOP = 'http://shop.example.com/vocab#';

describe('the store vocabulary for completion', () => {
  let server: RunningServer;

  before(async () => {
    server = await startLocalServer({ basePath: '/b' });
    await update(`PREFIX s: <${SHOP}> INSERT DATA {
      s:a a s:Product ; s:price 1 ; s:name "a" . s:b a s:Product ; s:price 2 . s:c a s:Shop ; s:name "c" .
      GRAPH s:g { s:d a s:Shop ; s:price 3 } }`);
  });
  after(async () => server?.close());

  async function update(text: string): Promise<void> {
    const response = await fetch(server.url('/b/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: text });
    assert.equal(response.status, 200, await response.text());
  }

  async function vocabulary(): Promise<Vocabulary> {
    const response = await fetch(server.url('/b/sparql/vocabulary'));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^application\/json/);
    return (await response.json()) as Vocabulary;
  }

  it('ranks classes and properties by use, over all graphs, and names their namespace', async () => {
    const first = await vocabulary();
    // Two products; two shops, one of them in a named graph.
    assert.deepEqual(first.classes.map((c) => [c.iri, c.count]).sort(), [
      [`${SHOP}Product`, 2],
      [`${SHOP}Shop`, 2],
    ]);
    assert.deepEqual(
      first.properties.map((p) => [p.iri, p.count]),
      [
        ['http://www.w3.org/1999/02/22-rdf-syntax-ns#type', 4],
        [`${SHOP}price`, 3],
        [`${SHOP}name`, 2],
      ],
    );
    assert.ok(Object.values(first.prefixes).includes(SHOP), 'a prefix for the shop namespace');
    assert.equal(first.prefixes['rdf'], 'http://www.w3.org/1999/02/22-rdf-syntax-ns#');

    const again = await vocabulary();
    assert.equal(again.countedAt, first.countedAt, 'kept: not counted per request');
  });

  it('counts again after a write', async () => {
    const before = await vocabulary();
    await update(`INSERT DATA { <${SHOP}e> a <${SHOP}Order> }`);
    // Counted again once ten times the last count's time has passed (a stale answer meanwhile).
    let after = await vocabulary();
    for (let tries = 0; after.countedAt === before.countedAt && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await vocabulary();
    }
    assert.notEqual(after.countedAt, before.countedAt);
    assert.ok(after.classes.some((c) => c.iri === `${SHOP}Order`));
  });
});

describe('the store vocabulary of a server whose queries need credentials', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer({
      authorizeQuery: ({ headers }) => {
        if (headers['authorization'] !== 'Bearer t') throw new HttpError(401, 'queries need credentials', { 'www-authenticate': 'Bearer realm="quiver"' });
      },
    });
  });
  after(async () => server?.close());

  it('answers only with them', async () => {
    assert.equal((await fetch(server.url('/sparql/vocabulary'))).status, 401);
    assert.equal((await fetch(server.url('/sparql/vocabulary'), { headers: { authorization: 'Bearer t' } })).status, 200);
  });
});
