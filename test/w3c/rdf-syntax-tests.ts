/**
 * The W3C RDF syntax suites (RDF 1.2: N-Triples, N-Quads, Turtle, TriG, RDF/XML) run against
 * Quiver's own reading and writing: documents go through `parseRdf` (src/formats/rdf-parser.ts),
 * evaluation tests through an in-memory store and back out, and canonical N-Triples / N-Quads
 * tests through the N-Triples serializer.
 *
 *   positive syntax: the document parses;  negative syntax: parsing fails with an RdfSyntaxError;
 *   eval: the document, stored and read back, is isomorphic to the expected N-Triples / N-Quads;
 *   C14N: the document, stored and written as N-Triples / N-Quads, is the expected text.
 */
import { parseRdf, RdfSyntaxError } from '../../src/formats/rdf-parser.js';
import { createQuadsSerializer } from '../../src/formats/serializers.js';
import type { RdfFormat } from '../../src/formats/serializer.js';
import { defaultGraph, factory, termToString, type Quad, type Term } from '../../src/rdf/terms.js';
import { DEFAULT_GRAPH_ID, type QuadStore } from '../../src/store/quad-store.js';
import { matchRows, rowsMissingFrom, type Row } from './isomorphism.js';
import type { TestCase } from './manifest.js';
import { readText } from './rdf-files.js';

type SyntaxFormat = 'ntriples' | 'nquads' | 'turtle' | 'trig' | 'rdfxml';

interface RdfTestKind {
  format: SyntaxFormat;
  check: 'positive' | 'negative' | 'eval' | 'c14n';
}

/** rdft: test types, by local name. */
export const RDF_TEST_KINDS: Record<string, RdfTestKind> = {
  TestNTriplesPositiveSyntax: { format: 'ntriples', check: 'positive' },
  TestNTriplesNegativeSyntax: { format: 'ntriples', check: 'negative' },
  TestNTriplesPositiveC14N: { format: 'ntriples', check: 'c14n' },
  TestNQuadsPositiveSyntax: { format: 'nquads', check: 'positive' },
  TestNQuadsNegativeSyntax: { format: 'nquads', check: 'negative' },
  TestNQuadsPositiveC14N: { format: 'nquads', check: 'c14n' },
  TestTurtlePositiveSyntax: { format: 'turtle', check: 'positive' },
  TestTurtleNegativeSyntax: { format: 'turtle', check: 'negative' },
  TestTurtleEval: { format: 'turtle', check: 'eval' },
  TestTurtleNegativeEval: { format: 'turtle', check: 'negative' },
  TestTrigPositiveSyntax: { format: 'trig', check: 'positive' },
  TestTrigNegativeSyntax: { format: 'trig', check: 'negative' },
  TestTrigEval: { format: 'trig', check: 'eval' },
  TestTrigNegativeEval: { format: 'trig', check: 'negative' },
  TestXMLEval: { format: 'rdfxml', check: 'eval' },
  TestXMLNegativeSyntax: { format: 'rdfxml', check: 'negative' },
};

export interface RdfTestOutcome {
  status: 'pass' | 'fail';
  reason?: string;
  details?: string;
}

