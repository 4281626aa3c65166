import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { negotiate, prefersHtml } from './negotiation.js';
import { OUTPUT_VOCABULARY, QUAD_FORMATS, SOLUTION_FORMATS } from './result-formats.js';

const forSelect = (output?: string, accept?: string) => negotiate(SOLUTION_FORMATS, output, accept, OUTPUT_VOCABULARY).mediaType;
const forConstruct = (output?: string, accept?: string) => negotiate(QUAD_FORMATS, output, accept, OUTPUT_VOCABULARY).mediaType;

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

describe('prefersHtml', () => {
  it('recognises browsers but not */*', () => {
    assert.equal(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('text/turtle, text/html;q=0.5'), false);
  });
});
