import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { QueryResult, SolutionRow, SparqlService } from '../service/sparql-service.js';
import { formatLogLine, observedService, queryHash, runObserved, type RequestObservation } from './request-log.js';

function serviceWith(rows: SolutionRow[][], closed: { value: boolean }): SparqlService {
  async function* batches(): AsyncGenerator<SolutionRow[]> {
    try {
      for (const batch of rows) yield batch;
    } finally {
      closed.value = true;
    }
  }
  return {
    query: async (): Promise<QueryResult> => ({ kind: 'bindings', variables: ['x'], rows: batches() }),
    update: async () => undefined,
    describe: async () => ({}),
    close: async () => undefined,
  };
}

/** Runs fn inside a request's observation, as the server's preHandler hook does. */
function observe<T>(fn: () => Promise<T>): Promise<{ observation: RequestObservation; value: T }> {
  const observation: RequestObservation = {};
  return new Promise((resolve, reject) => runObserved(observation, () => fn().then((value) => resolve({ observation, value }), reject)));
}

describe('observedService', () => {
  it('notes the hash of the query and counts the rows as they are read', async () => {
    const service = observedService(serviceWith([[[undefined], [undefined]], [[undefined]]], { value: false }));
    const { observation } = await observe(async () => {
      const result = await service.query({ query: 'SELECT * {}' });
      assert.equal(result.kind, 'bindings');
      if (result.kind === 'bindings') for await (const batch of result.rows) void batch;
    });
    assert.equal(observation.queryHash, queryHash('SELECT * {}'));
    assert.equal(observation.rows, 3);
  });

  it('takes the row count of a result sent as its ready-made document', async () => {
    const document = { mediaType: 'application/sparql-results+json', text: '{}', rows: 7 };
    const base = serviceWith([[[undefined]]], { value: false });
    const service = observedService({ ...base, query: async (request) => ({ ...(await base.query(request)), document }) as QueryResult });
    const { observation } = await observe(async () => {
      const result = await service.query({ query: 'SELECT * {}' });
      if (result.kind === 'bindings') await result.rows[Symbol.asyncIterator]().return?.();
    });
    assert.equal(observation.rows, 7);
  });

  it('counts the rows read when the document was not sent after all', async () => {
    const document = { mediaType: 'application/sparql-results+json', text: '{}', rows: 7 };
    const base = serviceWith([[[undefined], [undefined]]], { value: false });
    const service = observedService({ ...base, query: async (request) => ({ ...(await base.query(request)), document }) as QueryResult });
    const { observation } = await observe(async () => {
      const result = await service.query({ query: 'SELECT * {}' });
      if (result.kind === 'bindings') for await (const batch of result.rows) void batch;
    });
    assert.equal(observation.rows, 2);
  });

  it('closes the source when the result is discarded before it is read', async () => {
    const closed = { value: false };
    const service = observedService(serviceWith([[[undefined]]], closed));
    await observe(async () => {
      const result = await service.query({ query: 'SELECT * {}' });
      if (result.kind !== 'bindings') return;
      const iterator = result.rows[Symbol.asyncIterator]();
      await iterator.next();
      await iterator.return?.();
    });
    assert.ok(closed.value);
  });

  it('keeps the optional members of the service as they are', () => {
    const plain = serviceWith([], { value: false });
    const observed = observedService(plain);
    assert.equal(observed.getGraph, undefined);
    assert.equal(observed.health, undefined);
    assert.equal(typeof observed.describe, 'function');
  });
});

describe('queryHash and formatLogLine', () => {
  it('hash the text to 16 hex digits and write one JSON line', () => {
    assert.match(queryHash('ASK {}'), /^[0-9a-f]{16}$/);
    assert.notEqual(queryHash('ASK {}'), queryHash('ASK { }'));
    const line = formatLogLine({ time: 't', id: 'i', method: 'GET', endpoint: 'select', path: '/sparql/select', status: 200, durationMs: 1.5 });
    assert.ok(line.endsWith('}\n'));
    assert.equal(JSON.parse(line).status, 200);
  });
});
