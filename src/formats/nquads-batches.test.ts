/** parseRdf for N-Triples and N-Quads: how a document reaches the reader (nquads-batches.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Parser } from 'n3';
import type * as RDF from '@rdfjs/types';
import { factory, termKey, type Quad } from '../rdf/index.js';
import { parseRdf } from './rdf-parser.js';
import { RdfSyntaxError } from './rdf-syntax-error.js';
import { collect, ex } from './test-fixtures.js';

const DOCUMENT = [
  '<http://example.org/s> <http://example.org/p> "caf\u00e9 \u65e5\u672c \ud83d\ude00"@fr .',
  '_:b0 <http://example.org/p> <<( _:b0 <http://example.org/q> "v"@ar--rtl )>> .',
  '<http://example.org/s> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.org/g> .',
  '',
].join('\n');

/** Quads as keys, blank nodes renamed in order of appearance (labels are the parser's own). */
function canonical(quads: RDF.Quad[]): string[] {
  const names = new Map<string, string>();
  const key = (term: RDF.Term): string => {
    if (term.termType === 'BlankNode') {
      if (!names.has(term.value)) names.set(term.value, `b${names.size}`);
      return '_' + names.get(term.value)!;
    }
    if (term.termType === 'Quad') return `[${key(term.subject)} ${key(term.predicate)} ${key(term.object)}]`;
    return termKey(term);
  };
  return quads.map((q) => [q.subject, q.predicate, q.object, q.graph].map(key).join(' '));
}

function n3(text: string, quads = true): string[] {
  return canonical(new Parser({ format: quads ? 'N-Quads' : 'N-Triples', factory }).parse(text));
}

async function rejection(promise: Promise<unknown>): Promise<RdfSyntaxError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RdfSyntaxError, String(error));
    return error;
  }
  assert.fail('expected a syntax error');
}

test('a string, a stream in chunks of any size (characters cut in two), gzip: the same quads as N3.js reads', async () => {
  const expected = n3(DOCUMENT);
  assert.deepEqual(canonical(await collect(parseRdf(DOCUMENT, 'nquads'))), expected);
  const bytes = Buffer.from(DOCUMENT);
  for (const size of [1, 2, 3, 7, 64]) {
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
    assert.deepEqual(canonical(await collect(parseRdf(Readable.from(chunks), 'nquads'))), expected, `chunks of ${size}`);
  }
  assert.deepEqual(canonical(await collect(parseRdf(Readable.from([gzipSync(bytes)]), 'application/n-quads', { gzip: true }))), expected);
  assert.deepEqual(canonical(await collect(parseRdf(DOCUMENT.trimEnd(), 'nquads'))), expected, 'no line feed at the end');
});

test('a byte order mark before the first line, CRLF line ends, and a last line without one', async () => {
  const text = '\ufeff<http://example.org/s> <http://example.org/p> "1" .\r\n<http://example.org/s> <http://example.org/p> "2" .';
  assert.equal((await collect(parseRdf(text, 'ntriples'))).length, 2);
  assert.equal((await collect(parseRdf(Readable.from([Buffer.from(text)]), 'ntriples'))).length, 2);
  const error = await rejection(
    collect(parseRdf('<http://example.org/s> <http://example.org/p> "1" .\n\ufeff<http://example.org/s> <http://example.org/p> "2" .', 'ntriples')),
  );
  assert.equal(error.line, 2);
});

test('N-Triples: triples go to the target graph; a fourth term is an error at its column', async () => {
  const triples = await collect(parseRdf('<http://example.org/s> <http://example.org/p> "1" .\n', 'ntriples', { graph: ex('g') }));
  assert.ok(triples[0]!.graph.equals(ex('g')));
  const error = await rejection(collect(parseRdf('<http://example.org/s> <http://example.org/p> "1" <http://example.org/g> .\n', 'ntriples')));
  assert.deepEqual([error.line, error.column], [1, 51]);
});

test('blank nodes: one node within a document, two documents two nodes', async () => {
  const text = '_:b0 <http://example.org/p> _:b0 .\n_:b0 <http://example.org/p> "x" .\n';
  const [first, second] = await collect(parseRdf(text, 'ntriples'));
  assert.ok(first!.subject.equals(first!.object) && first!.subject.equals(second!.subject));
  const [other] = await collect(parseRdf(text, 'ntriples'));
  assert.notEqual(other!.subject.value, first!.subject.value);
});

test('errors name their line and column, in a stream too', async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `<http://example.org/s${i}> <http://example.org/p> "${i}" .\n`);
  lines[2500] = '<http://example.org/s> <http://example.org/p> "bad\\q" .\n';
  const error = await rejection(collect(parseRdf(Readable.from(lines), 'ntriples', { batchSize: 100 })));
  assert.deepEqual([error.line, error.column], [2501, 51]);
  assert.match(error.message, /^invalid escape \\q \(line 2501, column 51\)$/);
});

test('a consumer that stops leaves the caller’s stream alone (not destroyed)', async () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `<http://example.org/s${i}> <http://example.org/p> "${i}" .\n`);
  const input = Readable.from(lines.map((line) => Buffer.from(line)));
  for await (const batch of parseRdf(input, 'ntriples', { batchSize: 10 })) {
    assert.equal(batch.length, 10);
    break;
  }
  assert.equal(input.destroyed, false);
  input.destroy();
});

test('reading is pulled by the consumer: a chunk is read only when the batches before it are taken', async () => {
  const chunks = 1000;
  let pulled = 0;
  const input = Readable.from(
    (function* () {
      for (let i = 0; i < chunks; i++) {
        pulled++;
        yield Buffer.from(`<http://example.org/s${i}> <http://example.org/p> "${i}" .\n`);
      }
    })(),
  );
  const batches = parseRdf(input, 'ntriples', { batchSize: 10 })[Symbol.asyncIterator]();
  await batches.next();
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The stream's own buffer reads ahead (its high-water mark), the reader no further.
  assert.ok(pulled < 100, `${pulled} chunks read for one batch of 10`);
  await batches.return?.();
});

/** The RDF 1.2 N-Triples and N-Quads suites, where the shared test suites are present. */
const RDF12 = fileURLToPath(new URL('../../../../shared/rdf-tests/rdf/rdf12/', import.meta.url));
const RDF12_FOLDERS = ['rdf-n-triples/syntax', 'rdf-n-triples/c14n', 'rdf-n-quads/syntax', 'rdf-n-quads/c14n'];

test('RDF 1.2 N-Triples and N-Quads: parseRdf reads every valid document as N3.js does', { skip: !existsSync(RDF12) && 'test suites not found' }, async () => {
  let checked = 0;
  for (const folder of RDF12_FOLDERS) {
    const quads = folder.includes('n-quads');
    for (const name of readdirSync(join(RDF12, folder)).filter((file) => /\.n[tq]$/.test(file) && !file.includes('bad'))) {
      const text = readFileSync(join(RDF12, folder, name), 'utf8');
      const ours: Quad[] = await collect(parseRdf(text, quads ? 'nquads' : 'ntriples'));
      assert.deepEqual(canonical(ours), n3(text, quads), `${folder}/${name}`);
      checked++;
    }
  }
  assert.ok(checked > 50, `${checked} documents`);
});
