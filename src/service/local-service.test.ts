import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalService, type InlineQueryOptions, type LocalService } from './local-service.js';
import type { QueryResult, SolutionRow } from './sparql-service.js';
import { termKey, type Quad, type Term } from '../rdf/terms.js';
import { CancelledError, EvaluationError, OverloadedError, SparqlSyntaxError, TimeoutError } from '../errors.js';

const EX = 'http://example.org/';

/** `count` triples <s_i> ex:value i: a cross product of them three ways never ends in a test. */
function numbersUpdate(count: number): string {
  const triples = Array.from({ length: count }, (_, i) => `<${EX}s${i}> <${EX}value> ${i} .`);
  return `INSERT DATA { ${triples.join('\n')} }`;
}

const ENDLESS_QUERY = `SELECT * WHERE {
  ?a <${EX}value> ?x . ?b <${EX}value> ?y . ?c <${EX}value> ?z .
  FILTER(?x + ?y + ?z < 0)
}`;
const HUGE_QUERY = `SELECT * WHERE { ?a <${EX}value> ?x . ?b <${EX}value> ?y }`;
const SHORT_QUERY = `SELECT ?s WHERE { ?s <${EX}value> 7 }`;

async function allRows(result: QueryResult): Promise<SolutionRow[]> {
  assert.equal(result.kind, 'bindings');
  const rows: SolutionRow[] = [];
  for await (const batch of result.rows) rows.push(...batch);
  return rows;
}

async function allQuads(result: QueryResult): Promise<Quad[]> {
  assert.equal(result.kind, 'quads');
  const quads: Quad[] = [];
  for await (const batch of result.quads) quads.push(...batch);
  return quads;
}

async function ask(service: LocalService, query: string): Promise<boolean> {
  const result = await service.query({ query });
  assert.equal(result.kind, 'boolean');
  return result.value;
}

/** Resolves when the query settles, with when it did. */
async function finishTime(run: Promise<unknown>): Promise<number> {
  await run.catch(() => undefined);
  return performance.now();
}

