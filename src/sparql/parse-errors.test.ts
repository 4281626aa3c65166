import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery, parseUpdate } from './parse.js';
import { SparqlSyntaxError } from '../errors.js';

/** The SparqlSyntaxError a request's parse throws, as its message, line and column. */
function failure(parse: () => unknown): { message: string; line?: number; column?: number } {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof SparqlSyntaxError, String(error));
    return { message: error.message, line: error.line, column: error.column };
  }
  assert.fail('parsed');
}

describe('syntax errors name the line and column of the token where the parse failed', () => {
  it('on a later line, counting the columns of that line', () => {
    assert.deepEqual(
      failure(() => parseQuery('SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER(?o > )\n}')),
      {
        message: "syntax error at ')' (line 3, column 15)",
        line: 3,
        column: 15,
      },
    );
  });

  it('after CRLF line ends, tabs and non-ASCII characters, each one column', () => {
    const failed = failure(() => parseQuery('PREFIX : <http://e/>\r\nSELECT * WHERE {\r\n\t?s :p "é" ?x }'));
    assert.equal(failed.line, 3);
    assert.equal(failed.column, 12);
    assert.match(failed.message, /found --> '\?x' <--/);
  });

  it('at the end of the input when the request stops short', () => {
    assert.deepEqual(
      failure(() => parseUpdate('DELETE DATA {\n <a> <b> <c> \n')),
      {
        message: "unexpected end of input; Expecting --> } <-- but found --> '' <-- (line 3, column 1)",
        line: 3,
        column: 1,
      },
    );
  });

  it('where the input goes on after a complete request', () => {
    assert.deepEqual(
      failure(() => parseQuery('ASK { ?s ?p ?o }\n  ORDER BY ?s GROUP BY ?s')),
      {
        message: 'Redundant input, expecting EOF but found: GROUP (line 2, column 15)',
        line: 2,
        column: 15,
      },
    );
  });
});
