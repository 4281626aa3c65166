import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deserializeError, serializeError } from './error-transport.js';
import { EvaluationError, OverloadedError, ResourceLimitError, StorageFullError, SparqlSyntaxError, TimeoutError } from '../errors.js';

/** What the main thread sees of an error thrown in a worker (structured clone in between). */
function acrossThreads(error: unknown): Error {
  return deserializeError(structuredClone(serializeError(error)));
}

test('errors keep their class and details across the thread boundary', () => {
  const syntax = acrossThreads(new SparqlSyntaxError('unexpected "}"', 3, 14));
  assert.ok(syntax instanceof SparqlSyntaxError);
  assert.equal(syntax.line, 3);
  assert.equal(syntax.column, 14);
  assert.equal(syntax.message, 'unexpected "}" (line 3, column 14)');

  assert.ok(acrossThreads(new TimeoutError()) instanceof TimeoutError);
  assert.ok(acrossThreads(new ResourceLimitError('too big')) instanceof ResourceLimitError);
  const overloaded = acrossThreads(new OverloadedError('busy', 5));
  assert.ok(overloaded instanceof OverloadedError);
  assert.equal(overloaded.retryAfterSeconds, 5);
});

test('foreign errors become evaluation errors, even a native SyntaxError', () => {
  const fromLibrary = acrossThreads(new globalThis.SyntaxError('Unexpected token } in JSON'));
  assert.ok(fromLibrary instanceof EvaluationError);
  assert.equal(fromLibrary.message, 'Unexpected token } in JSON');
  assert.ok(acrossThreads('a thrown string') instanceof EvaluationError);
});

test('a full store crosses from the writer thread as itself', () => {
  const rebuilt = deserializeError(serializeError(new StorageFullError('the disk of the store is full')));
  assert.ok(rebuilt instanceof StorageFullError);
  assert.equal(rebuilt.message, 'the disk of the store is full');
});
