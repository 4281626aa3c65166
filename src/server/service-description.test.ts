import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeService } from './service-description.js';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const ENDPOINTS = { single: 'http://h/sparql', select: 'http://h/sparql/select', update: 'http://h/sparql/update' };

function endpointTriples(): [string, string][] {
  return describeService(ENDPOINTS, { defaultGraphTriples: 2 })
    .filter((q) => q.predicate.value === SD + 'endpoint')
    .map((q) => [q.subject.value, q.object.value]);
}

describe('describeService', () => {
  it('names each service by its endpoint, so that a client reading the URL it asked finds its own', () => {
    for (const [service, endpoint] of endpointTriples()) assert.equal(service, endpoint);
  });

  it('lists the query endpoint first and the single endpoint last: the first and the last answer queries', () => {
    assert.deepEqual(
      endpointTriples().map(([, endpoint]) => endpoint),
      [ENDPOINTS.select, ENDPOINTS.update, ENDPOINTS.single],
    );
  });

  it('says which languages each endpoint takes', () => {
    const quads = describeService(ENDPOINTS, {});
    const languages = (endpoint: string) =>
      quads.filter((q) => q.subject.value === endpoint && q.predicate.value === SD + 'supportedLanguage').map((q) => q.object.value.slice(SD.length));
    assert.deepEqual(languages(ENDPOINTS.select), ['SPARQL11Query']);
    assert.deepEqual(languages(ENDPOINTS.update), ['SPARQL11Update']);
    assert.deepEqual(languages(ENDPOINTS.single), ['SPARQL11Query', 'SPARQL11Update']);
  });

  it('states a union default graph as the feature sd:UnionDefaultGraph of the query services, and no size for that graph', () => {
    const features = (data: Parameters<typeof describeService>[1]) =>
      describeService(ENDPOINTS, data)
        .filter((q) => q.predicate.value === SD + 'feature' && q.object.value === SD + 'UnionDefaultGraph')
        .map((q) => q.subject.value);
    assert.deepEqual(features({ defaultGraphTriples: 2 }), []);
    assert.deepEqual(features({ unionDefaultGraph: true }), [ENDPOINTS.select, ENDPOINTS.single]);
    const sizes = describeService(ENDPOINTS, { unionDefaultGraph: true }).filter((q) => q.predicate.value.endsWith('#triples'));
    assert.deepEqual(sizes, []);
  });
});
