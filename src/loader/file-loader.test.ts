import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANY, DEFAULT_GRAPH_ID, type QuadStore } from '../store/quad-store.js';
import { openStore } from '../store/lmdb-store.js';
import { directionalLiteral, literal, namedNode, termKey, termToString, typedLiteral, type Term } from '../rdf/terms.js';
import { CODED_TERM } from '../store/term-text-code.js';
import { loadFile, type LoadFileOptions } from './file-loader.js';

/** N-Triples with terms that recur far apart: a parser that forgets its terms meets them again. */
function recurringTerms(statements: number): string {
  const lines: string[] = [];
  for (let i = 0; i < statements; i++) {
    const subject = `<http://example.org/s${i % 97}>`;
    const predicate = `<http://example.org/p${i % 5}>`;
    const object = i % 3 === 0 ? `"literal ${i % 211}"@en` : `<http://example.org/s${(i * 7) % 131}>`;
    lines.push(`${subject} ${predicate} ${object} .`);
  }
  return lines.join('\n') + '\n';
}

/** The default graph's statements as sorted term keys. */
function statements(store: QuadStore): string[] {
  const reader = store.reader();
  try {
    const rows: string[] = [];
    for (const [s, p, o] of reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)) rows.push([s, p, o].map((id) => termKey(reader.termOf(id))).join(' '));
    return rows.sort();
  } finally {
    reader.release();
  }
}

