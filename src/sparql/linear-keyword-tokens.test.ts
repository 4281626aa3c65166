import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUpdate } from './parse.js';
import { SparqlSyntaxError } from '../errors.js';

const INDENT = ' '.repeat(64);

// Without the linear patterns each of these took 2^64 regex steps: the time limit turns a
// regression into a failure instead of a hung test run.
describe('DELETE and INSERT followed by long runs of blanks', { timeout: 20_000 }, () => {
  test('a malformed update after an indented DELETE is a syntax error at the right place', () => {
    assert.throws(
      () => parseUpdate(`PREFIX : <http://example.org/>\nDELETE\n${INDENT}?s ?p ?o }`),
      (error: unknown) => error instanceof SparqlSyntaxError && error.line === 3 && error.column === 65,
    );
  });

  test('an indented DELETE { } WHERE { } and INSERT { } WHERE { } parse', () => {
    const update = parseUpdate(`DELETE${INDENT}{ ?s ?p ?o } WHERE { ?s ?p ?o } ;\nINSERT${INDENT}{ ?s ?p 1 } WHERE { ?s ?p ?o }`);
    assert.equal(update.operations.length, 2);
  });

  test('DELETE DATA, DELETE WHERE and INSERT DATA still allow blanks and comments between their words', () => {
    const update = parseUpdate(
      `INSERT # new\n${INDENT}\n# data follows\nDATA { <http://e/a> <http://e/b> 1 } ;\n` +
        `DELETE${INDENT}DATA { <http://e/a> <http://e/b> 1 } ;\n` +
        `DELETE\t# every\n WHERE { ?s ?p ?o }`,
    );
    const shapes = update.operations.map((op) => {
      const { insert, delete: remove, where } = op as { insert?: unknown[]; delete?: unknown[]; where?: unknown };
      return `${insert ? 'insert' : ''}${remove ? 'delete' : ''}${where ? ' where' : ''}`;
    });
    assert.deepEqual(shapes, ['insert', 'delete', 'delete where']);
  });
});