describe('LocalService', () => {
  let service: LocalService;

  before(async () => {
    service = await createLocalService({ memory: true, workers: 2, cancelGraceMs: 1000 });
    await service.update({ update: numbersUpdate(2000) });
  });
  after(() => service.close());

  test('a SELECT query returns its rows in batches, terms rebuilt on the main thread', async () => {
    const result = await service.query({
      query: `SELECT ?s ?v WHERE { ?s <${EX}value> ?v FILTER(?v < 3) OPTIONAL { ?s <${EX}none> ?n } } ORDER BY ?v`,
    });
    assert.equal(result.kind, 'bindings');
    assert.deepEqual(result.variables, ['s', 'v']);
    const rows = await allRows(result);
    assert.deepEqual(
      rows.map(([s, v]) => [s?.value, v?.value]),
      [
        [`${EX}s0`, '0'],
        [`${EX}s1`, '1'],
        [`${EX}s2`, '2'],
      ],
    );
    assert.equal(rows[0][1]?.termType, 'Literal');
  });

  test('a large result arrives complete, across many messages', async () => {
    const rows = await allRows(await service.query({ query: `SELECT ?s WHERE { ?s <${EX}value> ?v }` }));
    assert.equal(rows.length, 2000);
    assert.equal(new Set(rows.map(([s]) => s?.value)).size, 2000);
  });

  test('ASK answers a boolean, CONSTRUCT answers quads', async () => {
    assert.equal(await ask(service, `ASK { <${EX}s5> <${EX}value> 5 }`), true);
    assert.equal(await ask(service, `ASK { <${EX}s5> <${EX}value> 6 }`), false);
    const quads = await allQuads(await service.query({ query: `CONSTRUCT { ?s <${EX}double> ?v } WHERE { ?s <${EX}value> ?v FILTER(?v = 1) }` }));
    assert.equal(quads.length, 1);
    assert.equal(quads[0].subject.value, `${EX}s1`);
    assert.equal(quads[0].graph.termType, 'DefaultGraph');
  });

  test('a syntax error rejects query() with its position', async () => {
    await assert.rejects(service.query({ query: 'SELECT * WHERE {\n  ?s ?p \n}' }), (error: unknown) => {
      assert.ok(error instanceof SparqlSyntaxError);
      assert.equal(typeof error.line, 'number');
      return true;
    });
  });

  test('a slow query does not delay a short one running beside it', async () => {
    const stop = new AbortController();
    const slow = service.query({ query: ENDLESS_QUERY, signal: stop.signal });
    const short = service.query({ query: SHORT_QUERY }).then(allRows);
    const shortDone = await finishTime(short);
    assert.deepEqual(
      (await short).map(([s]) => s?.value),
      [`${EX}s7`],
    );
    stop.abort();
    const slowDone = await finishTime(slow);
    assert.ok(shortDone < slowDone);
    await assert.rejects(slow, CancelledError);
  });

  test('a query past its time limit fails with TimeoutError, and its worker is free again', async () => {
    const started = performance.now();
    await assert.rejects(service.query({ query: ENDLESS_QUERY, timeoutMs: 300 }), TimeoutError);
    assert.ok(performance.now() - started < 1000, 'the time limit is enforced promptly');
    await waitUntilIdle(service);
    assert.equal(await ask(service, `ASK { <${EX}s1> ?p ?o }`), true);
  });

  test('aborting the signal cancels the query and frees its worker', async () => {
    const controller = new AbortController();
    const running = service.query({ query: ENDLESS_QUERY, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(running, CancelledError);
    await waitUntilIdle(service);
  });

  test('stopping iteration early frees the worker', async () => {
    const result = await service.query({ query: HUGE_QUERY });
    assert.equal(result.kind, 'bindings');
    for await (const batch of result.rows) {
      assert.ok(batch.length > 0);
      break;
    }
    await waitUntilIdle(service);
  });

  test('a consumer that reads slowly holds back the worker, then still gets every row', async () => {
    const result = await service.query({ query: `SELECT * WHERE { ?a <${EX}value> ?x . ?b <${EX}value> 1 }` });
    assert.equal(result.kind, 'bindings');
    let count = 0;
    for await (const batch of result.rows) {
      count += batch.length;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(count, 2000);
  });

  test('an update is visible to later queries', async () => {
    await service.update({ update: `INSERT DATA { <${EX}new> <${EX}label> "fresh" }` });
    assert.equal(await ask(service, `ASK { <${EX}new> <${EX}label> "fresh" }`), true);
  });

  test('a failing update changes nothing', async () => {
    await service.update({ update: `CREATE GRAPH <${EX}existing>` });
    await assert.rejects(service.update({ update: `INSERT DATA { <${EX}half> <${EX}done> 1 } ; CREATE GRAPH <${EX}existing>` }), EvaluationError);
    assert.equal(await ask(service, `ASK { <${EX}half> ?p ?o }`), false);
  });

  test('an update with a syntax error is rejected as such', async () => {
    await assert.rejects(service.update({ update: 'INSERT DATA { <a> }' }), SparqlSyntaxError);
  });

  test('concurrent updates run one at a time, each as one transaction', async () => {
    const increment = `DELETE { <${EX}counter> <${EX}n> ?old } INSERT { <${EX}counter> <${EX}n> ?next }
      WHERE { OPTIONAL { <${EX}counter> <${EX}n> ?old } BIND(COALESCE(?old, 0) + 1 AS ?next) }`;
    await Promise.all(Array.from({ length: 20 }, () => service.update({ update: increment })));
    const rows = await allRows(await service.query({ query: `SELECT ?n WHERE { <${EX}counter> <${EX}n> ?n }` }));
    assert.deepEqual(
      rows.map(([n]) => n?.value),
      ['20'],
    );
  });

  test('describe() reports triple counts from the statistics', async () => {
    await service.update({ update: `INSERT DATA { GRAPH <${EX}g> { <${EX}a> <${EX}b> <${EX}c> } }` });
    const description = await service.describe();
    assert.ok((description.defaultGraphTriples ?? 0) >= 2000);
    assert.deepEqual(
      description.namedGraphs?.find((g) => g.name === `${EX}g`),
      { name: `${EX}g`, triples: 1 },
    );
  });
});

describe('LocalService with inlineCheapQueries', () => {
  let inline: LocalService;

  before(async () => {
    inline = await createLocalService({ memory: true, workers: 1, inlineCheapQueries: true });
    await inline.update({ update: numbersUpdate(20) });
  });
  after(() => inline.close());

  test('a query shape that proved cheap runs on the main thread, and sees the latest update', async () => {
    const before = inline.inlineQueries;
    // Worker timings of the first runs include warming up; the shape proves cheap within a few dozen.
    for (let i = 0; i < 60 && inline.inlineQueries === before; i++) {
      const rows = await allRows(await inline.query({ query: `SELECT ?s WHERE { ?s <${EX}value> ${i % 20} }` }));
      assert.deepEqual(
        rows.map(([s]) => s?.value),
        [`${EX}s${i % 20}`],
      );
    }
    assert.ok(inline.inlineQueries > before, 'some ran on the main thread');
    await inline.update({ update: `INSERT DATA { <${EX}late> <${EX}value> 3 }` });
    const inlineBefore = inline.inlineQueries;
    for (let i = 0; i < 30; i++) {
      const rows = await allRows(await inline.query({ query: `SELECT ?s WHERE { ?s <${EX}value> 3 }` }));
      assert.deepEqual(rows.map(([s]) => s?.value).sort(), [`${EX}late`, `${EX}s3`]);
    }
    assert.ok(inline.inlineQueries > inlineBefore, 'some ran on the main thread after the update');
    await inline.update({ update: `DELETE DATA { <${EX}late> <${EX}value> 3 }` });
    for (let i = 0; i < 5; i++) {
      assert.equal((await allRows(await inline.query({ query: `SELECT ?s WHERE { ?s <${EX}value> 3 }` }))).length, 1);
    }
  });

  test('a cheap shape still reports errors and honours an aborted signal', async () => {
    for (let i = 0; i < 60; i++) await inline.query({ query: `ASK { ?s <${EX}value> ${i} }` });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(inline.query({ query: `ASK { ?s <${EX}value> 9 }`, signal: controller.signal }), CancelledError);
    await assert.rejects(inline.query({ query: `ASK { ?s <${EX}value> 9 ` }), SparqlSyntaxError);
  });
});

describe('LocalService with inlineCheapQueries, overlapping queries', () => {
  /**
   * A one-worker service whose ASK shape has proved cheap, its worker busy with an endless query
   * (stopped by the returned controller; `running` is that query's promise).
   */
  async function busyWorkerService(inline: InlineQueryOptions): Promise<{ service: LocalService; stopRunning: AbortController; running: Promise<unknown> }> {
    const service = await createLocalService({ memory: true, workers: 1, inlineCheapQueries: inline });
    await service.update({ update: numbersUpdate(2000) });
    for (let i = 0; i < 100 && service.inlineQueries === 0; i++) await ask(service, `ASK { ?s <${EX}value> ${i % 20} }`);
    assert.ok(service.inlineQueries > 0, 'the shape proved cheap');
    const stopRunning = new AbortController();
    const running = service.query({ query: ENDLESS_QUERY, signal: stopRunning.signal });
    await waitUntil(() => service.load().queries.running === 1);
    return { service, stopRunning, running };
  }

  test('auto: a cheap query runs on the main thread beside one evaluating on the only worker', async () => {
    // A generous bound for cheap: a run slowed down by a busy test machine must not make the shape expensive.
    const { service, stopRunning, running } = await busyWorkerService({ cheapQueryMs: 100 });
    try {
      const before = service.inlineQueries;
      const answer = await service.query({ query: `ASK { ?s <${EX}value> 4 }` });
      assert.ok(answer.kind === 'boolean' && answer.value);
      assert.equal(service.inlineQueries, before + 1);
      stopRunning.abort();
      await assert.rejects(running, CancelledError);
    } finally {
      await service.close();
    }
  });

  test('idle: a cheap query goes to a worker while another query is evaluating on one', async () => {
    const { service, stopRunning, running } = await busyWorkerService({ when: 'idle' });
    try {
      const before = service.inlineQueries;
      // Waits behind the running query for the only worker, instead of running beside it on the main thread.
      const cheap = service.query({ query: `ASK { ?s <${EX}value> 4 }` });
      assert.equal(service.load().queries.queued, 1);
      stopRunning.abort();
      await assert.rejects(running, CancelledError);
      const answer = await cheap;
      assert.ok(answer.kind === 'boolean' && answer.value);
      assert.equal(service.inlineQueries, before);
    } finally {
      await service.close();
    }
  });
});

describe('LocalService with inlineCheapQueries and a closed gate', () => {
  test('no query runs on the main thread when the event loop never counts as having waited long enough', async () => {
    const service = await createLocalService({ memory: true, workers: 1, inlineCheapQueries: { when: 'idle', minIdleMs: Number.POSITIVE_INFINITY } });
    try {
      await service.update({ update: numbersUpdate(5) });
      for (let i = 0; i < 30; i++) assert.equal(await ask(service, `ASK { ?s <${EX}value> ${i % 5} }`), true);
      assert.equal(service.inlineQueries, 0);
    } finally {
      await service.close();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('LocalService under load', () => {
  let service: LocalService;

  before(async () => {
    service = await createLocalService({ memory: true, workers: 1, maxQueue: 1, cancelGraceMs: 1000 });
    await service.update({ update: numbersUpdate(2000) });
  });
  after(() => service.close());

  test('a full queue answers OverloadedError; a queued request whose signal aborts leaves the queue', async () => {
    const stopRunning = new AbortController();
    const running = service.query({ query: ENDLESS_QUERY, signal: stopRunning.signal });
    const leaveQueue = new AbortController();
    const queued = service.query({ query: SHORT_QUERY, signal: leaveQueue.signal });
    await assert.rejects(service.query({ query: SHORT_QUERY }), (error: unknown) => {
      assert.ok(error instanceof OverloadedError);
      assert.ok(error.retryAfterSeconds > 0);
      return true;
    });
    leaveQueue.abort();
    await assert.rejects(queued, CancelledError);
    assert.equal(service.load().queries.queued, 0);
    // The queue has room again.
    const next = service.query({ query: SHORT_QUERY });
    stopRunning.abort();
    await assert.rejects(running, CancelledError);
    assert.equal((await allRows(await next)).length, 1);
  });

  test('a query that times out while waiting in the queue fails with TimeoutError', async () => {
    const stopRunning = new AbortController();
    const running = service.query({ query: ENDLESS_QUERY, signal: stopRunning.signal });
    await assert.rejects(service.query({ query: SHORT_QUERY, timeoutMs: 100 }), TimeoutError);
    stopRunning.abort();
    await assert.rejects(running, CancelledError);
  });
});

describe('LocalService on a store directory', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quiver-service-test-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the server time limit holds, close() refuses new work, and the data outlives the service', async () => {
    const first = await createLocalService({ store: dir, workers: 1, queryTimeoutMs: 200 });
    await first.update({ update: numbersUpdate(500) });
    // A request may lower the limit, never raise it.
    await assert.rejects(first.query({ query: ENDLESS_QUERY, timeoutMs: 60_000 }), TimeoutError);
    await first.close();
    await assert.rejects(first.query({ query: 'ASK {}' }), OverloadedError);
    await assert.rejects(first.update({ update: 'CLEAR DEFAULT' }), OverloadedError);

    const second = await createLocalService({ store: dir, workers: 1 });
    try {
      assert.equal(await ask(second, `ASK { <${EX}s499> <${EX}value> 499 }`), true);
    } finally {
      await second.close();
    }
  });
});

/** Running queries end a little after their callers hear about it (the worker reports back). */
async function waitUntilIdle(service: LocalService, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (service.load().queries.running > 0) {
    if (Date.now() > deadline) assert.fail('a query worker stayed busy');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('cheap queries on the main thread answer as the workers do', () => {
  let inline: LocalService;
  let workersOnly: LocalService;
  const DATA = `PREFIX : <${EX}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
    INSERT DATA {
      :a :name "A" , "a"@en , "ا"@ar--rtl ; :value 1 , 1.5 , "2"^^xsd:short ; :knows :b , _:x ; :seen "2008-01-01T12:00:00Z"^^xsd:dateTime .
      :b :name "B" ; :value 2 ; :knows :a .
      _:x :name "x\\n\\"quoted\\"" ; :value -3 .
      << :a :knows :b >> :since 2020 .
      GRAPH :g { :a :value 10 . :c :name "C" }
    }`;
  const QUERIES = [
    `SELECT * { ?s <${EX}name> ?n }`,
    `SELECT ?s (SUM(?v) AS ?t) (COUNT(*) AS ?c) { ?s <${EX}value> ?v } GROUP BY ?s`,
    `SELECT ?s ?o { ?s <${EX}knows> ?o OPTIONAL { ?o <${EX}name> ?n } FILTER(!BOUND(?n) || ?n != "B") } ORDER BY ?s LIMIT 5`,
    `SELECT * { GRAPH ?g { ?s ?p ?o } }`,
    `SELECT ?t ?y { ?t <${EX}since> ?y }`,
    `SELECT (STRLEN(?n) AS ?l) (LANG(?n) AS ?lang) { ?s <${EX}name> ?n }`,
    `ASK { <${EX}a> <${EX}knows> <${EX}b> }`,
    `ASK { <${EX}b> <${EX}knows> <${EX}c> }`,
    `CONSTRUCT { ?o <${EX}knownBy> ?s } WHERE { ?s <${EX}knows> ?o }`,
    `DESCRIBE <${EX}b>`,
  ];

  before(async () => {
    inline = await createLocalService({ memory: true, workers: 1, inlineCheapQueries: { when: 'always' } });
    workersOnly = await createLocalService({ memory: true, workers: 1, inlineCheapQueries: false });
    for (const service of [inline, workersOnly]) await service.update({ update: DATA });
  });
  after(async () => {
    await inline.close();
    await workersOnly.close();
  });

  /** An answer as sorted lines of terms (blank node labels masked: each service has its own). */
  async function answer(service: LocalService, query: string): Promise<string[]> {
    const result = await service.query({ query });
    const show = (t: { termType: string; value: string } | undefined | null): string => (t ? (t.termType === 'BlankNode' ? '_:' : termKey(t as Term)) : '-');
    if (result.kind === 'boolean') return [String(result.value)];
    if (result.kind === 'quads') return (await allQuads(result)).map((q) => [q.subject, q.predicate, q.object, q.graph].map(show).join(' ')).sort();
    return (await allRows(result)).map((row) => row.map(show).join(' ')).sort();
  }

  for (const query of QUERIES) {
    test(query, async () => {
      const expected = await answer(workersOnly, query);
      assert.equal(workersOnly.inlineQueries, 0);
      // A shape runs on the main thread once it has proved cheap on a worker.
      let inlined = false;
      for (let i = 0; i < 40 && !inlined; i++) {
        const before = inline.inlineQueries;
        assert.deepEqual(await answer(inline, query), expected);
        inlined = inline.inlineQueries > before;
      }
      assert.ok(inlined, 'ran on the main thread');
    });
  }
});
