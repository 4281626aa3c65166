/**
 * Comunica (`@comunica/query-sparql`) given only `{base}/sparql`, as a SPARQL source and as a plain
 * URL it identifies itself, against a live `quiver serve`. Given a plain URL, Comunica reads the
 * service description and sends its queries to the `sd:endpoint` it finds there; it once found the
 * update endpoint's and got `400 expected an update request`. Every request it makes is recorded
 * through its `fetch` option: none may go to the update endpoint, or fail.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QueryEngine } from '@comunica/query-sparql';
import { EX, startQuiverWithPeople, type LiveQuiver } from './live-quiver.js';

interface SentRequest {
  method: string;
  /** The URL asked for, and the one that answered (after redirects). */
  url: string;
  answeredBy: string;
  status: number;
}

/** Runs Comunica's queries with a fetch that notes every request. */
function recordingFetch(sent: SentRequest[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    sent.push({ method: init?.method ?? 'GET', url, answeredBy: response.url, status: response.status });
    return response;
  };
}

let quiver: LiveQuiver;

before(async () => {
  quiver = await startQuiverWithPeople();
});
after(async () => quiver?.stop());

describe('Comunica given {base}/sparql', () => {
  const sources = [
    { name: "a source of type 'sparql'", source: () => ({ type: 'sparql', value: `${quiver.origin}/sparql` }) as const },
    { name: 'a plain URL it identifies itself', source: () => `${quiver.origin}/sparql` },
  ];
  for (const { name, source } of sources) {
    it(`answers SELECT, ASK and CONSTRUCT from ${name}, asking only the query endpoints`, async () => {
      const engine = new QueryEngine();
      const sent: SentRequest[] = [];
      const context = { sources: [source()], fetch: recordingFetch(sent) };
      const bindings = await (await engine.queryBindings(`SELECT ?name WHERE { ?person <${EX}name> ?name }`, context)).toArray();
      assert.deepEqual(bindings.map((b) => b.get('name')!.value).sort(), ['Alice', 'Bob']);
      assert.equal(await engine.queryBoolean(`ASK { <${EX}alice> <${EX}knows> <${EX}bob> }`, context), true);
      const quads = await (await engine.queryQuads(`CONSTRUCT { ?person <${EX}name> ?name } WHERE { ?person <${EX}name> ?name }`, context)).toArray();
      assert.deepEqual(quads.map((q) => q.object.value).sort(), ['Alice', 'Bob']);

      assert.ok(sent.length > 0, 'the requests were recorded');
      for (const request of sent) {
        const label = `${request.method} ${request.url} (answered by ${request.answeredBy})`;
        assert.ok(request.status >= 200 && request.status < 300, `${label}: ${request.status}`);
        assert.match(new URL(request.answeredBy).pathname, /^\/sparql(\/select)?$/, label);
      }
    });
  }
});
