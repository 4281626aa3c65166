/**
 * Runs one W3C test against Quiver: syntax tests through the parser, evaluation tests through the
 * engine over a fresh in-memory store, and turns the outcome into a verdict with a readable
 * account of any failure.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import type { Quad, Term } from '../../src/rdf/terms.js';
import { blankNode, defaultGraph, namedNode, tripleTerm } from '../../src/rdf/terms.js';
import { DEFAULT_GRAPH_ID, type QuadStore } from '../../src/store/quad-store.js';
import type { EngineQueryResult } from '../../src/engine/engine-api.js';
import { csvValueOf } from '../../src/formats/results-parser.js';
import type { GraphFile, TestCase } from './manifest.js';
import { readRdfFile, readText } from './rdf-files.js';
import { readExpectedAnswer, quadRow } from './expected-results.js';
import { alignRows, compareAnswers, mapTerms, type Answer, type ComparisonOptions } from './compare-results.js';
import { datasetOfQuery, orderKeysOf } from './query-shape.js';
import { renderAnswer, renderDifference } from './render.js';
import { loadEngine, loadOpenStore, loadParser } from './system-under-test.js';
import { RDF_TEST_KINDS, runRdfTest } from './rdf-syntax-tests.js';
import type { Row } from './isomorphism.js';
import { ServiceEndpoints } from './service-endpoints.js';

export interface TestOutcome {
  status: 'pass' | 'fail';
  /** One line: why it failed. */
  reason?: string;
  /** The query, expected and actual answers and their difference, for --verbose. */
  details?: string;
}

export interface ExecutionOptions {
  timeoutMs: number;
  /** 'reopen': a new memory store per test; 'clear': one store, emptied between tests. */
  storeMode: 'reopen' | 'clear';
  /** Run queries and updates with the union of all graphs as the default graph (see runner.ts). */
  unionDefaultGraph?: boolean;
}

const SYNTAX_TESTS: Record<string, { update: boolean; positive: boolean }> = {
  PositiveSyntaxTest: { update: false, positive: true },
  NegativeSyntaxTest: { update: false, positive: false },
  PositiveSyntaxTest11: { update: false, positive: true },
  NegativeSyntaxTest11: { update: false, positive: false },
  PositiveUpdateSyntaxTest11: { update: true, positive: true },
  NegativeUpdateSyntaxTest11: { update: true, positive: false },
  // SPARQL 1.2's manifests drop the 11 suffix on update syntax tests.
  PositiveUpdateSyntaxTest: { update: true, positive: true },
  NegativeUpdateSyntaxTest: { update: true, positive: false },
};

/** Test types this runner executes (anything else is skipped with its type named). */
export const RUNNABLE_TYPES = new Set([
  ...Object.keys(SYNTAX_TESTS),
  ...Object.keys(RDF_TEST_KINDS),
  'QueryEvaluationTest',
  'CSVResultFormatTest',
  'UpdateEvaluationTest',
]);

export class TestExecutor {
  private sharedStore: QuadStore | undefined;
  private readonly parsedFiles = new Map<string, Promise<Quad[]>>();

  constructor(private readonly options: ExecutionOptions) {}

  async run(test: TestCase): Promise<TestOutcome> {
    try {
      const syntax = SYNTAX_TESTS[test.type];
      if (syntax) return await this.runSyntaxTest(test, syntax.update, syntax.positive);
      const rdf = RDF_TEST_KINDS[test.type];
      if (rdf) return await this.withStore((store) => runRdfTest(test, rdf, store));
      if (test.type === 'UpdateEvaluationTest') return await this.withStore((store) => this.runUpdateTest(test, store));
      return await this.withStore((store) => this.runQueryTest(test, store));
    } catch (error) {
      return { status: 'fail', reason: `runner error: ${describeError(error)}`, details: stackOf(error) };
    }
  }

  async close(): Promise<void> {
    await this.sharedStore?.close();
    this.sharedStore = undefined;
  }

