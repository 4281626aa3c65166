/**
 * Invalid IRIs (RFC 3987) through the HTTP service: a query or update text with one is a 400 naming
 * its line and column (and an update changes nothing); a Graph Store document with one is a 400
 * naming its line, and nothing of it is stored; IRI() of an invalid IRI leaves its variable unbound.
 * Odd but valid IRIs go through every one of these.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeQuery, SPARQL_QUERY, SPARQL_UPDATE, startLocalServer, type RunningServer } from './harness.js';

const EX = 'http://x.example/';
const INVALID = [`${EX}a#b#c`, `${EX}a%zz`, 'http://[::1/a', 'http://x.example:8o/', `${EX}[a]`];
const VALID_ODD = ['http://[::1]:8080/a', `${EX}caf\u00e9#`, 'urn:isbn:0451450523', 'mailto:a@x.example', `${EX}%C3%A9`];

describe('invalid IRIs over HTTP', () => {
  let server: RunningServer;

  before(async () => {
    server = await startLocalServer();
  });
  after(async () => server.close());

  const query = (text: string): Promise<Response> =>
    fetch(server.url('/sparql/select'), { method: 'POST', headers: { 'content-type': SPARQL_QUERY, accept: 'application/sparql-results+json' }, body: text });
  const update = (text: string): Promise<Response> =>
    fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: text });
  const put = (graph: string, type: string, body: string): Promise<Response> =>
    fetch(server.url(`/sparql/store?${encodeQuery({ graph })}`), { method: 'PUT', headers: { 'content-type': type }, body });
  async function count(): Promise<number> {
    const json = (await (await query('SELECT (COUNT(*) AS ?n) { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }')).json()) as any;
    return Number(json.results.bindings[0].n.value);
  }

  it('answers 400 with the line and column for a query with an invalid IRI', async () => {
    for (const iri of INVALID) {
      const response = await query(`SELECT * WHERE {\n  ?s ?p <${iri}> }`);
      assert.equal(response.status, 400, iri);
      assert.match(await response.text(), /^invalid IRI <.*>: .*\(line 2, column 9\)/, iri);
    }
  });

  it('answers 400 with the line and column for an update with an invalid IRI, and changes nothing', async () => {
    const before = await count();
    for (const iri of INVALID) {
      const secondLine = `INSERT DATA { <${EX}s> <${EX}p> <${iri}> }`;
      const response = await update(`INSERT DATA { <${EX}s> <${EX}p> 1 } ;\n${secondLine}`);
      assert.equal(response.status, 400, iri);
      assert.match(await response.text(), new RegExp(`^invalid IRI .*\\(line 2, column ${secondLine.indexOf(`<${iri}>`) + 1}\\)`), iri);
    }
    assert.equal(await count(), before);
  });

  it('refuses a Graph Store PUT whose document has an invalid IRI, naming its line; nothing is stored', async () => {
    const documents: [string, (iri: string) => string][] = [
      ['text/turtle', (iri) => `@prefix ex: <${EX}> .\nex:s ex:p 1 .\nex:s ex:p <${iri}> .\n`],
      ['application/n-triples', (iri) => `<${EX}s> <${EX}p> "1" .\n<${EX}s> <${EX}p> "2" .\n<${EX}s> <${EX}p> <${iri}> .\n`],
      [
        'application/rdf+xml',
        (iri) =>
          `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">\n<rdf:Description rdf:about="${EX}s">\n<ex:p rdf:resource="${iri}"/>\n</rdf:Description>\n</rdf:RDF>`,
      ],
    ];
    for (const [type, document] of documents) {
      for (const iri of INVALID) {
        const response = await put(`${EX}g`, type, document(iri));
        assert.equal(response.status, 400, `${type} ${iri}`);
        assert.match(await response.text(), /invalid IRI <.*\(line 3\b/, `${type} ${iri}`);
      }
    }
    assert.equal(await count(), 0);
    // And the graph named in the request is checked the same way.
    const named = await put(`${EX}g#1#2`, 'text/turtle', `<${EX}s> <${EX}p> 1 .`);
    assert.equal(named.status, 400);
    assert.match(await named.text(), /second '#'/);
  });

  it('leaves IRI() of an invalid IRI unbound, and binds it for an odd but valid one', async () => {
    const values = [...INVALID, ...VALID_ODD].map((iri) => JSON.stringify(iri)).join(' ');
    const response = await query(`SELECT ?text ?iri WHERE { VALUES ?text { ${values} } BIND(IRI(?text) AS ?iri) }`);
    const rows = ((await response.json()) as any).results.bindings as { text: { value: string }; iri?: { value: string } }[];
    for (const row of rows) {
      if (INVALID.includes(row.text.value)) assert.equal(row.iri, undefined, row.text.value);
      else assert.equal(row.iri?.value, row.text.value);
    }
    assert.equal(rows.length, INVALID.length + VALID_ODD.length);
  });

  it('takes odd but valid IRIs in queries, updates and Graph Store documents', async () => {
    for (const iri of VALID_ODD) {
      assert.equal((await update(`INSERT DATA { GRAPH <${EX}odd> { <${iri}> <${EX}p> <${iri}> } }`)).status, 200, iri);
      const json = (await (await query(`ASK { GRAPH ?g { <${iri}> ?p <${iri}> } }`)).json()) as any;
      assert.equal(json.boolean, true, iri);
      assert.equal((await put(iri, 'application/n-triples', `<${iri}> <${EX}p> <${iri}> .\n`)).status, 201, iri);
    }
  });
});
