import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/lmdb-store.js';
import type { QuadStore } from '../store/quad-store.js';
import { runQuery, runUpdate } from './query-engine.js';
import type { EngineQueryOptions } from './engine-api.js';
import { SparqlSyntaxError, EvaluationError, TimeoutError } from '../errors.js';

const PREFIX = 'PREFIX : <http://ex/> ';

/** Runs a SELECT and returns its rows as `var=value` strings, sorted unless the query orders them. */
async function select(store: QuadStore, query: string, ordered = false, options: EngineQueryOptions = {}): Promise<string[]> {
  const result = await runQuery(store, PREFIX + query, options);
  assert.equal(result.kind, 'bindings');
  const rows: string[] = [];
  if (result.kind !== 'bindings') return rows;
  for (const batch of result.rows) {
    for (const row of batch) rows.push(row.map((t, i) => `${result.variables[i]}=${t ? t.value : '-'}`).join(' '));
  }
  return ordered ? rows : rows.sort();
}

async function ask(store: QuadStore, query: string): Promise<boolean> {
  const result = await runQuery(store, PREFIX + query);
  assert.equal(result.kind, 'boolean');
  return result.kind === 'boolean' && result.value;
}

describe('query engine', () => {
  let store: QuadStore;

  before(async () => {
    store = openStore({ memory: true });
    await runUpdate(
      store,
      PREFIX +
        `INSERT DATA {
          :a :p 1 ; :name "A"@en .
          :b :p 2 ; :q :a .
          :c :p 3 .
          GRAPH :g { :a :r :b }
        }`,
    );
  });
  after(() => store.close());

  it('matches basic graph patterns', async () => {
    assert.deepEqual(await select(store, 'SELECT ?s ?o { ?s :p ?o }'), ['s=http://ex/a o=1', 's=http://ex/b o=2', 's=http://ex/c o=3']);
  });

  it('keeps left solutions without a match in OPTIONAL, and orders by value', async () => {
    assert.deepEqual(await select(store, 'SELECT ?s ?n { ?s :p ?o OPTIONAL { ?s :name ?n } } ORDER BY DESC(?o)', true), [
      's=http://ex/c n=-',
      's=http://ex/b n=-',
      's=http://ex/a n=A',
    ]);
  });

  it('aggregates, with a group that exists even without solutions', async () => {
    assert.deepEqual(await select(store, 'SELECT (SUM(?o) AS ?sum) (COUNT(*) AS ?n) { ?s :p ?o }'), ['sum=6 n=3']);
    assert.deepEqual(await select(store, 'SELECT (COUNT(*) AS ?n) { ?s :nothing ?o }'), ['n=0']);
  });

  it('evaluates GRAPH with a variable, also over an empty group', async () => {
    assert.deepEqual(await select(store, 'SELECT ?g ?s { GRAPH ?g { ?s :r ?o } }'), ['g=http://ex/g s=http://ex/a']);
    assert.deepEqual(await select(store, 'SELECT ?g { GRAPH ?g { } }'), ['g=http://ex/g']);
  });

  it('follows property paths, terminating on cycles', async () => {
    assert.deepEqual(await select(store, 'SELECT ?x { :b :q/:p ?x }'), ['x=1']);
    assert.deepEqual(await select(store, 'SELECT ?x { :b :q* ?x }'), ['x=http://ex/a', 'x=http://ex/b']);
    await runUpdate(store, PREFIX + 'INSERT DATA { :x :next :y . :y :next :x }');
    assert.deepEqual(await select(store, 'SELECT ?z { :x :next+ ?z }'), ['z=http://ex/x', 'z=http://ex/y']);
  });

  it('joins a sub-SELECT with modifiers as a whole, not per outer solution', async () => {
    assert.deepEqual(await select(store, 'SELECT ?s ?o2 { { SELECT ?s { ?s :p ?o } ORDER BY ?o LIMIT 2 } ?s :p ?o2 }'), [
      's=http://ex/a o2=1',
      's=http://ex/b o2=2',
    ]);
  });

  it('keeps FILTER scope inside a group (a variable from outside is unbound there)', async () => {
    // ?o is bound outside the inner group only: inside, the filter sees it unbound and fails.
    assert.deepEqual(await select(store, 'SELECT ?s { ?s :p ?o { ?s :p ?v FILTER(?o = 1) } }'), []);
  });

  it('supports MINUS, NOT EXISTS, BIND and VALUES', async () => {
    assert.deepEqual(await select(store, 'SELECT ?s { ?s :p ?o MINUS { ?s :q ?x } }'), ['s=http://ex/a', 's=http://ex/c']);
    assert.deepEqual(await select(store, 'SELECT ?s ?z { ?s :p ?o BIND(?o * 10 AS ?z) FILTER NOT EXISTS { ?s :q ?any } }'), [
      's=http://ex/a z=10',
      's=http://ex/c z=30',
    ]);
    assert.deepEqual(await select(store, 'SELECT ?s ?o { VALUES ?s { :a :b } ?s :p ?o }'), ['s=http://ex/a o=1', 's=http://ex/b o=2']);
  });

  it('answers ASK, CONSTRUCT and DESCRIBE', async () => {
    assert.equal(await ask(store, 'ASK { :a :p 1 }'), true);
    assert.equal(await ask(store, 'ASK { :a :p 2 }'), false);
    const constructed = await runQuery(store, PREFIX + 'CONSTRUCT { ?s :twice ?o } WHERE { ?s :p ?o }');
    assert.equal(constructed.kind, 'quads');
    if (constructed.kind === 'quads') assert.equal([...constructed.quads].flat().length, 3);
    const described = await runQuery(store, PREFIX + 'DESCRIBE :a');
    if (described.kind === 'quads') assert.equal([...described.quads].flat().length, 2);
  });

  it('applies LIMIT and OFFSET of a CONSTRUCT to its solutions', async () => {
    const constructed = await runQuery(store, PREFIX + 'CONSTRUCT { ?s :twice ?o } WHERE { ?s :p ?o } ORDER BY ?o LIMIT 2 OFFSET 1');
    assert.equal(constructed.kind, 'quads');
    if (constructed.kind === 'quads') assert.equal([...constructed.quads].flat().length, 2);
  });

  it('keeps "01" and "1" distinct as terms but equal as values', async () => {
    await runUpdate(
      store,
      PREFIX + 'INSERT DATA { :n1 :v "1"^^<http://www.w3.org/2001/XMLSchema#integer> . :n2 :v "01"^^<http://www.w3.org/2001/XMLSchema#integer> }',
    );
    assert.deepEqual(await select(store, 'SELECT ?s { ?s :v 1 }'), ['s=http://ex/n1']);
    assert.deepEqual(await select(store, 'SELECT ?s { ?s :v ?x FILTER(?x = 1) }'), ['s=http://ex/n1', 's=http://ex/n2']);
  });

  it('evaluates arithmetic again when its operands change, and each time in a new query', async () => {
    // Rows alternate between operand values; an unbound operand is an error (the filter drops it).
    assert.deepEqual(await select(store, 'SELECT ?s ?x { ?s :p ?o BIND(?o * 10 + 1 AS ?x) } ORDER BY ?s', true), [
      's=http://ex/a x=11',
      's=http://ex/b x=21',
      's=http://ex/c x=31',
    ]);
    assert.deepEqual(await select(store, 'SELECT ?s { ?s :p ?o OPTIONAL { ?s :q ?t } FILTER(?o + 0 > 1) }'), ['s=http://ex/b', 's=http://ex/c']);
    assert.deepEqual(await select(store, 'SELECT ?s ?y { ?s :p ?o OPTIONAL { ?s :q ?t } BIND(-?o AS ?y) } ORDER BY ?y', true), [
      's=http://ex/c y=-3',
      's=http://ex/b y=-2',
      's=http://ex/a y=-1',
    ]);
    for (const n of [1, 2, 1]) assert.deepEqual(await select(store, `SELECT ?s { ?s :p ?o FILTER(?o = ${n} + 0) }`), [`s=http://ex/${n === 1 ? 'a' : 'b'}`]);
  });

  it('keeps the value of a filter per term for the query, errors not kept, with more terms than it keeps', async () => {
    // 20,000 subjects over 12 values each way round (repeats far apart, a string among the numbers:
    // a type error each time), then 20,000 subjects with a value each (more than a query keeps).
    const few = Array.from({ length: 20_000 }, (_, i) => `:f${i} :few ${i % 11 === 0 ? '"x"' : i % 12} .`);
    const many = Array.from({ length: 20_000 }, (_, i) => `:m${i} :many ${i} .`);
    const local = openStore({ memory: true });
    try {
      await runUpdate(local, `${PREFIX} INSERT DATA { ${few.join('\n')} ${many.join('\n')} }`);
      for (const options of [{}, { fastPaths: { valueMemos: false } }]) {
        const counted = async (query: string) => (await select(local, query, false, options))[0];
        const expectedFew = few.filter((_, i) => i % 11 !== 0 && i % 12 > 5).length;
        assert.equal(await counted('SELECT (COUNT(*) AS ?n) { ?s :few ?x FILTER(?x > 5) }'), `n=${expectedFew}`);
        assert.equal(
          await counted('SELECT (COUNT(*) AS ?n) { ?s :few ?x FILTER(!(?x > 5)) }'),
          `n=${20_000 - expectedFew - few.filter((_, i) => i % 11 === 0).length}`,
        );
        assert.equal(await counted('SELECT (COUNT(*) AS ?n) { ?s :many ?x FILTER(?x >= 19990 || ?x < 5) }'), 'n=15');
      }
    } finally {
      await local.close();
    }
  });

  it('keeps the value of an expression of one variable while the variable repeats, but never a fresh one', async () => {
    // Each solution repeats ?o three times in a row (VALUES ?k): a pure expression of ?o is the
    // same for all three, and again right for the next ?o, in this query and the next.
    const repeated = 'SELECT ?s ?k ?v { ?s :p ?o VALUES ?k { 1 2 3 } BIND(xsd:double(STR(?o)) * 2 AS ?v) } ORDER BY ?s ?k';
    for (let query = 0; query < 2; query++) {
      const rows = await select(store, `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> ${repeated}`, true);
      assert.deepEqual(
        rows.map((row) => row.replace(/ k=\d/, '')),
        [
          's=http://ex/a v=2.0E0',
          's=http://ex/a v=2.0E0',
          's=http://ex/a v=2.0E0',
          's=http://ex/b v=4.0E0',
          's=http://ex/b v=4.0E0',
          's=http://ex/b v=4.0E0',
          's=http://ex/c v=6.0E0',
          's=http://ex/c v=6.0E0',
          's=http://ex/c v=6.0E0',
        ],
      );
    }
    // STRUUID(), RAND() and BNODE() give a new value at every call, whatever the variable holds.
    for (const fresh of ['CONCAT(STR(?o), STRUUID())', '?o + RAND()', 'BNODE(STR(?o))']) {
      const rows = await select(store, `SELECT ?k ?v { :a :p ?o VALUES ?k { 1 2 3 } BIND(${fresh} AS ?v) }`);
      const values = rows.map((row) => row.split(' v=')[1]);
      assert.equal(new Set(values).size, 3, `${fresh}: ${values.join(', ')}`);
    }
  });

  it('answers EXISTS of one pattern from its first match, in every way the pattern can be bound', async () => {
    // Data: :a :p 1 ; :name "A"@en . :b :p 2 ; :q :a . :c :p 3 . GRAPH :g { :a :r :b }
    const cases: [string, string[]][] = [
      // The subject bound, the object open (several matches would be read by evaluating it).
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { ?s :q ?x } }', ['s=http://ex/b']],
      ['SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?s :q ?x } }', ['s=http://ex/a', 's=http://ex/c']],
      // Everything bound: one look-up.
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { ?s :p 2 } }', ['s=http://ex/b']],
      // The object bound from the solution.
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { ?t :q ?s } }', ['s=http://ex/a']],
      // A constant the store does not hold matches nothing.
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { ?s :nowhere ?x } }', []],
      ['SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?s :nowhere ?x } }', ['s=http://ex/a', 's=http://ex/b', 's=http://ex/c']],
      // A repeated variable must match itself.
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { ?x :q ?x } }', []],
      // In a named graph: by a constant, by a variable left open, by one bound outside.
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { GRAPH :g { ?s :r ?x } } }', ['s=http://ex/a']],
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { GRAPH ?g { ?x :r ?s } } }', ['s=http://ex/b']],
      ['SELECT ?s ?g { GRAPH ?g { ?x :r ?y } ?s :p ?o FILTER EXISTS { GRAPH ?g { ?s :r ?z } } }', ['s=http://ex/a g=http://ex/g']],
      // The default graph holds no :r.
      ['SELECT ?s { ?s :p ?o FILTER EXISTS { ?s :r ?x } }', []],
    ];
    for (const [query, expected] of cases) assert.deepEqual(await select(store, query), expected, query);
  });

  it('stops evaluation at the deadline', async () => {
    const slow = 'SELECT (COUNT(*) AS ?n) { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?t ?h }';
    await assert.rejects(async () => {
      const result = await runQuery(store, PREFIX + slow, { deadline: Date.now() - 1 });
      if (result.kind === 'bindings') for (const _ of result.rows);
    }, TimeoutError);
  });
});

