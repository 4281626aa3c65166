import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CancelledError,
  EvaluationError,
  OverloadedError,
  ProtocolError,
  ResourceLimitError,
  StorageFullError,
  StoreClosedError,
  SparqlSyntaxError,
  TimeoutError,
} from '../errors.js';
import { SerializationError } from '../formats/serialization-error.js';
import { RemoteEndpointError, RemoteTimeoutError } from '../service/remote-errors.js';
import { errorResponse, MEMORY_BUDGET_HINT, statusOf } from './error-response.js';

describe('statusOf', () => {
  it('maps each error class of the lower layers, which know no HTTP, to its status', () => {
    assert.equal(statusOf(new SparqlSyntaxError('unexpected "}"', 3, 14)), 400);
    assert.equal(statusOf(new ProtocolError('bad IRI')), 400);
    assert.equal(statusOf(new EvaluationError('CREATE failed')), 500);
    assert.equal(statusOf(new ResourceLimitError('too big')), 500);
    assert.equal(statusOf(new TimeoutError()), 504);
    assert.equal(statusOf(new CancelledError()), 499);
    assert.equal(statusOf(new OverloadedError()), 503);
    assert.equal(statusOf(new StoreClosedError()), 503);
    assert.equal(statusOf(new StorageFullError('the disk of the store is full')), 507);
    assert.equal(statusOf(new SerializationError('no QName for <http://example.org/123>')), 406);
    assert.equal(statusOf(new RemoteEndpointError('the remote endpoint answered 500')), 502);
    assert.equal(statusOf(new RemoteTimeoutError('the remote endpoint timed out')), 504);
    assert.equal(statusOf(Object.assign(new Error('too large'), { statusCode: 413 })), 413);
    assert.equal(statusOf(new Error('a bug')), 500);
  });
});

describe('errorResponse', () => {
  it('answers a query over its memory budget with 500, the budget and the flag that sets it', () => {
    const response = errorResponse(new ResourceLimitError('the query needs more than its memory budget of 64 MiB'), 'json');
    assert.equal(response.status, 500);
    const body = JSON.parse(response.body) as { message: string };
    assert.equal(body.message, `the query needs more than its memory budget of 64 MiB; ${MEMORY_BUDGET_HINT}`);
    assert.match(body.message, /--query-memory/);
  });

  it('leaves other messages as they are', () => {
    const response = errorResponse(new EvaluationError('CREATE: the graph <urn:g> already exists'), 'text');
    assert.equal(response.status, 500);
    assert.equal(response.body, 'CREATE: the graph <urn:g> already exists\n');
  });

  it('marks every error body nosniff, whatever its format, since it may echo the request', () => {
    for (const format of ['text', 'html', 'json', 'xml'] as const) {
      const response = errorResponse(new EvaluationError('<script>alert(1)</script>'), format);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', format);
    }
  });
});
