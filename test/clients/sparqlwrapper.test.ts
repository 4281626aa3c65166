/**
 * Python's SPARQLWrapper (Debian's python3-sparqlwrapper, with python3-rdflib-jsonld for JSON-LD)
 * against a live `quiver serve`. Unless told to use content negotiation only, SPARQLWrapper names
 * its return format in `format`, `output` and `results` at once, with its own names (`n3`, `rdf`,
 * `rdf+xml`, `json-ld`), and for TSV, RDF/XML and JSON-LD adds its Accept list as a second value.
 * The script fixtures/sparqlwrapper_matrix.py runs every case in one process; each test here judges
 * one query form in one format, by GET, form POST and direct POST, with and without onlyConneg.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ask, clientFixture, DEBIAN_PYTHON, EX, jsonLines, requirePythonModules, runClient, startQuiverWithPeople, type LiveQuiver } from './live-quiver.js';

type Form = 'SELECT' | 'ASK' | 'CONSTRUCT' | 'DESCRIBE';

interface QueryCase {
  endpoint: string;
  form: Form;
  format: string;
  method: string;
  onlyConneg: boolean;
  ok: boolean;
  error?: string;
  contentType?: string;
  answer?: unknown;
  warnings?: string[];
}

interface UpdateCase {
  endpoint: string;
  form: 'INSERT DATA';
  method: string;
  ok: boolean;
  error?: string;
  status?: number;
  stored?: boolean;
}

/** The formats SPARQLWrapper offers, for the query forms they fit (as the script runs them). */
const FORMATS: Record<Form, string[]> = {
  SELECT: ['json', 'xml', 'csv', 'tsv'],
  ASK: ['json', 'xml', 'csv', 'tsv'],
  CONSTRUCT: ['json', 'xml', 'turtle', 'n3', 'rdf', 'rdf+xml', 'json-ld'],
  DESCRIBE: ['json', 'xml', 'turtle', 'n3', 'rdf', 'rdf+xml', 'json-ld'],
};
/** Two endpoints, three ways to send the query, with and without onlyConneg. */
const CASES_PER_FORMAT = 2 * 3 * 2;

const ANSWERS: Record<Form, unknown> = { SELECT: ['Alice', 'Bob'], ASK: true, CONSTRUCT: ['Alice', 'Bob'], DESCRIBE: ['Alice'] };

const RESULTS_MEDIA_TYPES: Record<string, string> = {
  json: 'application/sparql-results+json',
  xml: 'application/sparql-results+xml',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
};
const RDF_MEDIA_TYPES: Record<string, string> = {
  json: 'application/ld+json',
  'json-ld': 'application/ld+json',
  xml: 'application/rdf+xml',
  rdf: 'application/rdf+xml',
  'rdf+xml': 'application/rdf+xml',
  turtle: 'text/turtle',
  n3: 'text/turtle',
};

/**
 * What Quiver answers: the format asked for. Only where SPARQLWrapper itself asks for anything (with
 * onlyConneg, RDF and JSON for CONSTRUCT/DESCRIBE send an Accept of any type and no parameter) does
 * the server choose, and it answers its default, Turtle.
 */
function expectedMediaType(c: QueryCase): string {
  if (c.form === 'SELECT' || c.form === 'ASK') return RESULTS_MEDIA_TYPES[c.format]!;
  return c.onlyConneg && sendsAnyType(c) ? 'text/turtle' : RDF_MEDIA_TYPES[c.format]!;
}

function sendsAnyType(c: QueryCase): boolean {
  return (c.form === 'CONSTRUCT' || c.form === 'DESCRIBE') && (c.format === 'rdf' || c.format === 'json');
}

let quiver: LiveQuiver;
let queryCases: QueryCase[] = [];
let updateCases: UpdateCase[] = [];

before(async () => {
  await requirePythonModules(['SPARQLWrapper', 'rdflib', 'rdflib_jsonld'], ['python3-sparqlwrapper', 'python3-rdflib-jsonld']);
  quiver = await startQuiverWithPeople();
  const { stdout } = await runClient(DEBIAN_PYTHON, [clientFixture('sparqlwrapper_matrix.py'), quiver.origin]);
  const cases = jsonLines<QueryCase | UpdateCase>(stdout);
  queryCases = cases.filter((c): c is QueryCase => c.form !== 'INSERT DATA');
  updateCases = cases.filter((c): c is UpdateCase => c.form === 'INSERT DATA');
});
after(async () => quiver?.stop());

describe('SPARQLWrapper against a live Quiver', () => {
  it('ran every case', () => {
    const expected = Object.values(FORMATS).reduce((sum, formats) => sum + formats.length * CASES_PER_FORMAT, 0);
    assert.equal(queryCases.length, expected);
    assert.equal(updateCases.length, 4);
  });

  for (const [form, formats] of Object.entries(FORMATS) as [Form, string[]][]) {
    for (const format of formats) {
      it(`${form} as ${format}: GET, POST and POST directly, to /sparql and /sparql/select, with and without onlyConneg`, () => {
        const cases = queryCases.filter((c) => c.form === form && c.format === format);
        assert.equal(cases.length, CASES_PER_FORMAT);
        for (const c of cases) {
          const label = `${form} ${format} ${c.method} ${c.endpoint}${c.onlyConneg ? ' onlyConneg' : ''}`;
          assert.ok(c.ok, `${label}: ${c.error}`);
          assert.equal(c.contentType!.split(';')[0], expectedMediaType(c), label);
          assert.deepEqual(c.answer, ANSWERS[form], label);
          if (!sendsAnyType(c) || !c.onlyConneg) {
            assert.deepEqual(
              c.warnings!.filter((w) => w.startsWith('Format requested was')),
              [],
              label,
            );
          }
        }
      });
    }
  }

  it('carries out updates POSTed as a form or directly, to /sparql/update and to /sparql', async () => {
    for (const c of updateCases) {
      const label = `INSERT DATA ${c.method} ${c.endpoint}`;
      assert.ok(c.ok, `${label}: ${c.error}`);
      assert.equal(c.status, 200, label);
      assert.equal(c.stored, true, label);
      assert.ok(await ask(quiver.origin, `ASK { <${EX}carol> <${EX}nick> "Carol via ${c.method} to ${c.endpoint}" }`), label);
    }
  });
});