describe('update requests', () => {
  it('apply all of a request or none of it', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + 'INSERT DATA { :kept :p 1 } ; CREATE GRAPH :g');
      // The second operation fails (the graph exists): the first one's insert must not stay.
      await assert.rejects(runUpdate(store, PREFIX + 'INSERT DATA { :lost :p 2 } ; CREATE GRAPH :g ; INSERT DATA { :lost :p 3 }'), EvaluationError);
      assert.equal(await ask(store, 'ASK { :lost ?p ?o }'), false);
      assert.equal(await ask(store, 'ASK { :kept :p 1 }'), true);
    } finally {
      await store.close();
    }
  });

  it('computes all solutions before changing anything (DELETE/INSERT WHERE)', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + 'INSERT DATA { :a :p 1 . :b :p 2 }');
      await runUpdate(store, PREFIX + 'DELETE { ?s :p ?o } INSERT { ?s :p2 ?o } WHERE { ?s :p ?o FILTER(?o < 2) }');
      assert.deepEqual(await select(store, 'SELECT ?s ?p { ?s ?p ?o }'), ['s=http://ex/a p=http://ex/p2', 's=http://ex/b p=http://ex/p']);
    } finally {
      await store.close();
    }
  });

  it('leaves out the template triples an empty WHERE does not bind, and inserts the others', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + 'WITH :g INSERT { ?s ?p "z" . :a :p 1 } WHERE {}');
      assert.deepEqual(await select(store, 'SELECT ?g ?s { GRAPH ?g { ?s ?p ?o } }'), ['g=http://ex/g s=http://ex/a']);
    } finally {
      await store.close();
    }
  });

  it('supports COPY, MOVE, ADD and DROP between graphs', async () => {
    const store = openStore({ memory: true });
    try {
      await runUpdate(store, PREFIX + 'INSERT DATA { :a :p 1 . GRAPH :g1 { :b :p 2 } }');
      await runUpdate(store, PREFIX + 'COPY DEFAULT TO :g2 ; MOVE :g1 TO :g3 ; ADD :g3 TO DEFAULT');
      assert.deepEqual(await select(store, 'SELECT ?g ?s { GRAPH ?g { ?s ?p ?o } }'), ['g=http://ex/g2 s=http://ex/a', 'g=http://ex/g3 s=http://ex/b']);
      assert.deepEqual(await select(store, 'SELECT ?s { ?s ?p ?o }'), ['s=http://ex/a', 's=http://ex/b']);
      await runUpdate(store, PREFIX + 'DROP ALL');
      assert.deepEqual(await select(store, 'SELECT * { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }'), []);
    } finally {
      await store.close();
    }
  });
});

describe('syntax errors', () => {
  it('name the line and column', async () => {
    const store = openStore({ memory: true });
    try {
      await assert.rejects(runQuery(store, 'SELECT * WHERE {\n  ?s ?p }'), (e: unknown) => {
        assert.ok(e instanceof SparqlSyntaxError);
        assert.equal(e.line, 2);
        assert.equal(e.column, 9);
        return true;
      });
      await assert.rejects(runUpdate(store, 'INSERT DATA { <a> }'), SparqlSyntaxError);
    } finally {
      await store.close();
    }
  });
});
