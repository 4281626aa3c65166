/**
 * explain=true over HTTP: the plan as JSON instead of the result, for GET, POST bodies and forms,
 * with errors answered exactly as for a normal query.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeQuery, FORM, SPARQL_QUERY, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';
import type { PlanNode, QueryExplanation } from '../../src/service/sparql-service.js';

const EX = 'http://example.org/';
const DATA = `PREFIX ex: <${EX}>
INSERT DATA {
  ex:alice ex:name "Alice" ; ex:age 30 ; ex:knows ex:bob .
  ex:bob ex:name "Bob" ; ex:age 25 .
  ex:carol ex:name "Carol" .
}`;
const QUERY = `PREFIX ex: <${EX}> SELECT ?name ?age WHERE { ?s ex:name ?name OPTIONAL { ?s ex:age ?age } FILTER(?name != "Carol") }`;

function assertPlanNode(node: PlanNode): void {
  assert.equal(typeof node.operator, 'string');
  assert.equal(typeof node.details, 'string');
  assert.ok(node.estimatedRows === null || typeof node.estimatedRows === 'number');
  assert.equal(typeof node.actualRows, 'number');
  assert.equal(typeof node.timeMs, 'number');
  assert.ok(Array.isArray(node.children));
  for (const child of node.children) assertPlanNode(child);
}

describe('explain=true', () => {
  let server: RunningServer;

  before(async () => {
    server = await startLocalServer();
    const response = await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: DATA });
    assert.equal(response.status, 200, await response.text());
  });
  after(async () => server.close());

  it('answers the plan as JSON, its root counting the result rows', async () => {
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: QUERY, explain: 'true' })}`));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    const explanation = (await response.json()) as QueryExplanation;
    assert.equal(explanation.query, QUERY);
    assert.equal(explanation.resultRows, 2);
    assert.equal(typeof explanation.totalTimeMs, 'number');
    assertPlanNode(explanation.plan);
    assert.equal(explanation.plan.actualRows, explanation.resultRows);
  });

  it('takes the parameter on the URL of a direct POST and in a form', async () => {
    const direct = await fetch(server.url('/sparql?explain=true'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY }, body: QUERY });
    assert.equal(direct.status, 200);
    assert.equal(((await direct.json()) as QueryExplanation).resultRows, 2);
    const form = await fetch(server.url('/sparql'), {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: encodeQuery({ query: QUERY, explain: 'true' }),
    });
    assert.equal(form.status, 200);
    assert.equal(((await form.json()) as QueryExplanation).plan.actualRows, 2);
  });

  it('runs a normal query for explain=false', async () => {
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: QUERY, explain: 'false' })}`), {
      headers: { accept: 'application/sparql-results+json' },
    });
    assert.equal(response.status, 200);
    const json = (await response.json()) as { results: { bindings: unknown[] } };
    assert.equal(json.results.bindings.length, 2);
  });

  it('answers a syntax error with 400, as a normal query would', async () => {
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: 'SELECT ?s {', explain: 'true' })}`));
    assert.equal(response.status, 400);
  });

  it('refuses an explain value other than true or false', async () => {
    const response = await fetch(server.url(`/sparql/select?${encodeQuery({ query: QUERY, explain: 'yes' })}`));
    assert.equal(response.status, 400);
  });
});