  private async runSyntaxTest(test: TestCase, update: boolean, positive: boolean): Promise<TestOutcome> {
    const parser = await loadParser();
    const file = test.queryFile!;
    const text = readText(file);
    let failure: unknown;
    try {
      if (update) parser.parseUpdate(text, file);
      else parser.parseQuery(text, file);
    } catch (error) {
      failure = error;
    }
    const details = `${update ? 'update' : 'query'} ${relativeName(file)}:\n${indentText(text)}`;
    if (positive) {
      return failure === undefined
        ? { status: 'pass' }
        : { status: 'fail', reason: `rejected a valid ${update ? 'update' : 'query'}: ${describeError(failure)}`, details };
    }
    if (failure === undefined) return { status: 'fail', reason: 'accepted an invalid request', details };
    if ((failure as Error).name !== 'SyntaxError') {
      return { status: 'fail', reason: `rejected, but with ${describeError(failure)} instead of a SyntaxError`, details };
    }
    return { status: 'pass' };
  }

  private async runQueryTest(test: TestCase, store: QuadStore): Promise<TestOutcome> {
    const engine = await loadEngine();
    const queryFile = test.queryFile!;
    const query = readText(queryFile);
    await this.loadDataset(store, [...test.data, ...(await this.queryDatasetFiles(test, query))]);
    const expected = await readExpectedAnswer(test.resultFile!);
    const details = (actual?: Answer, error?: unknown) => queryDetails(test, query, expected.answer, actual, error);
    let actual: Answer;
    // The time limit is the query's: starting the endpoints is not counted.
    const endpoints = test.serviceData && (await ServiceEndpoints.start(test.serviceData));
    const deadline = Date.now() + this.options.timeoutMs;
    try {
      const result = await engine.runQuery(store, query, {
        baseIri: queryFile,
        deadline,
        unionDefaultGraph: this.options.unionDefaultGraph,
        fetchSettings: endpoints?.fetchSettings,
      });
      actual = collectAnswer(result, deadline);
    } catch (error) {
      return { status: 'fail', reason: `query failed: ${describeError(error)}`, details: details(undefined, error) };
    } finally {
      await endpoints?.close();
    }
    const expectedAnswer = expected.answer;
    // CSV keeps no term types: compare what our terms would become in CSV with the file's values.
    if (test.type === 'CSVResultFormatTest' && actual.kind === 'bindings') actual = mapTerms(actual, csvValueOf);
    const options: ComparisonOptions = { laxCardinality: test.laxCardinality };
    if (expectedAnswer.kind === 'bindings') options.orderKeys = orderKeysOf(query, expectedAnswer.variables);
    const verdict = compareAnswers(expectedAnswer, actual, options);
    if (verdict.ok) return { status: 'pass' };
    return { status: 'fail', reason: verdict.reason, details: details(actual) };
  }

  private async runUpdateTest(test: TestCase, store: QuadStore): Promise<TestOutcome> {
    const engine = await loadEngine();
    const requestFile = test.queryFile!;
    const request = readText(requestFile);
    await this.loadDataset(store, test.data);
    const expected: Answer = { kind: 'quads', quads: await this.datasetRows(test.resultData ?? []) };
    const deadline = Date.now() + this.options.timeoutMs;
    try {
      await engine.runUpdate(store, request, { baseIri: requestFile, deadline, allowLoad: false, unionDefaultGraph: this.options.unionDefaultGraph });
    } catch (error) {
      return {
        status: 'fail',
        reason: `update failed: ${describeError(error)}`,
        details: updateDetails(test, request, expected, undefined, error),
      };
    }
    const actual: Answer = { kind: 'quads', quads: readWholeStore(store) };
    const verdict = compareAnswers(expected, actual);
    if (verdict.ok) return { status: 'pass' };
    return {
      status: 'fail',
      reason: verdict.reason.replace('triples', 'quads'),
      details: updateDetails(test, request, expected, actual),
    };
  }

