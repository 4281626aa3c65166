import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { outputValues, parseUrlEncoded, rawQueryString } from './protocol-params.js';

describe('parseUrlEncoded', () => {
  it('keeps repeated parameters, decodes + and UTF-8 escapes', () => {
    const params = parseUrlEncoded('a=1&b=x+y%2Bz&a=%C3%A9&flag', 'test');
    assert.deepEqual(params.all('a'), ['1', 'é']);
    assert.equal(params.single('b'), 'x y+z');
    assert.equal(params.single('flag'), '');
  });

  it('refuses a second value of a single parameter', () => {
    assert.throws(() => parseUrlEncoded('query=1&query=2', 'test').single('query'), { name: 'ProtocolError', message: /only once/ });
  });

  it('refuses escapes that are not UTF-8, but keeps a stray %', () => {
    assert.throws(() => parseUrlEncoded('q=%FF', 'the form'), { name: 'ProtocolError', message: /the form is not valid UTF-8/ });
    assert.equal(parseUrlEncoded('q=100%', 'test').single('q'), '100%');
    assert.equal(parseUrlEncoded('q=✓%20ok', 'test').single('q'), '✓ ok');
  });
});

describe('rawQueryString', () => {
  it('returns the query string exactly as sent', () => {
    assert.equal(rawQueryString('/sparql?query=a%20b&x=+'), 'query=a%20b&x=+');
    assert.equal(rawQueryString('/sparql'), '');
  });
});

describe('outputValues', () => {
  it('gathers output and the aliases clients send beside it, dropping empty values', () => {
    // What Python's SPARQLWrapper sends for TSV: the short name in three parameters, then its Accept.
    const sparqlWrapper = parseUrlEncoded(
      'query=ASK{}&format=tsv&format=text/tab-separated-values&output=tsv&output=text/tab-separated-values&results=tsv&results=',
      'test',
    );
    assert.deepEqual(outputValues(sparqlWrapper), ['tsv', 'text/tab-separated-values', 'tsv', 'text/tab-separated-values', 'tsv']);
    assert.deepEqual(outputValues(parseUrlEncoded('format=xml', 'test')), ['xml']);
    assert.deepEqual(outputValues(parseUrlEncoded('query=ASK{}&output=', 'test')), []);
  });
});
