import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namedNode } from '../rdf/terms.js';
import { ANY, DEFAULT_GRAPH_ID, UNION_GRAPH, type StoreReader, type TermId } from './quad-store.js';
import { openStore } from './lmdb-store.js';

/** A small random dataset: few terms, so triples repeat across the default graph and named graphs. */
function randomQuads(seed: number, terms: TermId[], graphs: TermId[], count: number): [TermId, TermId, TermId, TermId][] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return (state >>> 16) % n;
  };
  const pick = (from: TermId[]) => from[next(from.length)];
  return Array.from({ length: count }, () => [pick(terms), pick(terms), pick(terms), pick(graphs)]);
}

function unionTriples(reader: StoreReader, s: TermId, p: TermId, o: TermId): string[] {
  const triples: string[] = [];
  // Scans reuse the array they yield: read each quad before the next step.
  for (const q of reader.scan(s, p, o, UNION_GRAPH)) triples.push(`${q[0]} ${q[1]} ${q[2]} ${q[3]}`);
  return triples;
}

/** What the union must hold: each distinct triple of every graph once, in the default graph. */
function expectedUnion(quads: [TermId, TermId, TermId, TermId][], s: TermId, p: TermId, o: TermId): string[] {
  const matches = (id: TermId, want: TermId) => want === ANY || id === want;
  const triples = new Set(
    quads.filter(([qs, qp, qo]) => matches(qs, s) && matches(qp, p) && matches(qo, o)).map(([qs, qp, qo]) => `${qs} ${qp} ${qo} ${DEFAULT_GRAPH_ID}`),
  );
  return [...triples].sort();
}

test('the union of all graphs holds each triple once, for every pattern, in snapshots and in a transaction', () => {
  const store = openStore({ memory: true });
  try {
    const ids = store.write((w) => ['a', 'b', 'c', 'd', 'g1', 'g2', 'g3'].map((name) => w.intern(namedNode(`http://example.org/${name}`))));
    const terms = ids.slice(0, 4);
    const graphs = [DEFAULT_GRAPH_ID, ...ids.slice(4)];
    const quads = randomQuads(7, terms, graphs, 120);
    store.write((w) => {
      for (const [s, p, o, g] of quads) w.add(s, p, o, g);
    });
    const patterns: [TermId, TermId, TermId][] = [];
    for (const s of [ANY, ...terms]) for (const p of [ANY, terms[1]]) for (const o of [ANY, terms[2]]) patterns.push([s, p, o]);

    const check = (reader: StoreReader, where: string) => {
      for (const [s, p, o] of patterns) {
        const actual = unionTriples(reader, s, p, o);
        const expected = expectedUnion(quads, s, p, o);
        assert.deepEqual([...actual].sort(), expected, `${where}: pattern ${s} ${p} ${o}`);
        assert.equal(reader.has(s, p, o, UNION_GRAPH), expected.length > 0, `${where}: has ${s} ${p} ${o}`);
        assert.ok(reader.count(s, p, o, UNION_GRAPH) >= expected.length, `${where}: count is an upper bound`);
      }
    };
    const reader = store.reader();
    try {
      check(reader, 'snapshot');
    } finally {
      reader.release();
    }
    store.write((w) => check(w, 'write transaction'));
  } finally {
    void store.close();
  }
});

test('a scan of the union stopped early and a union scan nested in another both read correctly', () => {
  const store = openStore({ memory: true });
  try {
    const [a, b, g] = store.write((w) => ['a', 'b', 'g'].map((name) => w.intern(namedNode(`http://example.org/${name}`))));
    store.write((w) => {
      w.add(a, b, a, DEFAULT_GRAPH_ID);
      w.add(a, b, b, g);
      w.add(b, b, a, g);
      w.add(b, b, a, DEFAULT_GRAPH_ID);
    });
    const reader = store.reader();
    try {
      for (const first of reader.scan(ANY, ANY, ANY, UNION_GRAPH)) {
        assert.equal(first[3], DEFAULT_GRAPH_ID);
        break;
      }
      const pairs: string[] = [];
      for (const outer of reader.scan(ANY, b, ANY, UNION_GRAPH)) {
        const subject = outer[0];
        for (const inner of reader.scan(subject, ANY, ANY, UNION_GRAPH)) pairs.push(`${subject}:${inner[2]}`);
      }
      // Three triples with predicate b (a twice as subject, b once); a has two triples, b one.
      assert.deepEqual(pairs.sort(), [`${a}:${a}`, `${a}:${a}`, `${a}:${b}`, `${a}:${b}`, `${b}:${a}`].sort());
    } finally {
      reader.release();
    }
  } finally {
    void store.close();
  }
});

test('no write takes the union as its graph', () => {
  const store = openStore({ memory: true });
  try {
    const a = store.write((w) => w.intern(namedNode('http://example.org/a')));
    assert.throws(() => store.write((w) => w.add(a, a, a, UNION_GRAPH)), /not a storable quad/);
  } finally {
    void store.close();
  }
});