  /**
   * Files named by FROM / FROM NAMED that exist in the suite: the engine fetches nothing, so the
   * runner puts them in the store as named graphs under the IRIs the query uses.
   */
  private async queryDatasetFiles(test: TestCase, query: string): Promise<GraphFile[]> {
    const { from, fromNamed } = datasetOfQuery(query, test.queryFile!);
    const alreadyNamed = new Set(test.data.map((g) => g.name));
    return [...new Set([...from, ...fromNamed])]
      .filter((iri) => iri.startsWith('file:') && !alreadyNamed.has(iri) && existsSync(fileURLToPath(iri)))
      .map((iri) => ({ file: iri, name: iri }));
  }

  private parse(file: string): Promise<Quad[]> {
    let parsed = this.parsedFiles.get(file);
    if (!parsed) {
      parsed = readRdfFile(file);
      this.parsedFiles.set(file, parsed);
    }
    return parsed;
  }

  /** Quads of the graph files, each load with blank nodes of its own (as separate loads have). */
  private async datasetQuads(files: GraphFile[]): Promise<{ quads: Quad[]; name?: string }[]> {
    return Promise.all(
      files.map(async ({ file, name }, load) => ({
        quads: (await this.parse(file)).map((q) => withFreshBlankNodes(q, load)),
        name,
      })),
    );
  }

  private async datasetRows(files: GraphFile[]): Promise<Row[]> {
    const rows: Row[] = [];
    for (const { quads, name } of await this.datasetQuads(files)) {
      for (const q of quads) rows.push([q.subject, q.predicate, q.object, graphOf(q, name)] as Term[]);
    }
    return rows;
  }

  private async loadDataset(store: QuadStore, files: GraphFile[]): Promise<void> {
    const graphs = await this.datasetQuads(files);
    store.write((w) => {
      for (const { quads, name } of graphs) {
        if (name !== undefined) w.createGraph(w.intern(namedNode(name)));
        for (const q of quads) {
          const graph = graphOf(q, name);
          const graphId = graph.termType === 'DefaultGraph' ? DEFAULT_GRAPH_ID : w.intern(graph);
          w.add(w.intern(q.subject), w.intern(q.predicate), w.intern(q.object), graphId);
        }
      }
    });
  }

  private async withStore(fn: (store: QuadStore) => Promise<TestOutcome>): Promise<TestOutcome> {
    const openStore = await loadOpenStore();
    if (this.options.storeMode === 'reopen') {
      const store = await openStore({ memory: true });
      try {
        return await fn(store);
      } finally {
        await store.close();
      }
    }
    this.sharedStore ??= await openStore({ memory: true });
    emptyStore(this.sharedStore);
    return fn(this.sharedStore);
  }
}

function emptyStore(store: QuadStore): void {
  store.write((w) => {
    for (const g of w.namedGraphs()) w.dropGraph(g);
    w.clearGraph(DEFAULT_GRAPH_ID);
  });
}

/**
 * The graph a file's quad goes into: a TriG file's named graphs stay themselves (SPARQL 1.2's
 * suites give datasets as TriG); the rest of a file is the graph the manifest names, if any.
 */
function graphOf(quad: Quad, name: string | undefined): Term {
  if (quad.graph.termType !== 'DefaultGraph') return quad.graph;
  return name === undefined ? defaultGraph() : namedNode(name);
}

function withFreshBlankNodes(quad: Quad, load: number): Quad {
  const fresh = (t: Term): Term => {
    if (t.termType === 'BlankNode') return blankNode(`${t.value}_l${load}`);
    // An RDF 1.2 triple term's blank nodes are the document's too.
    if (t.termType === 'Quad') return tripleTerm(fresh(t.subject) as Quad['subject'], t.predicate as Quad['predicate'], fresh(t.object) as Quad['object']);
    return t;
  };
  const nested = (t: Term): boolean => t.termType === 'BlankNode' || t.termType === 'Quad';
  if (!nested(quad.subject) && !nested(quad.object)) return quad;
  return { ...quad, subject: fresh(quad.subject), object: fresh(quad.object) } as Quad;
}