test('a load whose parser starts over (forgets its terms) stores each term once, into an empty store and one with data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-file-loader-'));
  const file = join(dir, 'data.nt');
  // More than two parser batches (16,384 statements): the term table starts over between them.
  writeFileSync(file, recurringTerms(40_000));
  const stores: QuadStore[] = [];
  try {
    const load = async (options: LoadFileOptions, twice = false) => {
      const store = openStore({ path: join(dir, `store-${stores.length}`) });
      stores.push(store);
      for (let round = 0; round < (twice ? 2 : 1); round++) await loadFile(store, { path: file, format: 'ntriples', gzip: false }, options);
      return store;
    };
    const plain = await load({});
    const forgetful = await load({ termLimit: 40, writeBatch: 500, stageStatements: 10_000 });
    const reloaded = await load({ termLimit: 40, writeBatch: 5000 }, true);
    const expected = statements(plain);
    for (const store of [forgetful, reloaded]) {
      assert.deepEqual(statements(store), expected);
      assert.deepEqual(store.reader().statistics(), plain.reader().statistics());
    }
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every statement of the store in N-Quads-like text, blank nodes renamed in order of appearance. */
function allStatements(store: QuadStore): string[] {
  const reader = store.reader();
  try {
    const rows: string[] = [];
    for (const [s, p, o, g] of reader.scan(ANY, ANY, ANY, ANY)) rows.push([s, p, o, g].map((id) => termToString(reader.termOf(id))).join(' '));
    for (const [s, p, o] of reader.scan(ANY, ANY, ANY, DEFAULT_GRAPH_ID)) rows.push([s, p, o].map((id) => termToString(reader.termOf(id))).join(' '));
    const masked = (row: string) => row.replace(/_:\S+/g, '_:');
    rows.sort((a, b) => masked(a).localeCompare(masked(b)));
    const names = new Map<string, string>();
    return rows.map((row) => row.replace(/_:(\S+)/g, (_, label: string) => '_:' + (names.get(label) ?? names.set(label, `b${names.size}`).get(label)!)));
  } finally {
    reader.release();
  }
}

test('RDF 1.2: TriG with a reifier and an annotation, and the same data as N-Quads, load to the same quads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-file-loader-12-'));
  const trig = join(dir, 'data.trig');
  const nquads = join(dir, 'data.nq');
  writeFileSync(
    trig,
    `VERSION "1.2"
PREFIX : <http://example.org/>
:g { :s :p "o"@ar--rtl ~ :r {| :source :x |} . }
:a :b <<( _:x :p :o )>> .
_:x :q :o .
`,
  );
  const ex = (name: string) => `<http://example.org/${name}>`;
  writeFileSync(
    nquads,
    [
      `${ex('s')} ${ex('p')} "o"@ar--rtl ${ex('g')} .`,
      `${ex('r')} <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ${ex('s')} ${ex('p')} "o"@ar--rtl )>> ${ex('g')} .`,
      `${ex('r')} ${ex('source')} ${ex('x')} ${ex('g')} .`,
      `${ex('a')} ${ex('b')} <<(_:x ${ex('p')} ${ex('o')})>> .`,
      `_:x ${ex('q')} ${ex('o')} .`,
    ].join('\n') + '\n',
  );
  const stores: QuadStore[] = [];
  try {
    for (const [path, format] of [
      [trig, 'trig'],
      [nquads, 'nquads'],
    ] as const) {
      const store = openStore({ path: join(dir, `store-${format}`) });
      stores.push(store);
      await loadFile(store, { path, format, gzip: false }, {});
    }
    const [fromTrig, fromNquads] = stores.map(allStatements);
    assert.equal(fromTrig.length, 5);
    assert.deepEqual(fromTrig, fromNquads);
    // The blank node inside the triple term is the document's _:x, not a node of its own.
    assert.ok(
      fromTrig.some((row) => row.startsWith('<http://example.org/a> <http://example.org/b> <<( _:b0 ')),
      fromTrig.join('\n'),
    );
    assert.ok(
      fromTrig.some((row) => row.startsWith('_:b0 <http://example.org/q>')),
      fromTrig.join('\n'),
    );
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

/** N-Quads lines of every kind of term the byte parser reads or hands on, and keys of every length modulo 4; a byte order mark first. */
function termVariety(): string {
  const ex = (name: string) => `<http://example.org/${name}>`;
  const objects = [
    '"plain"',
    '"x"',
    '"ab"',
    '"abc"',
    '"abcd"',
    '"a longer literal, of some forty-odd bytes"',
    '"tagged"@en',
    '"tagged"@en-GB',
    '"directed"@ar--rtl',
    '"42"^^<http://www.w3.org/2001/XMLSchema#integer>',
    '"explicit string"^^<http://www.w3.org/2001/XMLSchema#string>',
    '"escaped \\"quote\\" and \\\\ and \\n"',
    '"\\u00e9t\\u00E9 \\U0001F600"',
    '"été naïve ☃ 😀"',
    `"${'long '.repeat(300)}"`,
    '_:b1',
    ex('o'),
    '<http://example.org/é>',
    `<<( ${ex('s')} ${ex('p')} "inner" )>>`,
  ];
  // A byte order mark and a VERSION directive: read past, by the worker and by the reader.
  const lines = ['\ufeffVERSION "1.2"', '# a comment', ''];
  objects.forEach((object, i) => {
    lines.push(`${ex(`s${i}`)} ${ex('p')} ${object} .`);
    lines.push(`_:b${i % 3} ${ex('q')} ${object} ${ex(`g${i % 2}`)} .`);
  });
  return lines.join('\n') + '\n';
}

test('the byte-line parser and the word-at-a-time hash load what the string parser and the byte hash load', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-file-loader-switches-'));
  const file = join(dir, 'data.nq');
  writeFileSync(file, termVariety());
  const stores: QuadStore[] = [];
  const saved = { lines: process.env.QUIVER_BYTE_LINES, hash: process.env.QUIVER_WORD_HASH };
  const setEnv = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  try {
    const loads: string[][] = [];
    for (const [lines, hash] of [
      ['1', '1'],
      ['0', '1'],
      ['1', '0'],
      ['0', '0'],
    ]) {
      // The parse worker reads its switches from the environment it starts with.
      setEnv('QUIVER_BYTE_LINES', lines);
      setEnv('QUIVER_WORD_HASH', hash);
      const store = openStore({ path: join(dir, `store-${lines}${hash}`) });
      stores.push(store);
      await loadFile(store, { path: file, format: 'nquads', gzip: false }, {});
      const reader = store.reader();
      try {
        // Every term is found again by its key: the loader's hash is the one the store looks terms up by.
        for (const quad of reader.scan(ANY, ANY, ANY, ANY))
          for (const id of quad.slice(0, 3)) assert.equal(reader.idOf(reader.termOf(id)), id, termToString(reader.termOf(id)));
      } finally {
        reader.release();
      }
      loads.push(allStatements(store));
    }
    assert.equal(loads[0].length, 38);
    for (const load of loads.slice(1)) assert.deepEqual(load, loads[0]);
  } finally {
    setEnv('QUIVER_BYTE_LINES', saved.lines);
    setEnv('QUIVER_WORD_HASH', saved.hash);
    await Promise.all(stores.map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('long literals the parser codes are stored coded and read back whole, loaded once or twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-file-loader-'));
  const file = join(dir, 'texts.nt');
  const prose = (i: number) => `review ${i}: the product was as good as its description said, and the delivery was quick. `.repeat(1 + (i % 4));
  const objects: ((i: number) => Term)[] = [
    (i) => literal(prose(i)),
    (i) => literal(prose(i), 'en'),
    (i) => directionalLiteral(prose(i), 'en', 'ltr'),
    (i) => typedLiteral(prose(i), 'http://example.org/types/text'),
    (i) => literal(`naïve café ${prose(i)} 数据`),
  ];
  const triples = Array.from({ length: 500 }, (_, i) => [
    namedNode(`http://example.org/reviews/r${i}`),
    namedNode('http://example.org/vocab#text'),
    objects[i % objects.length](i),
  ]);
  writeFileSync(file, triples.map((terms) => terms.map(termToString).join(' ') + ' .').join('\n') + '\n');
  const store = openStore({ path: join(dir, 'store') });
  try {
    await loadFile(store, { path: file, format: 'ntriples', gzip: false }, { termLimit: 100 });
    await loadFile(store, { path: file, format: 'ntriples', gzip: false }, {});
    assert.deepEqual(statements(store), triples.map((terms) => terms.map(termKey).join(' ')).sort());
    const reader = store.reader();
    const idToTerm = (store as unknown as { context: { dbs: { idToTerm: { get(id: number): Uint8Array | undefined } } } }).context.dbs.idToTerm;
    for (const [, , object] of triples.slice(0, 3)) assert.equal(idToTerm.get(reader.idOf(object)!)![0], CODED_TERM, termKey(object).slice(0, 20));
    reader.release();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
