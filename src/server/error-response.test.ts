import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EvaluationError, ResourceLimitError } from '../errors.js';
import { errorResponse, MEMORY_BUDGET_HINT } from './error-response.js';

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
