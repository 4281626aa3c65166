import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { scanTemplate, templateOf } from './query-template.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowQueryTemplates, parseAsTemplate, parseQuery } from './parse.js';

describe('query templates', () => {
  it('replaces IRIs, strings and integers of the body, not the prologue, datatypes or LIMIT', () => {
    const text = `# mix 7
PREFIX ex: <http://ex/>
SELECT ?s WHERE { ?s ex:p <http://ex/a> ; ex:q "x"@en ; ex:r "2008-01-01"^^<http://www.w3.org/2001/XMLSchema#date> FILTER(?v > 120) } LIMIT 10`;
    const template = templateOf(text)!;
    assert.deepEqual(template.constants, ['http://ex/a', 'x', '2008-01-01', '120']);
    assert.ok(template.text.includes('PREFIX ex: <http://ex/>'));
    assert.ok(template.text.includes('^^<http://www.w3.org/2001/XMLSchema#date>'));
    assert.ok(template.text.endsWith('LIMIT 10'));
    assert.ok(!template.text.includes('mix 7'));
  });

  it('gives queries that differ only in constants the same template', () => {
    const a = templateOf('SELECT * { <http://ex/a> ?p "one" FILTER(?x < 5) }')!;
    const b = templateOf('SELECT * { <http://ex/b> ?p "two" FILTER(?x < 7) }')!;
    assert.equal(a.text, b.text);
  });

  it('leaves decimals, doubles, escaped strings and names alone', () => {
    assert.equal(templateOf('SELECT * { ?s ?p 1.5, 2e3, "a\\"b", ?x1, ex:n2 }'), undefined);
  });

  it('parses a query through its template to the same algebra as on its own', () => {
    const first = parseQuery('PREFIX ex: <http://ex/> SELECT * { ?s ex:p <http://ex/a> FILTER(?s != "k" && ?o > -3) }');
    const second = parseQuery('PREFIX ex: <http://ex/> SELECT * { ?s ex:p <http://ex/b> FILTER(?s != "m" && ?o > -4) }');
    const text = JSON.stringify(second.algebra);
    assert.ok(text.includes('http://ex/b') && text.includes('"m"') && text.includes('-4'), text);
    assert.ok(!text.includes('quiver-param'));
    assert.notEqual(JSON.stringify(first.algebra), text);
  });
});

describe('query templates: substitution', () => {
  it('copies only the nodes on the way to a constant, and each query gets its own copy', () => {
    const a = parseQuery('SELECT * { ?s <http://ex/p> <http://ex/a> OPTIONAL { ?s ?q ?o } }');
    const b = parseQuery('SELECT * { ?s <http://ex/p> <http://ex/b> OPTIONAL { ?s ?q ?o } }');
    const again = parseQuery('SELECT * { ?s <http://ex/p> <http://ex/a> OPTIONAL { ?s ?q ?o } }');
    const patterns = (parsed: typeof a) => {
      const join = (parsed.algebra as unknown as { input: { input: { patterns: { object: { value: string } }[] }[] } }).input;
      return join.input.map((bgp) => bgp.patterns[0]);
    };
    assert.equal(patterns(a)[0].object.value, 'http://ex/a');
    assert.equal(patterns(b)[0].object.value, 'http://ex/b');
    assert.equal(patterns(a)[1], patterns(b)[1], 'the OPTIONAL part has no constant of the template: shared');
    assert.notEqual(patterns(a)[0], patterns(again)[0], 'a fresh copy per query');
    assert.deepEqual(JSON.stringify(a.algebra), JSON.stringify(again.algebra));
  });
});

