/**
 * rdflib's SPARQLStore and SPARQLUpdateStore (Debian's python3-rdflib) against a live `quiver serve`:
 * a Dataset written and read through its default graph and a named graph, with the query and update
 * endpoints given as users give them; and plain reads by each of rdflib's methods and result formats.
 * The script fixtures/rdflib_store.py runs every case in one process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ask, clientFixture, DEBIAN_PYTHON, EX, jsonLines, requirePythonModules, runClient, startQuiverWithPeople, type LiveQuiver } from './live-quiver.js';

interface WriteCase {
  case: 'write then read';
  query: string;
  update: string;
  graph: string;
  ok: boolean;
  error?: string;
  names?: string[];
  ages?: string[];
  selected?: string[];
  asked?: boolean;
  constructed?: string[];
}

interface ReadCase {
  case: 'read only';
  method: string;
  returnFormat: string;
  ok: boolean;
  error?: string;
  names?: string[];
  asked?: boolean | null;
}

let quiver: LiveQuiver;
let writes: WriteCase[] = [];
let reads: ReadCase[] = [];

before(async () => {
  await requirePythonModules(['rdflib'], ['python3-rdflib']);
  quiver = await startQuiverWithPeople();
  const { stdout } = await runClient(DEBIAN_PYTHON, [clientFixture('rdflib_store.py'), quiver.origin]);
  const cases = jsonLines<WriteCase | ReadCase>(stdout);
  writes = cases.filter((c): c is WriteCase => c.case === 'write then read');
  reads = cases.filter((c): c is ReadCase => c.case === 'read only');
});
after(async () => quiver?.stop());

describe('rdflib SPARQLUpdateStore and SPARQLStore against a live Quiver', () => {
  it('adds and removes triples, then reads them back by triple pattern, SELECT, ASK and CONSTRUCT', () => {
    assert.equal(writes.length, 6);
    for (const c of writes) {
      const label = `query ${c.query}, update ${c.update}, ${c.graph} graph`;
      assert.ok(c.ok, `${label}: ${c.error}`);
      assert.deepEqual(c.names, ['Dana'], label);
      assert.deepEqual(c.ages, [], `${label}: the removed triple is gone`);
      assert.deepEqual(c.selected, ['Dana'], label);
      assert.equal(c.asked, true, label);
      assert.deepEqual(c.constructed, ['Dana'], label);
    }
  });

  it('writes into the graph the Dataset names', async () => {
    assert.ok(await ask(quiver.origin, `ASK { <${EX}person-0-default> <${EX}name> "Dana" }`));
    assert.ok(await ask(quiver.origin, `ASK { GRAPH <${EX}graph-0> { <${EX}person-0-named> <${EX}name> "Dana" } }`));
    assert.equal(await ask(quiver.origin, `ASK { <${EX}person-0-named> ?p ?o }`), false, 'not in the default graph');
  });

  it('reads by GET, POST and form POST, in SPARQL XML, JSON, CSV and TSV', () => {
    assert.equal(reads.length, 12);
    for (const c of reads) {
      const label = `${c.method} ${c.returnFormat}`;
      assert.ok(c.ok, `${label}: ${c.error}`);
      assert.ok(
        ['Alice', 'Bob'].every((name) => c.names!.includes(name)),
        `${label}: ${c.names}`,
      );
      if (c.returnFormat === 'xml' || c.returnFormat === 'json') assert.equal(c.asked, true, label);
    }
  });
});
