import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SparqlSyntaxError } from '../errors.js';
import { parseQuery, parseUpdate } from './parse.js';
import { checkTextLimits, MAX_NESTING_DEPTH, MAX_TERM_LENGTH } from './text-limits.js';

/** Every way SPARQL text nests: groups, OPTIONAL, sub-queries, expressions, calls, paths, blank nodes, collections. */
const NESTINGS: Record<string, (depth: number) => string> = {
  'group graph patterns': (n) => `SELECT * WHERE ${'{'.repeat(n)} ?s ?p ?o ${'}'.repeat(n)}`,
  'OPTIONAL inside OPTIONAL': (n) => `SELECT * WHERE { ?s ?p ?o ${'OPTIONAL { ?s ?p ?o '.repeat(n - 1)}${'}'.repeat(n - 1)} }`,
  'sub-queries': (n) => `SELECT * WHERE ${'{ SELECT * WHERE '.repeat(n - 1)}{ ?s ?p ?o }${'}'.repeat(n - 1)}`,
  'parenthesised expressions': (n) => `SELECT * WHERE { ?s ?p ?o FILTER${'('.repeat(n - 1)}1${')'.repeat(n - 1)} }`,
  negations: (n) => `SELECT * WHERE { ?s ?p ?o FILTER(${'!('.repeat(n - 2)}true${')'.repeat(n - 2)}) }`,
  'function calls': (n) => `SELECT * WHERE { ?s ?p ?o FILTER(${'STR('.repeat(n - 2)}1${')'.repeat(n - 2)}) }`,
  'property paths': (n) => `SELECT * WHERE { ?s ${'('.repeat(n - 1)}<http://p>*${')*'.repeat(n - 1)} ?o }`,
  'blank node property lists': (n) => `SELECT * WHERE { ?s <http://p> ${'[ <http://p> '.repeat(n - 1)}1${' ]'.repeat(n - 1)} }`,
  collections: (n) => `SELECT * WHERE { ?s <http://p> ${'( '.repeat(n - 1)}1${' )'.repeat(n - 1)} }`,
};

describe('SPARQL text limits', () => {
  for (const [name, nested] of Object.entries(NESTINGS)) {
    it(`parses ${name} nested to the limit, and refuses them one deeper with a syntax error naming the limit`, () => {
      parseQuery(nested(MAX_NESTING_DEPTH));
      for (const depth of [MAX_NESTING_DEPTH + 2, 1000, 100_000]) {
        const error = thrown(() => parseQuery(nested(depth)));
        assert.ok(error instanceof SparqlSyntaxError, `${name} at ${depth}: ${String(error)}`);
        assert.match(error.message, new RegExp(`nesting depth of a request is limited to ${MAX_NESTING_DEPTH}`));
      }
    });
  }

  it('refuses deep nesting in updates as in queries', () => {
    const depth = 1000;
    const update = `INSERT { <http://a> <http://b> <http://c> } WHERE ${'{'.repeat(depth)} ?s ?p ?o ${'}'.repeat(depth)}`;
    assert.throws(() => parseUpdate(update), /nesting depth of a request is limited/);
  });

  it('does not count brackets inside literals, IRIs and comments', () => {
    const literals = [`"${'{'.repeat(500)}"`, `'''${'('.repeat(500)}'''`, `"""${'['.repeat(500)}"""`, `'\\'${'{'.repeat(500)}'`];
    parseQuery(`SELECT * WHERE { # ${'{'.repeat(500)}\n ?s <http://e/${'('.repeat(500)}> ?o FILTER(?o IN (${literals.join(', ')})) }`);
  });

  it('tells the less-than operator from an IRI', () => {
    checkTextLimits(`SELECT * WHERE { ?s ?p ?o FILTER(?o < 3 && ?o <${'9'.repeat(MAX_TERM_LENGTH + 10)}) }`);
  });

  const justOver = 'x'.repeat(MAX_TERM_LENGTH + 1);
  const terms: Record<string, (body: string) => string> = {
    'a short literal': (body) => `"${body}"`,
    'a short literal in single quotes': (body) => `'${body}'`,
    'a long literal': (body) => `"""${body}"""`,
    'a long literal with line breaks and escapes': (body) => `'''${body.slice(0, -4)}\n\\"x'''`,
    'an IRI': (body) => `<http://e/${body}>`,
  };
  for (const [name, term] of Object.entries(terms)) {
    it(`accepts ${name} up to the term length limit and refuses a longer one (and a 5 MB one) with a 400 naming it`, () => {
      parseUpdate(`INSERT DATA { <http://s> <http://p> ${term('x'.repeat(MAX_TERM_LENGTH - 20))} }`);
      for (const body of [justOver, 'y'.repeat(5 * 1024 * 1024)]) {
        const error = thrown(() => parseUpdate(`INSERT DATA { <http://s> <http://p> ${term(body)} }`));
        assert.ok(error instanceof SparqlSyntaxError, `${name}: ${String(error)}`);
        assert.match(error.message, new RegExp(`longer than the term length limit of ${MAX_TERM_LENGTH}`));
        assert.match(error.message, /\(line 1, column 37\)$/);
      }
    });
  }

  it('answers a chain too long for the parser with the same kind of 400, not V8 words alone', () => {
    const error = thrown(() => parseQuery(`SELECT * WHERE { ?s ?p ?o FILTER(${Array(100_000).fill('1').join('+')}) }`));
    if (error === undefined) return; // a parser and translation that handle it without recursion are just as good
    assert.ok(error instanceof SparqlSyntaxError, String(error));
    assert.match(error.message, /nested or chained too deeply to parse/);
  });
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