describe('query templates: layouts of recent queries', () => {
  const base = `# mix 1 seq 3
PREFIX ex: <http://ex/>
SELECT ?s WHERE {
  ?s ex:p <http://ex/a> ; ex:q "x"@en ; ex:t 'y' ; ex:r "2008-01-01"^^<http://www.w3.org/2001/XMLSchema#date> . # note
  FILTER(?v > 120 && ?w < 7.5 && ?u != 3e2)
} LIMIT 10`;

  it('gives a query laid out like an earlier one exactly what a full scan gives', () => {
    scanTemplate(base);
    const variants = [
      base.replace('mix 1 seq 3', 'mix 2 seq 9'),
      base.replace('http://ex/a', 'http://ex/other/thing'),
      base.replace('"x"', '"a longer string"').replace("'y'", "''"),
      base.replace('> 120', '> 7'),
      base.replace('# note', '#'),
      // Regions the scan would take otherwise: an IRI with a space, a relative IRI, dot segments,
      // an escaped string, an empty string opening a long one, a decimal, a comment gone, our marks.
      base.replace('<http://ex/a>', '<http://ex/a b>'),
      base.replace('<http://ex/a>', '<a>'),
      base.replace('<http://ex/a>', '<>'),
      base.replace('<http://ex/a>', '<http://ex/../a>'),
      base.replace('"x"', '"x\\"y"'),
      base.replace('"x"@en', '"""x"""@en'),
      base.replace('> 120', '> 12.0'),
      base.replace('# note', ''),
      base.replace('# note', '# urn:x-quiver-param:0'),
      base.replace('http://ex/a', 'urn:x-quiver-param:1'),
      base.replace('120', '977777777770001'),
      base.replace('LIMIT 10', 'LIMIT 11'),
      base + ' ',
    ];
    for (const variant of variants) assert.deepEqual(templateOf(variant), scanTemplate(variant), variant);
    // Laid out alike: the same template string, the constants of each.
    const a = templateOf(variants[1])!;
    const b = templateOf(variants[3])!;
    assert.equal(a.text, b.text);
    assert.deepEqual(b.constants, ['http://ex/a', 'x', 'y', '2008-01-01', '7']);
  });
});

describe('query templates against the plain parse (QUIVER_QUERY_TEMPLATES=0)', () => {
  const RDF_TESTS = fileURLToPath(new URL('../../../../shared/rdf-tests/', import.meta.url));
  const SUITES = ['sparql10', 'sparql11', 'sparql12'].map((suite) => join(RDF_TESTS, suite));

  function queryFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? queryFiles(path) : entry.name.endsWith('.rq') ? [path] : [];
    });
  }

  /**
   * The algebra as JSON, blank nodes named in order of appearance: each parse numbers its own, and
   * so do the variables that stand for them in triple-term patterns (`tt.b.` and the label).
   */
  function algebraOf(text: string): string | undefined {
    try {
      const names = new Map<string, number>();
      const rename = (label: string): number => names.get(label) ?? names.set(label, names.size).get(label)!;
      return JSON.stringify(parseQuery(text, 'http://example.org/base/').algebra)
        .replace(/"termType":"BlankNode","value":"([^"]*)"/g, (_, label: string) => `"termType":"BlankNode","value":"b${rename(label)}"`)
        .replace(/"value":"tt\.b\.([^"]*)"/g, (_, label: string) => `"value":"tt.b.${rename(label)}"`);
    } catch {
      return undefined; // a negative syntax test, or an update
    }
  }

  it('gives every query of the W3C suites the algebra of a parse of its own text', { skip: !existsSync(SUITES[1]) && 'test suites not found' }, () => {
    let templated = 0;
    for (const file of SUITES.flatMap(queryFiles)) {
      const text = readFileSync(file, 'utf8');
      if (templateOf(text)) templated++;
      // Through the template first: a plain parse is cached by text, and would answer the second call.
      const throughTemplate = algebraOf(text);
      const previous = allowQueryTemplates(false);
      try {
        assert.equal(algebraOf(text), throughTemplate, file);
      } finally {
        allowQueryTemplates(previous);
      }
    }
    assert.ok(templated > 200, `${templated} queries with a template`);
  });

  it('off, no query has a template to share', () => {
    const text = 'SELECT * { ?s <http://ex/p> "some constant" }';
    assert.ok(parseAsTemplate(text));
    const previous = allowQueryTemplates(false);
    try {
      assert.equal(parseAsTemplate(text), undefined);
    } finally {
      allowQueryTemplates(previous);
    }
  });
});
