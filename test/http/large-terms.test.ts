/**
 * A literal of several megabytes: SPARQL text refuses it with a 400 that names the term length
 * limit (the parser's lexer cannot take it), and the way that message points to, an RDF document
 * through the Graph Store Protocol, loads it whole.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TERM_LENGTH } from '../../src/sparql/text-limits.js';
import { SPARQL_QUERY, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

const HUGE = 'x'.repeat(5 * 1024 * 1024);

describe('a 5 MB literal', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server.close());

  it('is refused in an update with a 400 naming the term length limit', async () => {
    const response = await fetch(server.url('/sparql/update'), {
      method: 'POST',
      headers: { 'content-type': SPARQL_UPDATE },
      body: `INSERT DATA { <urn:s> <urn:p> """${HUGE}""" }`,
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), new RegExp(`term length limit of ${MAX_TERM_LENGTH}`));
  });

  for (const [type, document] of [
    ['text/turtle', `<urn:s> <urn:p> """${HUGE}""" .`],
    ['application/n-triples', `<urn:s> <urn:p> "${HUGE}" .\n`],
  ]) {
    it(`loads whole from a ${type} document through the Graph Store Protocol`, async () => {
      const put = await fetch(server.url('/sparql/store?graph=urn:big'), { method: 'PUT', headers: { 'content-type': type! }, body: document });
      assert.ok(put.status === 201 || put.status === 204, String(put.status));
      const query = 'SELECT (STRLEN(?o) AS ?length) WHERE { GRAPH <urn:big> { <urn:s> <urn:p> ?o } }';
      const answer = await fetch(server.url('/sparql/select'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY, accept: 'text/csv' }, body: query });
      assert.equal((await answer.text()).split('\r\n')[1], String(HUGE.length));
    });
  }
});
