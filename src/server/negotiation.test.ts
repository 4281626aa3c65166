import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertPossibleOutput, negotiate, prefersHtml, wantsHtml } from './negotiation.js';
import { OUTPUT_VOCABULARY, QUAD_FORMATS, SOLUTION_FORMATS } from './result-formats.js';

/** One output value, several (as the parameters `output`, `format` and `results` gave them), or none. */
type Outputs = string | string[] | undefined;
const listOf = (outputs: Outputs): string[] => (outputs === undefined ? [] : typeof outputs === 'string' ? [outputs] : outputs);
const forSelect = (output?: Outputs, accept?: string) => negotiate(SOLUTION_FORMATS, listOf(output), accept, OUTPUT_VOCABULARY).mediaType;
const forConstruct = (output?: Outputs, accept?: string) => negotiate(QUAD_FORMATS, listOf(output), accept, OUTPUT_VOCABULARY).mediaType;

describe('negotiate', () => {
  it('defaults to JSON for solutions and Turtle for RDF', () => {
    assert.equal(forSelect(), 'application/sparql-results+json');
    assert.equal(forConstruct(), 'text/turtle');
    assert.equal(forSelect(undefined, '*/*'), 'application/sparql-results+json');
  });

  it('maps the short output names per kind of result', () => {
    assert.equal(forSelect('json'), 'application/sparql-results+json');
    assert.equal(forConstruct('json'), 'application/ld+json');
    assert.equal(forSelect('XML'), 'application/sparql-results+xml');
    assert.equal(forConstruct('xml'), 'application/rdf+xml');
  });

  it('takes media types as output values', () => {
    assert.equal(forSelect('text/tab-separated-values'), 'text/tab-separated-values');
    assert.equal(forConstruct('application/n-triples'), 'application/n-triples');
  });

  it('answers 406 for a known format of the other kind, 400 for an unknown one', () => {
    assert.throws(() => forConstruct('csv'), { status: 406 });
    assert.throws(() => forSelect('turtle'), { status: 406 });
    assert.throws(() => forSelect('yaml'), { name: 'ProtocolError', message: /allowed values: json, xml/ });
    assert.throws(() => forSelect('application/yaml'), { name: 'ProtocolError' });
  });

  it('takes the names clients use for the RDF formats', () => {
    assert.equal(forConstruct('n3'), 'text/turtle');
    assert.equal(forConstruct('rdf'), 'application/rdf+xml');
    assert.equal(forConstruct('rdf+xml'), 'application/rdf+xml');
    assert.equal(forConstruct('json-ld'), 'application/ld+json');
    assert.throws(() => forSelect('n3'), { status: 406 });
  });

  it('answers a format asked for several times, by name and by media type', () => {
    // SPARQLWrapper's parameters for TSV, RDF/XML and JSON-LD (its JSON-LD Accept list is the second value).
    assert.equal(forSelect(['tsv', 'text/tab-separated-values', 'tsv', 'text/tab-separated-values']), 'text/tab-separated-values');
    assert.equal(forConstruct(['rdf+xml', 'application/rdf+xml', 'rdf+xml']), 'application/rdf+xml');
    assert.equal(forConstruct(['json-ld', 'application/ld+json,application/x-json+ld']), 'application/ld+json');
    assert.equal(forConstruct(['xml', 'rdf']), 'application/rdf+xml');
    assert.equal(forSelect(['json', 'application/sparql-results+json; charset=utf-8']), 'application/sparql-results+json');
  });

  it('answers 400 for different formats, 406 for names that agree only for the other kind of result', () => {
    assert.throws(() => forSelect(['json', 'xml']), { name: 'ProtocolError', message: /different result formats \('json', 'xml'\)/ });
    assert.throws(() => forSelect(['csv', 'turtle']), { name: 'ProtocolError' });
    assert.throws(() => forConstruct(['turtle', 'application/rdf+xml']), { name: 'ProtocolError' });
    assert.throws(() => forSelect(['xml', 'rdf']), { status: 406, message: /output 'rdf' does not fit/ });
    assert.throws(() => forSelect(['json', 'yaml']), { name: 'ProtocolError', message: /unknown output format 'yaml'/ });
  });

  it('checks the values before a query runs, for either kind of result', () => {
    assert.doesNotThrow(() => assertPossibleOutput(['xml', 'application/rdf+xml'], OUTPUT_VOCABULARY));
    assert.doesNotThrow(() => assertPossibleOutput([], OUTPUT_VOCABULARY));
    assert.throws(() => assertPossibleOutput(['json', 'csv'], OUTPUT_VOCABULARY), { name: 'ProtocolError' });
    assert.throws(() => assertPossibleOutput(['application/x-json+ld'], OUTPUT_VOCABULARY), { name: 'ProtocolError' });
  });

  it('ranks by q-value, lets the most specific range decide, and breaks ties by preference', () => {
    assert.equal(forSelect(undefined, 'text/csv;q=0.4, application/sparql-results+xml;q=0.6'), 'application/sparql-results+xml');
    assert.equal(forSelect(undefined, 'text/*, text/csv;q=0'), 'text/tab-separated-values');
    assert.equal(forSelect(undefined, 'text/csv, text/tab-separated-values'), 'text/csv');
    assert.equal(forConstruct(undefined, 'application/json'), 'application/ld+json');
  });

  it('answers 406 when nothing is acceptable', () => {
    assert.throws(() => forSelect(undefined, 'image/png'), { status: 406 });
    assert.throws(() => forSelect(undefined, 'application/sparql-results+json;q=0'), { status: 406 });
  });
});

describe('wantsHtml', () => {
  it("follows the format parameters first, then a browser's Accept", () => {
    assert.equal(wantsHtml(['html', 'text/html'], undefined), true);
    assert.equal(wantsHtml(['html', 'json'], 'text/html'), false);
    assert.equal(wantsHtml([], 'text/html'), true);
    assert.equal(wantsHtml([], '*/*'), false);
  });
});

describe('prefersHtml', () => {
  it('recognises browsers but not */*', () => {
    assert.equal(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('text/turtle, text/html;q=0.5'), false);
  });
});
