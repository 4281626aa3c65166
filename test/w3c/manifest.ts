/**
 * Reads the W3C test manifests (Turtle, with mf:include chains) into plain test descriptions
 * that can cross into a worker thread. Every file reference is kept as a file: URL because the
 * suites resolve their relative IRIs (queries, data, results, graph names) against the location
 * the manifest is read from, and the expected results were written with that in mind.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import N3 from 'n3';
import type * as RDF from '@rdfjs/types';

const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';
const QT = 'http://www.w3.org/2001/sw/DataAccess/tests/test-query#';
const UT = 'http://www.w3.org/2009/sparql/tests/test-update#';
const DAWGT = 'http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#';
const RDFT = 'http://www.w3.org/ns/rdftest#';
const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS_LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';

/**
 * The RDF 1.2 syntax suites: their own manifests, not the suite folders' (those include the RDF
 * 1.1 suites and the semantics tests, which are not syntax).
 */
export const RDF12_SYNTAX_MANIFESTS = [
  'rdf/rdf12/rdf-n-triples/syntax/manifest.ttl',
  'rdf/rdf12/rdf-n-triples/c14n/manifest.ttl',
  'rdf/rdf12/rdf-n-quads/syntax/manifest.ttl',
  'rdf/rdf12/rdf-n-quads/c14n/manifest.ttl',
  'rdf/rdf12/rdf-turtle/syntax/manifest.ttl',
  'rdf/rdf12/rdf-turtle/eval/manifest.ttl',
  'rdf/rdf12/rdf-trig/syntax/manifest.ttl',
  'rdf/rdf12/rdf-trig/eval/manifest.ttl',
  'rdf/rdf12/rdf-xml/eval/manifest.ttl',
];

/** The manifests this runner starts from, relative to the test-suite folder. */
export const TOP_MANIFESTS = [
  'sparql11/manifest-all.ttl',
  'sparql10/manifest-evaluation.ttl',
  'sparql10/manifest-syntax.ttl',
  ...RDF12_SYNTAX_MANIFESTS,
  'sparql12/manifest.ttl',
];

/** A graph to load: a file, and the graph name (undefined for the default graph). */
export interface GraphFile {
  file: string;
  name?: string;
}

/** A remote endpoint of a federation test: the IRI the query names it by, and its dataset. */
export interface ServiceData {
  endpoint: string;
  data: GraphFile[];
}

export interface TestCase {
  /** Short stable identifier: `<suite folder>/<test fragment>`, e.g. `sparql11/add/add01`. */
  id: string;
  iri: string;
  name: string;
  /** Local name of the rdf:type, e.g. `QueryEvaluationTest`. */
  type: string;
  /** Folder of the manifest relative to the suites root, e.g. `sparql11/add`. */
  suite: string;
  /** dawgt:approval local name, or 'none' when the entry has none. */
  approval: string;
  requires: string[];
  /** mf:resultCardinality mf:LaxCardinality: duplicates may differ (REDUCED). */
  laxCardinality: boolean;
  /** The query or update file (syntax tests: the file to parse). */
  queryFile?: string;
  /** Data of the action: default graph files and named graph files. */
  data: GraphFile[];
  /** Federation tests (qt:serviceData): the SERVICE endpoints the query names, each with its data. */
  serviceData?: ServiceData[];
  /** Expected result: a results or RDF file (query tests) or a dataset (update tests). */
  resultFile?: string;
  resultData?: GraphFile[];
  /**
   * RDF syntax suites: the base IRI the document is read with (mf:assumedTestBase plus its file
   * name), which the expected N-Triples were written with.
   */
  baseIri?: string;
}

export interface ManifestSet {
  tests: TestCase[];
  /** Every manifest file read, relative to the suites root. */
  manifests: string[];
}

/** Loads the top manifests and everything they include, each manifest and each test only once. */
export function loadManifests(suitesRoot: string, top: string[] = TOP_MANIFESTS): ManifestSet {
  const seenManifests = new Set<string>();
  const seenTests = new Set<string>();
  const tests: TestCase[] = [];
  const visit = (file: string) => {
    if (seenManifests.has(file)) return;
    seenManifests.add(file);
    for (const test of readManifest(file, suitesRoot, visit)) {
      if (seenTests.has(test.iri)) continue;
      seenTests.add(test.iri);
      tests.push(test);
    }
  };
  for (const manifest of top) visit(path.resolve(suitesRoot, manifest));
  disambiguateIds(tests);
  return { tests, manifests: [...seenManifests].map((f) => path.relative(suitesRoot, f)) };
}

