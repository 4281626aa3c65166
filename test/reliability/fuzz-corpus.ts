/**
 * Seeds for the fuzzer: the W3C SPARQL 1.1 queries (*.rq) and updates (*.ru) from
 * ../shared/rdf-tests. Those with SERVICE or LOAD name hosts outside this machine: the fuzzer
 * confines every request that fetches to it (fuzz-remote.ts, confineFetches).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Corpus {
  queries: string[];
  updates: string[];
}

/** Used when the shared test suites are not there, so that the fuzzer still runs. */
const FALLBACK: Corpus = {
  queries: [
    'PREFIX : <http://example.org/> SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s :p ?o OPTIONAL { ?o :q ?x } FILTER(?o > 2 || regex(str(?s), "a")) } GROUP BY ?s HAVING (COUNT(?o) > 1) ORDER BY DESC(?n) LIMIT 10',
    'SELECT * WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } MINUS { ?s a ?t } } OFFSET 1',
    'ASK { ?s <http://example.org/p>+ ?o . BIND(CONCAT(STR(?s), "x") AS ?c) VALUES ?v { 1 2 UNDEF } }',
    'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER NOT EXISTS { ?s ?p 3 } }',
    'DESCRIBE <http://example.org/a>',
  ],
  updates: [
    'PREFIX : <http://example.org/> INSERT DATA { :a :p 1 , 2 , "x"@en . GRAPH :g { :b :q :c } }',
    'DELETE { ?s ?p ?o } INSERT { ?s ?p "new" } WHERE { ?s ?p ?o FILTER(isLiteral(?o)) }',
    'CLEAR SILENT GRAPH <http://example.org/g> ; CREATE SILENT GRAPH <http://example.org/h> ; COPY DEFAULT TO <http://example.org/h>',
  ],
};

export function loadCorpus(): { corpus: Corpus; source: string } {
  const root = suitesRoot();
  if (!root) return { corpus: FALLBACK, source: 'built-in seeds (../shared/rdf-tests not found)' };
  const corpus: Corpus = { queries: [], updates: [] };
  for (const file of filesUnder(root)) {
    const list = file.endsWith('.rq') ? corpus.queries : file.endsWith('.ru') ? corpus.updates : undefined;
    if (!list) continue;
    list.push(readFileSync(file, 'utf8'));
  }
  return { corpus, source: `${corpus.queries.length} queries and ${corpus.updates.length} updates from ${root}` };
}

function suitesRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  const root = resolve(dir, '../shared/rdf-tests/sparql11');
  return existsSync(root) ? root : undefined;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}
