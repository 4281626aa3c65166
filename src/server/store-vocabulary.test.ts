import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceOf, prefixesFor } from './store-vocabulary.js';

describe('prefixes for the namespaces a store uses', () => {
  it('cuts an IRI after its last #, / or : (a URN)', () => {
    assert.equal(namespaceOf('http://xmlns.com/foaf/0.1/name'), 'http://xmlns.com/foaf/0.1/');
    assert.equal(namespaceOf('http://www.w3.org/2004/02/skos/core#prefLabel'), 'http://www.w3.org/2004/02/skos/core#');
    assert.equal(namespaceOf('urn:isbn:123'), 'urn:isbn:');
    assert.equal(namespaceOf('http://example.org/'), undefined, 'no local part: no namespace');
  });

  it('names well-known namespaces as usual, and others after their last word, numbered when taken', () => {
    const prefixes = prefixesFor([
      { iri: 'http://dbpedia.org/ontology/Person', count: 10 },
      { iri: 'http://xmlns.com/foaf/0.1/name', count: 5 },
      { iri: 'http://shop.example.com/vocab/shop#price', count: 3 },
      { iri: 'http://other.example.com/shop/sku', count: 2 },
      { iri: 'http://example.com/foaf#thing', count: 1 },
    ]);
    assert.deepEqual(prefixes, {
      dbo: 'http://dbpedia.org/ontology/',
      foaf: 'http://xmlns.com/foaf/0.1/',
      shop: 'http://shop.example.com/vocab/shop#',
      shop2: 'http://other.example.com/shop/',
      foaf2: 'http://example.com/foaf#',
    });
  });
});
