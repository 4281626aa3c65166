import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery, parseUpdate } from './parse.js';
import { SparqlSyntaxError } from '../errors.js';

const PREFIX = 'PREFIX : <http://ex/> ';

function rejects(text: string, message: RegExp): void {
  const parse = text.startsWith('INSERT') ? parseUpdate : parseQuery;
  assert.throws(
    () => parse(PREFIX + text),
    (error: unknown) => error instanceof SparqlSyntaxError && message.test(error.message),
    text,
  );
}

function accepts(text: string): void {
  const parse = text.startsWith('INSERT') ? parseUpdate : parseQuery;
  assert.doesNotThrow(() => parse(PREFIX + text), text);
}

describe('variable scope checks after the parse', () => {
  it('rejects a VALUES clause that names a variable twice, wherever it stands', () => {
    const twice = /\?a is named twice in a VALUES clause/;
    rejects('SELECT * { VALUES (?a ?a) { (1 1) } }', twice);
    rejects('SELECT * { } VALUES (?b ?a ?a) { (1 2 3) }', twice);
    rejects('SELECT * { OPTIONAL { { SELECT * { VALUES (?a ?a) { } } } } }', twice);
    rejects('INSERT { :s :p ?a } WHERE { VALUES (?a ?a) { (1 1) } }', twice);
    accepts('SELECT * { VALUES (?a ?b) { (1 1) } VALUES ?a { 1 } }');
  });

  it('rejects a SELECT expression whose variable the WHERE pattern already binds', () => {
    const inScope = /\?z of a SELECT expression .* is already in scope/;
    rejects('SELECT (1 AS ?z) { ?s :p ?z }', inScope);
    rejects('SELECT (1 AS ?z) { GRAPH ?z { } }', inScope);
    rejects('SELECT (1 AS ?z) { { :s :p ?o } UNION { OPTIONAL { ?z :p ?o } } }', inScope);
    rejects('SELECT (1 AS ?z) { BIND(2 AS ?z) }', inScope);
    rejects('SELECT (1 AS ?z) { VALUES ?z { 1 } }', inScope);
    rejects('SELECT (1 AS ?z) { << :s :p :o ~ ?z >> :q 1 }', inScope);
    rejects('SELECT (1 AS ?z) { { SELECT * { ?s :p ?z } } }', inScope);
    rejects('INSERT { :s :p ?z } WHERE { { SELECT (1 AS ?z) { ?z :p ?o } } }', inScope);
  });

  it('accepts a SELECT expression whose variable is only filtered on, subtracted, or hidden by a sub-SELECT', () => {
    accepts('SELECT (1 AS ?z) { ?s :p ?o FILTER(?z) }');
    accepts('SELECT (1 AS ?z) { ?s :p ?o FILTER EXISTS { ?s :p ?z } }');
    accepts('SELECT (1 AS ?z) { ?s :p ?o MINUS { ?s :p ?z } }');
    accepts('SELECT (1 AS ?z) { { SELECT ?s { ?s :p ?z } } }');
  });

  it('in a grouped query, rejects a SELECT expression whose variable is a group key', () => {
    const inScope = /\?z of a SELECT expression .* is already in scope/;
    rejects('SELECT (123 AS ?z) { :s :p ?z } GROUP BY ?z', inScope);
    rejects('SELECT (123 AS ?z) { } GROUP BY ?z', inScope);
    rejects('SELECT (123 AS ?z) { } GROUP BY (1 AS ?z)', inScope);
    rejects('SELECT (COUNT(*) AS ?z) { } GROUP BY ?s (1 AS ?z)', inScope);
  });

  it('in a grouped query, accepts a SELECT expression over a variable of the pattern that is not a group key', () => {
    accepts('SELECT (123 AS ?z) { ?s :p ?z } GROUP BY ?s');
    accepts('SELECT (COUNT(*) AS ?z) { ?s :p ?z }');
    accepts('SELECT (1 AS ?z) { ?s :p ?z } HAVING (COUNT(*) > 1)');
    accepts('SELECT (SAMPLE(?z) AS ?y) (COUNT(?z) AS ?z2) { ?s :p ?z } GROUP BY (STR(?s))');
  });
});
