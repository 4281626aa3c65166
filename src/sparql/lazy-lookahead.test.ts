import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LLkLookaheadStrategy } from '@traqula/chevrotain';
import type { ILookaheadStrategy } from '@traqula/chevrotain';
import { Parser } from '@traqula/parser-sparql-1-2';
import { LazyLookaheadStrategy } from './lazy-lookahead.js';

/** Chevrotain's LL(k) strategy, counting the lookahead functions it builds. */
function countingStrategy(): { strategy: ILookaheadStrategy; built: () => number } {
  const llk = new LLkLookaheadStrategy();
  let count = 0;
  const strategy: ILookaheadStrategy = {
    validate: (options) => llk.validate(options),
    buildLookaheadForAlternation: (options) => (count++, llk.buildLookaheadForAlternation(options)),
    buildLookaheadForOptional: (options) => (count++, llk.buildLookaheadForOptional(options)),
  };
  return { strategy, built: () => count };
}

const REQUESTS = [
  'ASK {}',
  'SELECT * WHERE { ?s ?p ?o } LIMIT 10',
  'PREFIX : <http://e/> SELECT DISTINCT ?s (COUNT(*) AS ?n) WHERE { ?s :p/:q* ?o OPTIONAL { ?o :r ?x } FILTER(?x > 1 && !BOUND(?y)) } GROUP BY ?s HAVING (?n > 2) ORDER BY DESC(?n) OFFSET 1',
  'BASE <http://e/> CONSTRUCT { ?s <p> [ <q> (1 2.5 "x"@en) ] } WHERE { GRAPH ?g { ?s ^<p>|!(<a>|^<b>) ?o } MINUS { ?s a <C> } VALUES (?s ?o) { (<a> UNDEF) } }',
  'DESCRIBE <http://e/a> ?x WHERE { { ?x ?p 1 } UNION { SELECT ?x { ?x ?q true } } BIND(STRLEN(CONCAT("a", ?y)) AS ?z) }',
  'PREFIX : <http://e/> SELECT * { :a :b :c {| :d :e |} . << :a :b :c >> :f ?o . BIND(<<( :a :b :c )>> AS ?t) }',
  'PREFIX : <http://e/> INSERT DATA { :a :b "c" } ; DELETE WHERE { ?s :b ?o } ; WITH :g DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } USING :h WHERE { ?s ?p ?o }',
  'LOAD SILENT <http://e/doc> INTO GRAPH <http://e/g> ; CLEAR DEFAULT ; COPY <http://e/a> TO DEFAULT',
];

const MALFORMED = ['ASK {', 'SELECT ?x WHERE { ?x ?p }', 'SELECT * { ?s ?p ?o } ORDER', 'INSERT DATA { ?s <p> <o> }'];

function parseOrError(parser: Parser, text: string): unknown {
  try {
    return parser.parse(text);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('lazy lookahead', () => {
  test('builds no lookahead function with the parser, and only those a query reaches when it parses', () => {
    const { strategy, built } = countingStrategy();
    const parser = new Parser({ parserConfig: { lookaheadStrategy: new LazyLookaheadStrategy(strategy) } });
    assert.equal(built(), 0);
    parser.parse('ASK {}');
    const forAsk = built();
    assert.ok(forAsk > 0 && forAsk < 100, `built ${forAsk}`);
    parser.parse('ASK {}');
    assert.equal(built(), forAsk, 'a decision reached again reuses its function');
  });

  test('parses every request, well-formed or not, as the eager strategy does', () => {
    const eager = new Parser();
    const lazy = new Parser({ parserConfig: { lookaheadStrategy: new LazyLookaheadStrategy() } });
    for (const text of REQUESTS) assert.deepEqual(lazy.parse(text), eager.parse(text), text);
    for (const text of MALFORMED) {
      const error = parseOrError(lazy, text);
      assert.ok(error && typeof error === 'object' && 'error' in error, text);
      assert.deepEqual(error, parseOrError(eager, text), text);
    }
  });
});
