/**
 * The library as a program uses it: open a store, query in every form, update, load and dump,
 * explain, the RDF/JS Store interface, and the typed errors (which carry no HTTP status).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'rdf-data-factory';
import { residentBytes } from '../service/resident-memory.js';
import {
  CancelledError,
  openQuiver,
  ResourceLimitError,
  SparqlSyntaxError,
  StoreClosedError,
  StoreOpenError,
  TimeoutError,
  type QuiverStore,
} from './index.js';

const $ = new DataFactory();
const ex = (name: string): RDF.NamedNode => $.namedNode(`http://example.org/${name}`);
const PREFIX = 'PREFIX : <http://example.org/> ';

function done(emitter: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve, reject) => emitter.on('end', resolve).on('error', reject));
}

async function count(store: QuiverStore, pattern = '{ ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } }'): Promise<number> {
  const [row] = await (await store.select(`SELECT (COUNT(*) AS ?n) { ${pattern} }`)).toArray();
  return Number(row!['n']!.value);
}

describe('a store opened as a library', () => {
  let store: QuiverStore;
  before(async () => {
    store = await openQuiver({ memory: true, workers: 1 });
    await store.update(PREFIX + 'INSERT DATA { :alice :knows :bob ; :age 42 . GRAPH :g { :bob :name "Bob"@en } }');
  });
  after(() => store.close());

  it('answers SELECT with records of RDF/JS terms, unbound variables left out', async () => {
    const answer = await store.select(PREFIX + 'SELECT ?who ?age { ?who :knows ?x OPTIONAL { ?x :age ?age } }');
    assert.deepEqual(answer.variables, ['who', 'age']);
    const rows = await answer.toArray();
    assert.equal(rows.length, 1);
    assert.ok(rows[0]!['who']!.equals(ex('alice')));
    assert.equal('age' in rows[0]!, false);
  });

  it('streams SELECT solutions, and a loop that breaks early stops the evaluation', async () => {
    const answer = await store.select('SELECT * { VALUES ?n { 1 2 3 4 5 } }');
    const seen: string[] = [];
    for await (const solution of answer) {
      seen.push(solution['n']!.value);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, ['1', '2']);
  });

  it('answers ASK with a boolean and CONSTRUCT with quads', async () => {
    assert.equal(await store.ask(PREFIX + 'ASK { :alice :age 42 }'), true);
    const quads = await (await store.construct(PREFIX + 'CONSTRUCT { ?b :isKnownBy ?a } WHERE { ?a :knows ?b }')).toArray();
    assert.equal(quads.length, 1);
    assert.ok(quads[0]!.equals($.quad(ex('bob'), ex('isKnownBy'), ex('alice'))));
  });

  it('tells the form of an answer from query()', async () => {
    const answer = await store.query('ASK {}');
    assert.equal(answer.type, 'boolean');
    await assert.rejects(store.select('ASK {}'), /expected a SELECT query/);
  });

  it('takes the dataset and base IRI per call', async () => {
    const fromNamed = await store.select('SELECT ?name { GRAPH ?g { ?s ?p ?name } }', { namedGraphs: ['http://example.org/g'] });
    assert.equal((await fromNamed.toArray()).length, 1);
    const fromDefault = await store.select('SELECT * { ?s ?p ?o }', { defaultGraphs: ['http://example.org/g'] });
    assert.equal((await fromDefault.toArray()).length, 1);
    assert.equal(await store.ask('ASK { <alice> <knows> <bob> }', { baseIri: 'http://example.org/' }), true);
  });

  it('explains a query: the plan with estimated and actual rows', async () => {
    const explanation = await store.explain(PREFIX + 'SELECT * { ?a :knows ?b . ?b :name ?n }');
    assert.equal(typeof explanation.plan.operator, 'string');
    assert.equal(typeof explanation.totalTimeMs, 'number');
  });

  it('reports a syntax error with its line and column, as a typed error', async () => {
    const error = await store.select('SELECT *\nWHERE { ?s ?p }').catch((e: unknown) => e);
    assert.ok(error instanceof SparqlSyntaxError, String(error));
    assert.equal(error.line, 2);
    assert.equal(typeof error.column, 'number');
    assert.equal('status' in error, false);
  });

  it('tells what an update changed: real changes only, per graph', async () => {
    const summary = await store.update(PREFIX + 'INSERT DATA { :alice :age 42 . :carol :age 7 . GRAPH :g2 { :carol :age 7 } } ; DELETE DATA { :carol :age 7 }');
    assert.deepEqual(summary, {
      inserted: 2,
      deleted: 1,
      graphs: [
        { graph: null, inserted: 1, deleted: 1 },
        { graph: 'http://example.org/g2', inserted: 1, deleted: 0 },
      ],
    });
    await store.update(PREFIX + 'DROP GRAPH :g2');
  });

  it('leaves the store as it was when an update fails', async () => {
    const before = await count(store);
    await assert.rejects(store.update(PREFIX + 'INSERT DATA { :x :y :z } ; CREATE GRAPH :g'));
    assert.equal(await count(store), before);
  });

  it('stops a query at its time limit and at an AbortSignal', async () => {
    const slow =
      'SELECT (COUNT(*) AS ?n) { VALUES ?a { 1 2 3 4 5 6 7 8 9 10 } ?s ?p ?o . ?s2 ?p2 ?o2 . ?s3 ?p3 ?o3 . ?s4 ?p4 ?o4 . ?s5 ?p5 ?o5 . ?s6 ?p6 ?o6 . ?s7 ?p7 ?o7 . ?s8 ?p8 ?o8 . ?s9 ?p9 ?o9 . ?s10 ?p10 ?o10 . ?s11 ?p11 ?o11 . ?s12 ?p12 ?o12 . ?s13 ?p13 ?o13 . ?s14 ?p14 ?o14 . ?s15 ?p15 ?o15 . ?s16 ?p16 ?o16 }';
    await assert.rejects(async () => (await store.select(slow, { timeoutMs: 200 })).toArray(), TimeoutError);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await assert.rejects(async () => (await store.select(slow, { signal: controller.signal })).toArray(), CancelledError);
  });

  it('stops a query past its memory budget', async () => {
    const sort =
      'SELECT ?k { VALUES ?a { 1 2 3 4 5 6 7 8 9 10 } VALUES ?b { 1 2 3 4 5 6 7 8 9 10 } VALUES ?c { 1 2 3 4 5 6 7 8 9 10 } VALUES ?d { 1 2 3 4 5 6 7 8 9 10 } BIND(CONCAT(STR(?a), STR(?b), STR(?c), STR(?d), "a long enough string to take room") AS ?k) } ORDER BY ?k';
    await assert.rejects(async () => (await store.select(sort, { memoryBudget: 64 * 1024 })).toArray(), ResourceLimitError);
  });
});

describe('loading and dumping', () => {
  let store: QuiverStore;
  let dir: string;
  before(async () => {
    store = await openQuiver({ memory: true, workers: 1 });
    dir = mkdtempSync(join(tmpdir(), 'quiver-library-'));
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads text, bytes, streams and files, into a graph or where the document puts them', async () => {
    await store.load('<http://example.org/a> <http://example.org/p> "1" <http://example.org/g1> .\n', { format: 'nquads' });
    await store.load(Buffer.from('@prefix : <http://example.org/> . :b :p "2" .'), { format: 'text/turtle', graph: 'http://example.org/g2' });
    await store.load(Readable.from(['<http://example.org/c> <http://example.org/p> "3" .\n']), { format: 'ntriples' });
    writeFileSync(join(dir, 'd.ttl.gz'), gzipSync('<http://example.org/d> <http://example.org/p> "4" .'));
    await store.loadFile(join(dir, 'd.ttl.gz'), { graph: 'http://example.org/g2' });
    assert.equal(await count(store, 'GRAPH <http://example.org/g1> { ?s ?p ?o }'), 1);
    assert.equal(await count(store, 'GRAPH <http://example.org/g2> { ?s ?p ?o }'), 2);
    assert.equal(await count(store, '?s ?p ?o'), 1);
  });

  it('refuses a document with a syntax error and keeps nothing of it', async () => {
    const before = await count(store);
    await assert.rejects(store.load('<http://example.org/e> <http://example.org/p> "5" .\n<oops> .', { format: 'ntriples' }));
    assert.equal(await count(store), before);
  });

  it('dumps the store as N-Quads, and one graph in a triple format', async () => {
    let nquads = '';
    for await (const chunk of store.dump()) nquads += chunk;
    assert.equal(nquads.trim().split('\n').length, 4);
    let turtle = '';
    for await (const chunk of store.dump({ format: 'turtle', graph: 'http://example.org/g2' })) turtle += chunk;
    assert.match(turtle, /example\.org\/d/);
    assert.doesNotMatch(turtle, /example\.org\/a>/);
  });
});

describe('a store opened with a union default graph', () => {
  it('answers queries over the union of its graphs; writes, match and dump keep to the real default graph', async () => {
    const store = await openQuiver({ memory: true, workers: 1, unionDefaultGraph: true });
    try {
      await store.update(PREFIX + 'INSERT DATA { :a :p 1 . GRAPH :g { :b :p 2 } }');
      assert.equal(await count(store, '?s <http://example.org/p> ?o'), 2);
      await store.update(PREFIX + 'INSERT { ?s :q ?o } WHERE { ?s :p ?o }');
      assert.equal(await count(store, 'GRAPH <http://example.org/g> { ?s ?p ?o }'), 1, 'the template without GRAPH wrote to the default graph');
      assert.equal((await collect(store.match(null, null, null, $.defaultGraph()))).length, 3);
      let triples = '';
      for await (const chunk of store.dump({ format: 'ntriples', graph: null })) triples += chunk;
      assert.equal(triples.trim().split('\n').length, 3);
    } finally {
      await store.close();
    }
  });
});

describe('the RDF/JS Store interface', () => {
  let store: QuiverStore;
  before(async () => {
    store = await openQuiver({ memory: true, workers: 1 });
  });
  after(() => store.close());

  it('imports a stream of quads, matches them by pattern, and removes them', async () => {
    const quads = [
      $.quad(ex('a'), ex('p'), $.literal('1')),
      $.quad(ex('a'), ex('q'), ex('b'), ex('g')),
      $.quad(ex('b'), ex('p'), $.literal('x', 'en'), ex('g')),
    ];
    await done(store.import(Readable.from(quads) as unknown as RDF.Stream<RDF.Quad>));
    const all = await collect(store.match());
    assert.equal(all.length, 3);
    for (const quad of quads)
      assert.ok(
        all.some((q) => q.equals(quad)),
        `${quad.subject.value} ${quad.predicate.value}`,
      );
    assert.equal((await collect(store.match(null, ex('p')))).length, 2);
    assert.equal((await collect(store.match(null, null, null, $.defaultGraph()))).length, 1);
    assert.equal((await collect(store.match(ex('b'), null, null, ex('g')))).length, 1);

    await done(store.remove(Readable.from([quads[0]!]) as unknown as RDF.Stream<RDF.Quad>));
    assert.equal((await collect(store.match())).length, 2);
    await done(store.removeMatches(ex('a')));
    assert.equal((await collect(store.match())).length, 1);
    await done(store.deleteGraph(ex('g')));
    assert.equal((await collect(store.match())).length, 0);
  });

  it('names a stored blank node by the term match or a query gave: match and remove find that node', async () => {
    await store.load('_:x <http://example.org/p> "1" ; <http://example.org/q> _:y . _:y <http://example.org/p> "2" .', {
      format: 'turtle',
      graph: 'http://example.org/bnodes',
    });
    const g = ex('bnodes');
    const [link] = await collect(store.match(null, ex('q'), null, g));
    const x = link!.subject;
    const y = link!.object;
    assert.equal(x.termType, 'BlankNode');
    assert.equal((await collect(store.match(x, null, null, g))).length, 2);
    assert.equal((await collect(store.match(null, null, y))).length, 1);
    // A blank node in a query's answer is the same term.
    const [solution] = await (await store.select('SELECT ?s WHERE { GRAPH ?g { ?s <http://example.org/p> "2" } }')).toArray();
    assert.equal((await collect(store.match(solution!['s'] as RDF.Quad_Subject, null, null, g))).length, 1);
    // A blank node the store never gave out names nothing.
    assert.equal((await collect(store.match($.blankNode('not-stored')))).length, 0);

    await done(store.remove(Readable.from([$.quad(x, ex('p'), $.literal('1'), g)]) as unknown as RDF.Stream<RDF.Quad>));
    assert.deepEqual(
      (await collect(store.match(x, null, null, g))).map((q) => q.predicate.value),
      [ex('q').value],
    );
    await done(store.removeMatches(y));
    assert.equal((await collect(store.match(null, null, null, g))).length, 1);
    await done(store.deleteGraph(g));
  });

  it('a closed store refuses match, remove and removeMatches, with an error event', async () => {
    const closed = await openQuiver({ memory: true, workers: 1 });
    await closed.close();
    await assert.rejects(collect(closed.match()), StoreClosedError);
    await assert.rejects(done(closed.removeMatches(ex('a'))), StoreClosedError);
  });

  it('imports, matches and dumps RDF 1.2 quads: triple terms and directional literals', async (t) => {
    const store = await openQuiver({ memory: true, workers: 1 });
    t.after(() => store.close());
    const statement = $.quad(ex('s'), ex('p'), $.literal('مرحبا', { language: 'ar', direction: 'rtl' }));
    const quads = [
      statement,
      $.quad(ex('r'), $.namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies'), $.quad(statement.subject, statement.predicate, statement.object)),
      $.quad(ex('r'), ex('about'), $.quad(ex('r'), ex('p'), $.quad(ex('s'), ex('p'), ex('o'))), ex('g12')),
    ];
    await done(store.import(Readable.from(quads) as unknown as RDF.Stream<RDF.Quad>));
    const all = await collect(store.match());
    assert.equal(all.length, 3);
    for (const quad of quads)
      assert.ok(
        all.some((q) => q.equals(quad)),
        `${quad.subject.value} ${quad.predicate.value}`,
      );
    let nquads = '';
    for await (const chunk of store.dump()) nquads += chunk;
    assert.match(
      nquads,
      /<<\( <http:\/\/example\.org\/r> <http:\/\/example\.org\/p> <<\( <http:\/\/example\.org\/s> <http:\/\/example\.org\/p> <http:\/\/example\.org\/o> \)>> \)>> <http:\/\/example\.org\/g12> \./,
    );
    assert.match(nquads, /"مرحبا"@ar--rtl \./);
  });
});

describe('loading a stream larger than the memory it may take', () => {
  // Only Linux tells the process's own memory (RssAnon) apart from the store's mapped file pages.
  // The threads' heaps take some 120 MiB whatever the size (measured at 96, 192 and 383 MiB): only a
  // stream well beyond that tells bounded from buffered.
  it('loads a 380 MiB stream while resident memory grows by less than half of it', { skip: process.platform !== 'linux' }, async () => {
    const store = await openQuiver({ memory: true, workers: 1 });
    try {
      const statement = `<urn:s> <urn:p> "${'x'.repeat(4000)}" .\n`;
      const statements = 100_000;
      function* document(): Generator<string> {
        for (let i = 0; i < statements; i++) yield statement;
      }
      const before = residentBytes();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, residentBytes())), 10);
      try {
        await store.load(Readable.from(document()), { format: 'ntriples' });
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, residentBytes());
      const streamMiB = (statement.length * statements) / 2 ** 20;
      const grownMiB = (peak - before) / 2 ** 20;
      assert.ok(grownMiB < streamMiB / 2, `resident memory grew ${grownMiB.toFixed(0)} MiB for a ${streamMiB.toFixed(0)} MiB stream`);
      assert.equal(await store.ask('ASK { <urn:s> <urn:p> ?o }'), true);
    } finally {
      await store.close();
    }
  });
});

describe('opening and closing', () => {
  it('refuses a directory that holds no store when create is false, and creates nothing', async () => {
    const path = join(tmpdir(), `quiver-missing-${process.pid}`);
    await assert.rejects(openQuiver({ path, create: false }), (error: unknown) => error instanceof StoreOpenError && error.message.includes(path));
    assert.equal(existsSync(path), false);
  });

  it('reopens a store directory with what was written', async () => {
    const path = mkdtempSync(join(tmpdir(), 'quiver-library-'));
    try {
      const first = await openQuiver({ path, workers: 1 });
      await first.update('INSERT DATA { <urn:a> <urn:b> <urn:c> }');
      await first.close();
      const second = await openQuiver({ path, create: false, workers: 1 });
      assert.equal(await second.ask('ASK { <urn:a> <urn:b> <urn:c> }'), true);
      await second.close();
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  });

  it('opens a store given its directory alone, and refuses what is neither a path nor options', async () => {
    const path = mkdtempSync(join(tmpdir(), 'quiver-library-'));
    try {
      const store = await openQuiver(path);
      await store.update('INSERT DATA { <urn:a> <urn:b> <urn:c> }');
      await store.close();
      const again = await openQuiver(pathToFileURL(path));
      assert.equal(await again.ask('ASK { <urn:a> <urn:b> <urn:c> }'), true);
      await again.close();
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
    // As a plain JavaScript caller may pass them: none may fall back to ./data.
    for (const wrong of ['', null, 42, ['./store'], new URL('http://example.org/store')]) {
      await assert.rejects(openQuiver(wrong as never), TypeError, String(wrong));
    }
  });

  it('refuses calls after close with a StoreClosedError', async () => {
    const store = await openQuiver({ memory: true, workers: 1 });
    await store.close();
    await assert.rejects(store.ask('ASK {}'), StoreClosedError);
    await assert.rejects(store.update('INSERT DATA { <urn:a> <urn:b> <urn:c> }'), StoreClosedError);
    await assert.rejects(done(store.deleteGraph(ex('g'))), StoreClosedError);
  });
});

async function collect(stream: RDF.Stream<RDF.Quad>): Promise<RDF.Quad[]> {
  const quads: RDF.Quad[] = [];
  for await (const quad of stream as unknown as AsyncIterable<RDF.Quad>) quads.push(quad);
  return quads;
}
