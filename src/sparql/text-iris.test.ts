import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SparqlSyntaxError } from '../errors.js';
import { parseQuery, parseUpdate } from './parse.js';

/** One of each kind of invalid IRI, with what the message says about it. */
const INVALID: [string, RegExp][] = [
  ['http://x.example/a#b#c', /second '#'/],
  ['http://x.example/a%zz', /'%'/],
  ['http://[::1/a', /no '\]'/],
  ['http://[1:2:3]/a', /neither an IPv6 address/],
  ['http://x.example:8o/a', /port/],
  ['http://x.example/[a]', /outside the host/],
];

/** Where an IRI may stand in a query: `@` marks the place, on the query's third line. */
const QUERY_PLACES = [
  'SELECT * WHERE {\n  ?s ?p ?o .\n  ?s ?p @ }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  @ ?p ?o }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  ?s @ ?o }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  ?s ?p "x"^^@ }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  GRAPH @ { ?s ?p ?o } }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER(?o = @) }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  BIND(@(?o) AS ?x) }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  ?s <http://x.example/p>/@ ?o }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  VALUES ?v { @ } }',
  'SELECT *\nFROM <http://x.example/ok>\nFROM @\nWHERE { ?s ?p ?o }',
  'SELECT * WHERE {\n  ?s ?p ?o .\n  SERVICE @ { ?s ?p ?o } }',
  'CONSTRUCT {\n  ?s ?p ?o .\n  ?s ?p @ } WHERE { ?s ?p ?o }',
  'ASK {\n  ?s ?p ?o .\n  ?s ?p @ }',
  'DESCRIBE ?s\nWHERE { ?s ?p ?o }\n VALUES ?s { @ }',
];

/** Where an IRI may stand in an update, again on the third line. */
const UPDATE_PLACES = [
  'INSERT DATA {\n  <http://x.example/s> <http://x.example/p> 1 .\n  <http://x.example/s> <http://x.example/p> @ }',
  'DELETE DATA {\n  <http://x.example/s> <http://x.example/p> 1 .\n  GRAPH @ { <http://x.example/s> <http://x.example/p> 1 } }',
  'INSERT { ?s ?p 1 }\nWHERE {\n  ?s ?p @ }',
  'DELETE { ?s ?p ?o }\nUSING <http://x.example/g>\nUSING @ WHERE { ?s ?p ?o }',
  'CLEAR GRAPH <http://x.example/g> ;\n\nLOAD @',
  'CLEAR ALL ;\nDROP SILENT GRAPH <http://x.example/g> ;\nCREATE GRAPH @',
  'INSERT DATA { <http://x.example/s> <http://x.example/p> 1 } ;\nDELETE WHERE { ?s ?p ?o } ;\nWITH @ DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }',
];

function refusedAt(parse: () => unknown, line: number, column: number, reason: RegExp, what: string): void {
  assert.throws(
    parse,
    (error: unknown) => {
      assert.ok(error instanceof SparqlSyntaxError, `${what}: a SparqlSyntaxError (a 400)`);
      assert.match(error.message, /^invalid IRI </, what);
      assert.match(error.message, reason, what);
      assert.equal(error.line, line, `${what}: the line`);
      assert.equal(error.column, column, `${what}: the column`);
      return true;
    },
    what,
  );
}

/** Line and column of the `@` in a template, where the IRI will start. */
function placeOf(template: string): { line: number; column: number } {
  const before = template.slice(0, template.indexOf('@')).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

describe('IRIs written in queries and updates', () => {
  it('refuses every kind of invalid IRI, in every place of a query, at its line and column', () => {
    for (const template of QUERY_PLACES) {
      for (const [iri, reason] of INVALID) {
        const query = template.replace('@', `<${iri}>`);
        const { line, column } = placeOf(template);
        // A line-3 place with a line-3 IRI: DESCRIBE's VALUES is on line 4, FROM on line 3.
        refusedAt(() => parseQuery(query), line, column, reason, query);
      }
    }
  });

  it('refuses every kind of invalid IRI in every place of an update', () => {
    for (const template of UPDATE_PLACES) {
      for (const [iri, reason] of INVALID) {
        const update = template.replace('@', `<${iri}>`);
        const { line, column } = placeOf(template);
        refusedAt(() => parseUpdate(update), line, column, reason, update);
      }
    }
  });

  it('checks prefixed names as the IRIs they stand for, and PREFIX and BASE themselves', () => {
    refusedAt(() => parseQuery('PREFIX ex: <http://x.example/a#>\nSELECT * {\n  ?s ex:b\\#c ?o }'), 3, 6, /second '#'/, 'a local name');
    refusedAt(() => parseQuery('PREFIX ex: <http://[::1/>\nSELECT * { ?s ex:b ?o }'), 1, 12, /no '\]'/, 'a PREFIX');
    refusedAt(() => parseQuery('BASE <http://x.example/%zz/>\nSELECT * { ?s ?p ?o }'), 1, 6, /'%'/, 'a BASE');
    refusedAt(() => parseQuery('BASE <http://x.example/>\nSELECT * {\n ?s ?p <a#b#c> }'), 3, 8, /second '#'/, 'a relative IRI');
    // Prefixes declared by an update's later operation apply from there on.
    refusedAt(
      () =>
        parseUpdate(
          'PREFIX ex: <http://x.example/>\nINSERT DATA { ex:a ex:b ex:c\\#d } ;\nPREFIX ex: <http://x.example/#>\nINSERT DATA { ex:a ex:b ex:c\\#d }',
        ),
      4,
      25,
      /second '#'/,
      'a prefix redeclared',
    );
  });

  it('accepts odd but valid IRIs: IP literals, ports, unicode, empty fragments, urn:, mailto:, relative ones', () => {
    for (const iri of [
      'http://[::1]:8080/a',
      'http://[2001:db8::ffff:192.0.2.1]/',
      'http://x.example:/',
      'http://x.example/caf\u00e9/\u6f22#',
      'http://x.example/a#',
      'urn:isbn:0451450523',
      'mailto:a@x.example',
      'http://x.example/%C3%A9',
      "http://x.example/!$&'()*+,;=:@",
    ]) {
      parseQuery(`SELECT * WHERE { ?s ?p <${iri}> }`);
      parseUpdate(`INSERT DATA { <${iri}> <${iri}> <${iri}> }`);
    }
    parseQuery('BASE <http://x.example/a/>\nPREFIX ex: <b#>\nSELECT * { ?s ex:c <../d?e#> }');
    parseQuery('PREFIX ex: <http://x.example/>\nSELECT * { ?s ex:a\\#b ?o }');
  });

  it('refuses an invalid IRI in a query whose shape was parsed before (the template path)', () => {
    const shape = (iri: string): string => `SELECT ?o WHERE { <${iri}> <http://x.example/p> ?o }`;
    parseQuery(shape('http://x.example/first'));
    parseQuery(shape('http://x.example/second'));
    refusedAt(() => parseQuery(shape('http://x.example/a#b#c')), 1, 19, /second '#'/, 'a constant of a known template');
  });
});