function disambiguateIds(tests: TestCase[]): void {
  const counts = new Map<string, number>();
  for (const t of tests) counts.set(t.id, (counts.get(t.id) ?? 0) + 1);
  for (const t of tests) if ((counts.get(t.id) ?? 0) > 1) t.id = t.iri;
}

class ManifestGraph {
  constructor(private readonly store: N3.Store) {}

  objects(subject: RDF.Term, predicate: string): RDF.Term[] {
    return this.store.getObjects(subject as N3.Quad_Subject, predicate, null);
  }

  object(subject: RDF.Term, predicate: string): RDF.Term | undefined {
    return this.objects(subject, predicate)[0];
  }

  list(head: RDF.Term | undefined): RDF.Term[] {
    const items: RDF.Term[] = [];
    for (let node = head; node && node.value !== `${RDF_NS}nil`; node = this.object(node, `${RDF_NS}rest`)) {
      const first = this.object(node, `${RDF_NS}first`);
      if (first) items.push(first);
    }
    return items;
  }

  manifests(): RDF.Term[] {
    return this.store.getSubjects(`${RDF_NS}type`, `${MF}Manifest`, null);
  }
}

function readManifest(file: string, suitesRoot: string, include: (file: string) => void): TestCase[] {
  const baseIRI = pathToFileURL(file).href;
  const graph = new ManifestGraph(new N3.Store(new N3.Parser({ baseIRI }).parse(readFileSync(file, 'utf8'))));
  const suite = path.relative(suitesRoot, path.dirname(file)).split(path.sep).join('/');
  const tests: TestCase[] = [];
  for (const manifest of graph.manifests()) {
    for (const list of graph.objects(manifest, `${MF}include`)) {
      for (const included of graph.list(list)) include(fileURLToPath(included.value));
    }
    const testBase = graph.object(manifest, `${MF}assumedTestBase`)?.value;
    for (const list of graph.objects(manifest, `${MF}entries`)) {
      for (const entry of graph.list(list)) {
        const test = readEntry(graph, entry, suite);
        if (testBase !== undefined && test.queryFile !== undefined) test.baseIri = testBase + path.basename(fileURLToPath(test.queryFile));
        tests.push(test);
      }
    }
  }
  return tests;
}

function localName(iri: string | undefined): string {
  if (!iri) return 'none';
  return iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);
}

function readEntry(graph: ManifestGraph, entry: RDF.Term, suite: string): TestCase {
  const type = localName(graph.object(entry, `${RDF_NS}type`)?.value);
  const action = graph.object(entry, `${MF}action`);
  const result = graph.object(entry, `${MF}result`);
  const test: TestCase = {
    id: `${suite}/${localName(entry.value)}`,
    iri: entry.value,
    name: graph.object(entry, `${MF}name`)?.value ?? localName(entry.value),
    type,
    suite,
    approval: localName((graph.object(entry, `${DAWGT}approval`) ?? graph.object(entry, `${RDFT}approval`))?.value),
    requires: graph.objects(entry, `${MF}requires`).map((r) => localName(r.value)),
    laxCardinality: graph.object(entry, `${MF}resultCardinality`)?.value === `${MF}LaxCardinality`,
    data: [],
  };
  if (action?.termType === 'NamedNode') {
    test.queryFile = action.value;
  } else if (action) {
    test.queryFile = (graph.object(action, `${QT}query`) ?? graph.object(action, `${UT}request`))?.value;
    test.data = datasetOf(graph, action);
    const services = graph.objects(action, `${QT}serviceData`).flatMap((node) => {
      const endpoint = graph.object(node, `${QT}endpoint`);
      return endpoint ? [{ endpoint: endpoint.value, data: datasetOf(graph, node) }] : [];
    });
    if (services.length > 0) test.serviceData = services;
  }
  if (result?.termType === 'NamedNode') test.resultFile = result.value;
  else if (result) test.resultData = datasetOf(graph, result);
  return test;
}

/** qt:data / qt:graphData (graph named by its file) and ut:data / ut:graphData (named by rdfs:label). */
function datasetOf(graph: ManifestGraph, node: RDF.Term): GraphFile[] {
  const files: GraphFile[] = [];
  for (const data of [...graph.objects(node, `${QT}data`), ...graph.objects(node, `${UT}data`)]) {
    files.push({ file: data.value });
  }
  for (const named of [...graph.objects(node, `${QT}graphData`), ...graph.objects(node, `${UT}graphData`)]) {
    if (named.termType === 'NamedNode') {
      files.push({ file: named.value, name: named.value });
      continue;
    }
    const file = graph.object(named, `${UT}graph`) ?? graph.object(named, `${QT}graph`);
    if (!file) continue;
    const label = graph.object(named, RDFS_LABEL);
    files.push({ file: file.value, name: label?.value ?? file.value });
  }
  return files;
}
