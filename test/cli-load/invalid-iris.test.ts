/**
 * `quiver load` and invalid IRIs (RFC 3987): in every format a file with one is refused, naming the
 * file and the line, and nothing of it stays; with `--lenient` just the statement is skipped.
 * N-Triples and N-Quads get every kind of invalid IRI, since their lines go through the loader's
 * own byte parser first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { datasetRows, removeDirectory, runCli, temporaryDirectory, withStore } from './load-helpers.js';

const EX = 'http://x.example/';

/** One of each kind, each with what the message says. */
const INVALID: [string, RegExp][] = [
  [`${EX}a#b#c`, /second '#'/],
  [`${EX}a%zz`, /'%'/],
  ['http://[::1/a', /no '\]'/],
  ['http://[1:2:3]/a', /neither an IPv6 address/],
  ['http://x.example:8o/a', /port/],
  ['http://a@b@x.example/', /more than one '@'/],
  [`${EX}[a]`, /outside the host/],
];

/** Valid but odd: these load. */
const VALID_ODD = ['http://[::1]:8080/a', 'http://x.example:/p', `${EX}caf\u00e9#`, 'urn:isbn:0451450523', 'mailto:a@x.example', `${EX}%C3%A9`];

/** A document with two good statements around a bad one on line 3, in each format. */
const DOCUMENTS: Record<string, (iri: string) => string> = {
  nt: (iri) => `<${EX}s> <${EX}p> "1" .\n<${EX}s> <${EX}p> "2" .\n<${EX}s> <${EX}p> <${iri}> .\n<${EX}s> <${EX}p> "4" .\n`,
  nq: (iri) => `<${EX}s> <${EX}p> "1" <${EX}g> .\n<${EX}s> <${EX}p> "2" .\n<${EX}s> <${EX}p> "3"^^<${iri}> <${EX}g> .\n<${EX}s> <${EX}p> "4" .\n`,
  ttl: (iri) => `@prefix ex: <${EX}> .\nex:s ex:p 1 .\nex:s ex:p <${iri}> .\nex:s ex:p 4 .\n`,
  trig: (iri) => `@prefix ex: <${EX}> .\nex:g { ex:s ex:p 1 }\n<${iri}> { ex:s ex:p 3 }\nex:g { ex:s ex:p 4 }\n`,
  rdf: (iri) =>
    `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">\n<rdf:Description rdf:about="${EX}s"><ex:p>1</ex:p></rdf:Description>\n` +
    `<rdf:Description rdf:about="${iri}"><ex:p>3</ex:p></rdf:Description>\n<rdf:Description rdf:about="${EX}s"><ex:p>4</ex:p></rdf:Description>\n</rdf:RDF>\n`,
  jsonld: (iri) => `[\n{"@id": "${EX}s", "${EX}p": "1"},\n{"@id": "${iri}", "${EX}p": "3"},\n{"@id": "${EX}s", "${EX}p": "4"}\n]\n`,
};

async function load(extension: string, text: string, lenient: boolean): Promise<{ code: number | null; stderr: string; rows: number }> {
  const dir = temporaryDirectory();
  try {
    const file = join(dir, `data.${extension}`);
    writeFileSync(file, text);
    const store = join(dir, 'store');
    const run = await runCli(['load', '--store', store, ...(lenient ? ['--lenient'] : []), file]);
    let rows = 0;
    await withStore(store, (s) => {
      rows = datasetRows(s).length;
    });
    return { code: run.code, stderr: run.stderr, rows };
  } finally {
    removeDirectory(dir);
  }
}

for (const extension of ['nt', 'nq']) {
  test(`${extension}: every kind of invalid IRI is refused with its line, or skipped with --lenient`, async () => {
    for (const [iri, reason] of INVALID) {
      const text = DOCUMENTS[extension]!(iri);
      const strict = await load(extension, text, false);
      assert.equal(strict.code, 1, `${iri}: ${strict.stderr}`);
      assert.match(strict.stderr, /data\.n[tq]:3:\d+: invalid IRI </, iri);
      assert.match(strict.stderr, reason, iri);
      assert.equal(strict.rows, 0, `${iri}: nothing of the file stays`);
      const lenient = await load(extension, text, true);
      assert.equal(lenient.code, 0, lenient.stderr);
      assert.match(lenient.stderr, /1 bad statements skipped/, iri);
      assert.equal(lenient.rows, 3, `${iri}: the other statements load`);
    }
  });
}

for (const extension of ['ttl', 'trig', 'rdf', 'jsonld']) {
  test(`${extension}: an invalid IRI is refused with its line, or its statement skipped with --lenient`, async () => {
    // JSON-LD's parser itself drops, silently, triples whose IRIs fail its own pattern (a second '#'
    // among them): a '%' escape it lets through shows what happens to the rest.
    const iri = extension === 'jsonld' ? `${EX}a%zz` : `${EX}a#b#c`;
    const text = DOCUMENTS[extension]!(iri);
    const strict = await load(extension, text, false);
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(strict.stderr, new RegExp(`data\\.${extension}:\\d+(:\\d+)?: invalid IRI <${iri.replace(/[.]/g, '\\.')}>: it`));
    // The statement's own line; JSON-LD's parser gives its quads only once it has read further
    // (how far depends on the document's nesting), so only a line is asked of it.
    assert.match(strict.stderr, extension === 'jsonld' ? /data\.jsonld:\d+: / : new RegExp(`data\\.${extension}:3\\b`));
    assert.equal(strict.rows, 0);
    const lenient = await load(extension, text, true);
    assert.equal(lenient.code, 0, lenient.stderr);
    assert.match(lenient.stderr, /1 bad statements skipped/);
    assert.equal(lenient.rows, 2, 'the other statements load');
  });
}

test('odd but valid IRIs load in every format', async () => {
  for (const [extension, document] of Object.entries(DOCUMENTS)) {
    // Each odd IRI in place of the bad one: one file per format, its statements one after another.
    const text =
      extension === 'rdf' || extension === 'jsonld' ? document(VALID_ODD[1]!) : VALID_ODD.map((iri) => document(iri).replace(/^@prefix.*\n/, '')).join('');
    const prologue = extension === 'ttl' || extension === 'trig' ? `@prefix ex: <${EX}> .\n` : '';
    const run = await load(extension, prologue + text, false);
    assert.equal(run.code, 0, `${extension}: ${run.stderr}`);
    assert.ok(run.rows >= 3, `${extension}: ${run.rows} rows`);
  }
  // Not the IP literal: JSON-LD's parser drops IRIs with brackets (see above).
  const jsonld = `[${VALID_ODD.slice(1)
    .map((iri) => `{"@id": "${iri}", "${EX}p": "x"}`)
    .join(',\n')}]`;
  const rdfxml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">\n${VALID_ODD.map((iri) => `<rdf:Description rdf:about="${iri}"><ex:p>x</ex:p></rdf:Description>`).join('\n')}\n</rdf:RDF>\n`;
  for (const [extension, text] of [
    ['jsonld', jsonld],
    ['rdf', rdfxml],
  ] as const) {
    const run = await load(extension, text, false);
    assert.equal(run.code, 0, `${extension}: ${run.stderr}`);
    assert.equal(run.rows, extension === 'jsonld' ? VALID_ODD.length - 1 : VALID_ODD.length, extension);
  }
});
