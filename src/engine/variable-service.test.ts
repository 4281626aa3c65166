import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from '../sparql/index.js';
import { variableServices } from './variable-service.js';

/** The variable SERVICEs of a query, each as its variable and the pattern types of its source. */
function sources(query: string): string[] {
  return variableServices(parseQuery(query).algebra).map(({ variable, source }) => `?${variable} from ${source ? shapeOf(source) : 'nothing'}`);
}

function shapeOf(op: unknown): string {
  const node = op as { type: string; input?: unknown; patterns?: unknown[] };
  if (node.type === 'bgp') return `bgp(${node.patterns!.length})`;
  const inputs = Array.isArray(node.input) ? node.input : node.input ? [node.input] : [];
  return `${node.type}(${inputs.map(shapeOf).join(', ')})`;
}

describe('the pattern that gives a variable SERVICE its endpoints', () => {
  it('is the other operand of the join, or the left side of the OPTIONAL it stands in', () => {
    assert.deepEqual(sources('SELECT * { ?s <urn:at> ?e SERVICE ?e { ?s ?p ?o } }'), ['?e from bgp(1)']);
    assert.deepEqual(sources('SELECT * { ?s <urn:at> ?e OPTIONAL { SERVICE ?e { ?s ?p ?o } } }'), ['?e from bgp(1)']);
    assert.deepEqual(sources('SELECT * { { ?s <urn:at> ?e FILTER(?s != <urn:x>) } SERVICE SILENT ?e { ?s ?p ?o } }'), ['?e from filter(bgp(1))']);
  });

  it('goes up through UNION and FILTER to the join that binds the variable', () => {
    assert.deepEqual(sources('SELECT * { ?s <urn:at> ?e { SERVICE ?e { ?s ?p ?o } } UNION { ?s ?p ?o } }'), ['?e from bgp(1)']);
  });

  it('is nothing across a sub-SELECT, a MINUS or when no pattern binds the variable', () => {
    assert.deepEqual(sources('SELECT * { ?s <urn:at> ?e { SELECT ?s { SERVICE ?e { ?s ?p ?o } } } }'), ['?e from nothing']);
    assert.deepEqual(sources('SELECT * { ?s <urn:at> ?e MINUS { SERVICE ?e { ?s ?p ?o } } }'), ['?e from nothing']);
    assert.deepEqual(sources('SELECT * { ?s <urn:at> ?x SERVICE ?e { ?s ?p ?o } }'), ['?e from nothing']);
  });
});