/** Every quad of the store, default graph included, as rows of terms. */
function readWholeStore(store: QuadStore): Row[] {
  const reader = store.reader();
  try {
    const rows: Row[] = [];
    for (const graphId of [DEFAULT_GRAPH_ID, ...reader.namedGraphs()]) {
      const graph = graphId === DEFAULT_GRAPH_ID ? defaultGraph() : reader.termOf(graphId);
      for (const [s, p, o] of reader.scan(0, 0, 0, graphId)) {
        rows.push([reader.termOf(s), reader.termOf(p), reader.termOf(o), graph] as Term[]);
      }
    }
    return rows;
  } finally {
    reader.release();
  }
}

/** Pulls the whole answer, checking the deadline between batches. */
function collectAnswer(result: EngineQueryResult, deadline: number): Answer {
  const overdue = () => {
    if (Date.now() > deadline) throw new Error('time limit reached while reading the results');
  };
  switch (result.kind) {
    case 'boolean':
      return result;
    case 'bindings': {
      const rows: Row[] = [];
      for (const batch of result.rows) {
        for (const row of batch) rows.push([...row]);
        overdue();
      }
      return { kind: 'bindings', variables: result.variables, rows };
    }
    case 'quads': {
      const quads: Row[] = [];
      for (const batch of result.quads) {
        for (const q of batch) quads.push(quadRow(q));
        overdue();
      }
      return { kind: 'quads', quads };
    }
  }
}

function queryDetails(test: TestCase, query: string, expected: Answer, actual?: Answer, error?: unknown): string {
  const parts = [
    `query ${relativeName(test.queryFile!)}:`,
    indentText(query),
    `data: ${test.data.map((g) => relativeName(g.file) + (g.name ? ` (graph <${relativeName(g.name)}>)` : '')).join(', ') || '(none)'}`,
    `expected ${relativeName(test.resultFile!)}:`,
    renderAnswer(expected),
  ];
  if (actual) {
    parts.push(
      'actual:',
      renderAnswer(inExpectedColumnOrder(actual, expected)),
      'difference (- expected only, + actual only):',
      renderDifference(expected, actual),
    );
  }
  if (error) parts.push('error:', indentText(stackOf(error)));
  return parts.join('\n');
}

/** The actual solutions with the expected columns first, so the two tables line up. */
function inExpectedColumnOrder(actual: Answer, expected: Answer): Answer {
  if (actual.kind !== 'bindings' || expected.kind !== 'bindings') return actual;
  const variables = [...expected.variables.filter((v) => actual.variables.includes(v)), ...actual.variables.filter((v) => !expected.variables.includes(v))];
  return { kind: 'bindings', variables, rows: alignRows(actual, variables) };
}

function updateDetails(test: TestCase, request: string, expected: Answer, actual?: Answer, error?: unknown): string {
  const parts = [
    `update ${relativeName(test.queryFile!)}:`,
    indentText(request),
    `data before: ${test.data.map((g) => relativeName(g.file) + (g.name ? ` (graph <${g.name}>)` : '')).join(', ') || '(empty store)'}`,
    'expected dataset:',
    renderAnswer(expected),
  ];
  if (actual) parts.push('actual dataset:', renderAnswer(actual), 'difference (- expected only, + actual only):', renderDifference(expected, actual));
  if (error) parts.push('error:', indentText(stackOf(error)));
  return parts.join('\n');
}

/** The suite-relative name of a file: URL, for messages. */
function relativeName(fileUrl: string): string {
  const at = fileUrl.indexOf('/rdf-tests/');
  return at >= 0 ? fileUrl.slice(at + '/rdf-tests/'.length) : fileUrl;
}

function indentText(text: string, indent = '    '): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const shown = lines.slice(0, 60);
  if (lines.length > 60) shown.push(`… ${lines.length - 60} more lines`);
  return shown.map((l) => indent + l).join('\n');
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0].slice(0, 300)}`;
  return String(error);
}

function stackOf(error: unknown): string {
  if (error instanceof Error) return (error.stack ?? error.message).split('\n').slice(0, 12).join('\n');
  return String(error);
}