export async function runRdfTest(test: TestCase, kind: RdfTestKind, store: QuadStore): Promise<RdfTestOutcome> {
  const file = test.queryFile!;
  const text = readText(file);
  const details = `${kind.format} document ${file.slice(file.indexOf('/rdf12/') + 1)}:\n${text}`;
  let quads: Quad[];
  try {
    quads = await readAll(text, kind.format, test.baseIri ?? file);
  } catch (error) {
    if (kind.check === 'negative' && error instanceof RdfSyntaxError) return { status: 'pass' };
    return { status: 'fail', reason: `rejected: ${(error as Error).message.split('\n')[0]}`, details };
  }
  if (kind.check === 'negative') return { status: 'fail', reason: 'accepted an invalid document', details };
  if (kind.check === 'positive') return { status: 'pass' };
  const stored = storeAndReadBack(store, quads);
  if (kind.check === 'c14n') {
    const expected = readText(test.resultFile!);
    const actual = serialize(stored, kind.format === 'nquads' ? 'nquads' : 'ntriples');
    if (sameLines(canonicalLabels(expected), canonicalLabels(actual))) return { status: 'pass' };
    return { status: 'fail', reason: 'not the canonical text', details: `${details}\nexpected:\n${expected}\nactual:\n${actual}` };
  }
  const resultFile = test.resultFile!;
  const expected = await readAll(readText(resultFile), resultFile.endsWith('.nq') ? 'nquads' : 'ntriples', resultFile);
  const expectedRows = expected.map(quadRow);
  const actualRows = stored.map(quadRow);
  if (matchRows(expectedRows, actualRows) !== undefined) return { status: 'pass' };
  const missing = rowsMissingFrom(expectedRows, actualRows).map(show);
  const extra = rowsMissingFrom(actualRows, expectedRows).map(show);
  return {
    status: 'fail',
    reason: `${expectedRows.length} quads expected, ${actualRows.length} read back, not isomorphic`,
    details: `${details}\n- expected only:\n${missing.join('\n')}\n+ actual only:\n${extra.join('\n')}`,
  };
}

async function readAll(text: string, format: SyntaxFormat, baseIri: string): Promise<Quad[]> {
  const quads: Quad[] = [];
  for await (const batch of parseRdf(text, format, { baseIri })) quads.push(...batch);
  return quads;
}

/** Writes the quads into the (empty) store and reads every quad back, as a load then a dump would. */
function storeAndReadBack(store: QuadStore, quads: Quad[]): Quad[] {
  store.write((w) => {
    for (const q of quads) {
      const g = q.graph.termType === 'DefaultGraph' ? DEFAULT_GRAPH_ID : w.intern(q.graph);
      w.add(w.intern(q.subject), w.intern(q.predicate), w.intern(q.object), g);
    }
  });
  const reader = store.reader();
  try {
    const out: Quad[] = [];
    for (const graphId of [DEFAULT_GRAPH_ID, ...reader.namedGraphs()]) {
      const graph = graphId === DEFAULT_GRAPH_ID ? defaultGraph() : reader.termOf(graphId);
      for (const [s, p, o] of reader.scan(0, 0, 0, graphId)) {
        out.push(
          factory.quad(reader.termOf(s) as Quad['subject'], reader.termOf(p) as Quad['predicate'], reader.termOf(o) as Quad['object'], graph as Quad['graph']),
        );
      }
    }
    return out;
  } finally {
    reader.release();
  }
}

function serialize(quads: Quad[], format: RdfFormat): string {
  let text = '';
  const serializer = createQuadsSerializer(format, { write: (chunk: string) => void (text += chunk) } as never);
  serializer.begin({});
  serializer.quads(quads);
  serializer.end();
  return text;
}

/**
 * Blank node labels renamed in order of first appearance: the store keeps the parser's labels (which
 * N3.js makes unique per document), and canonical N-Triples fixes the form, not the labels.
 */
function canonicalLabels(text: string): string {
  const names = new Map<string, string>();
  return text.replace(/_:([A-Za-z0-9_.-]*[A-Za-z0-9_-])/g, (_, label: string) => {
    let name = names.get(label);
    if (name === undefined) names.set(label, (name = `b${names.size}`));
    return '_:' + name;
  });
}

function sameLines(a: string, b: string): boolean {
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .sort()
      .join('\n');
  return lines(a) === lines(b);
}

function quadRow(q: Quad): Row {
  return [q.subject, q.predicate, q.object, q.graph] as Term[];
}

function show(row: Row): string {
  return '    ' + row.map((t) => (t === undefined || t.termType === 'DefaultGraph' ? '' : termToString(t))).join(' ');
}
