import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accessKind, type RequestShape } from './access-guard.js';
import { serverRoutes } from './server-routes.js';

const routes = serverRoutes('/base');

function kind(method: string, route: string | undefined, extra: Partial<RequestShape> = {}): string {
  return accessKind({ method, route, contentType: undefined, accept: undefined, queryString: '', ...extra }, routes);
}

describe('accessKind', () => {
  it('treats everything that may write as an update, without looking at the body', () => {
    assert.equal(kind('POST', '/base/sparql/update'), 'update');
    assert.equal(kind('POST', '/base/sparql/update', { contentType: 'text/plain' }), 'update');
    assert.equal(kind('GET', '/base/sparql/update', { queryString: 'update=CLEAR+ALL' }), 'update');
    assert.equal(kind('HEAD', '/base/sparql/update', { queryString: 'query=CLEAR+ALL' }), 'update');
    assert.equal(kind('POST', '/base/sparql', { contentType: 'application/sparql-update; charset=utf-8' }), 'update');
    for (const method of ['PUT', 'POST', 'DELETE']) {
      assert.equal(kind(method, '/base/sparql/store'), 'update');
      assert.equal(kind(method, '/base/sparql/store/*'), 'update');
    }
  });

  it('leaves a form POSTed to {base}/sparql to the handler, which sees whether it holds a query or an update', () => {
    assert.equal(kind('POST', '/base/sparql', { contentType: 'application/x-www-form-urlencoded' }), 'by-body');
  });

  it('treats reads as queries', () => {
    assert.equal(kind('GET', '/base/sparql/select', { queryString: 'query=ASK%7B%7D' }), 'query');
    assert.equal(kind('POST', '/base/sparql/select'), 'query');
    assert.equal(kind('POST', '/base/sparql', { contentType: 'application/sparql-query' }), 'query');
    assert.equal(kind('GET', '/base/sparql/store'), 'query');
    assert.equal(kind('HEAD', '/base/sparql/store/*'), 'query');
    assert.equal(kind('GET', '/base/metrics'), 'query');
    assert.equal(kind('GET', '/base/sparql/select', { accept: 'text/turtle' }), 'query', 'the service description');
  });

  it('keeps the pages, health, preflights and unknown paths open', () => {
    assert.equal(kind('GET', '/base/sparql/select', { accept: 'text/html' }), 'open');
    assert.equal(kind('GET', '/base/sparql/select', { queryString: 'output=html' }), 'open');
    assert.equal(kind('GET', '/base/sparql/update', { accept: 'text/html' }), 'open');
    assert.equal(kind('GET', '/base/health'), 'open');
    assert.equal(kind('OPTIONS', '/base/sparql/update'), 'open');
    assert.equal(kind('GET', undefined), 'open');
    assert.equal(kind('GET', '/base/sparql', { queryString: 'query=ASK%7B%7D' }), 'open', 'a redirect to select, checked there');
  });

  it('takes the stricter kind when the URL does not decode', () => {
    assert.equal(kind('GET', '/base/sparql/update', { queryString: 'x=%FF' }), 'update');
    assert.equal(kind('GET', '/base/sparql/select', { queryString: 'x=%FF', accept: 'text/html' }), 'query');
  });
});
