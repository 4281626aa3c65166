/**
 * The W3C SPARQL conformance run: reads the manifests, decides per test whether it belongs here,
 * and runs the rest in worker threads, each test under a time limit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadManifests, type TestCase } from './manifest.js';
import { RUNNABLE_TYPES, type ExecutionOptions } from './execute.js';
import type { FromWorker, ToWorker } from './test-worker.js';
import { datasetOfQuery } from './query-shape.js';

export interface RunnerOptions {
  /** Folder holding sparql10/, sparql11/ and sparql12/; default: ../shared/rdf-tests from the repo root. */
  suitesRoot?: string;
  /** Only tests whose id, IRI or name contains this text. */
  filter?: string;
  /** Per-test time limit; default 10 s. */
  timeoutMs?: number;
  /** Worker threads; default: one per core, at most 4. */
  jobs?: number;
  /** Also run tests that are not dawgt:Approved (skipped by default). */
  includeUnapproved?: boolean;
  storeMode?: ExecutionOptions['storeMode'];
  /**
   * Evaluate with the union of all graphs as the default graph (quiver serve --union-default-graph),
   * running only the evaluation tests whose answer the union cannot change (see unionSkipReason).
   */
  unionDefaultGraph?: boolean;
  /** Called as each test finishes (skipped tests included), for progress output. */
  onResult?: (result: TestResult) => void;
}

export interface TestResult {
  test: TestCase;
  status: 'pass' | 'fail' | 'skip';
  reason?: string;
  details?: string;
  ms?: number;
}

export interface SuiteRun {
  results: TestResult[];
  manifests: string[];
  elapsedMs: number;
}

/** The repository root: the nearest folder above this file that holds package.json. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root (no package.json above the runner)');
    dir = parent;
  }
  return dir;
}

export function defaultSuitesRoot(): string {
  return path.resolve(repoRoot(), '../shared/rdf-tests');
}

const ELSEWHERE: [RegExp, string][] = [
  [/^sparql11\/entailment(\/|$)/, 'entailment regimes: out of scope for Quiver'],
  [/^sparql11\/protocol(\/|$)/, 'SPARQL protocol: covered by the HTTP protocol runner'],
  [/^sparql11\/(graph-store-protocol|http-rdf-update)(\/|$)/, 'graph store protocol: covered by the HTTP protocol runner'],
  [/^sparql11\/service-description(\/|$)/, 'service description: covered by the HTTP protocol runner'],
];

/** Why a test is not run here, or undefined when it is. */
export function skipReason(test: TestCase, includeUnapproved = false): string | undefined {
  for (const [folder, reason] of ELSEWHERE) if (folder.test(test.suite)) return reason;
  if (!RUNNABLE_TYPES.has(test.type)) return `test type ${test.type} is not run by this runner`;
  if (!includeUnapproved && !counts(test)) return `not approved (${test.approval})`;
  return undefined;
}

/**
 * Why a test does not apply with a union default graph: syntax tests do not depend on it; an
 * evaluation test with named graphs in its data gets another answer when its request reads the
 * default graph, unless the query names its dataset itself (FROM, FROM NAMED). Where the data has
 * no named graph, the union is the default graph, and the answer must be the same.
 */
export function unionSkipReason(test: TestCase): string | undefined {
  if (!test.type.endsWith('EvaluationTest') && test.type !== 'CSVResultFormatTest') return 'union default graph: not an evaluation test';
  // Named graphs come from qt:graphData, or from inside a TriG or N-Quads file.
  const hasNamedGraphs = test.data.some((file) => file.name !== undefined || /\.(trig|nq)$/i.test(file.file));
  if (!hasNamedGraphs) return undefined;
  if (test.type !== 'UpdateEvaluationTest' && test.queryFile) {
    const { from, fromNamed } = datasetOfQuery(readFileSync(new URL(test.queryFile), 'utf8'), test.queryFile);
    if (from.length > 0 || fromNamed.length > 0) return undefined;
  }
  return 'union default graph: the data has named graphs, so the union changes the answer';
}

/**
 * What the conformance bar counts: every approved test, every SPARQL 1.0 evaluation test that was
 * not withdrawn (the community added several after the DAWG approved the suite), and every RDF 1.2
 * syntax test.
 */
function counts(test: TestCase): boolean {
  if (test.approval === 'Approved') return true;
  // The RDF 1.2 suites are a Candidate Recommendation's: their tests are Proposed or unclassified,
  // and the bar counts every one of them.
  if (test.suite.startsWith('rdf/rdf12/')) return true;
  // SPARQL 1.2 is a Candidate Recommendation: its tests are all still "Proposed", and they are the bar.
  if (test.suite.startsWith('sparql12/')) return !['Withdrawn', 'Rejected'].includes(test.approval);
  const sparql10 = test.suite.startsWith('sparql10/');
  return sparql10 && test.type.endsWith('QueryEvaluationTest') && !['Withdrawn', 'Rejected', 'NotClassified'].includes(test.approval);
}

function matchesFilter(test: TestCase, filter: string | undefined): boolean {
  if (!filter) return true;
  return test.id.includes(filter) || test.iri.includes(filter) || test.name.includes(filter);
}

export async function runW3cSuites(options: RunnerOptions = {}): Promise<SuiteRun> {
  const started = performance.now();
  const suitesRoot = options.suitesRoot ?? defaultSuitesRoot();
  const { tests, manifests } = loadManifests(suitesRoot);
  const selected = tests.filter((t) => matchesFilter(t, options.filter));
  const results = new Map<string, TestResult>();
  const toRun: TestCase[] = [];
  for (const test of selected) {
    const reason = skipReason(test, options.includeUnapproved) ?? (options.unionDefaultGraph ? unionSkipReason(test) : undefined);
    if (reason) {
      const result: TestResult = { test, status: 'skip', reason };
      results.set(test.id, result);
      options.onResult?.(result);
    } else {
      toRun.push(test);
    }
  }
  const execution: ExecutionOptions = {
    timeoutMs: options.timeoutMs ?? 10_000,
    storeMode: options.storeMode ?? 'clear',
    unionDefaultGraph: options.unionDefaultGraph,
  };
  const jobs = Math.max(1, Math.min(options.jobs ?? Math.min(4, availableParallelism()), toRun.length));
  const queue = [...toRun];
  await Promise.all(
    Array.from({ length: jobs }, () =>
      runLane(queue, execution, (result) => {
        results.set(result.test.id, result);
        options.onResult?.(result);
      }),
    ),
  );
  return {
    results: selected.map((t) => results.get(t.id)!),
    manifests,
    elapsedMs: performance.now() - started,
  };
}

/** Time a federation test may take to start each of its endpoints (a store and its worker threads), besides its own limit. */
const ENDPOINT_START_MS = 15_000;

/** One worker's share of the queue; a worker that hangs or dies is replaced. */
async function runLane(queue: TestCase[], execution: ExecutionOptions, report: (r: TestResult) => void): Promise<void> {
  let worker: TestWorker | undefined;
  try {
    for (let test = queue.shift(); test; test = queue.shift()) {
      worker ??= await TestWorker.start(execution);
      const result = await worker.run(test, execution.timeoutMs + 5_000 + (test.serviceData ? ENDPOINT_START_MS * test.serviceData.length : 0));
      if (!worker.alive) worker = undefined;
      report(result);
    }
  } finally {
    await worker?.stop();
  }
}

class TestWorker {
  alive = true;
  private current: { test: TestCase; resolve: (r: TestResult) => void; timer: NodeJS.Timeout } | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromWorker) => {
      if (message.type !== 'done' || !this.current) return;
      const { test, resolve, timer } = this.current;
      clearTimeout(timer);
      this.current = undefined;
      resolve({ test, status: message.status, reason: message.reason, details: message.details, ms: message.ms });
    });
    const died = (why: string) => {
      this.alive = false;
      if (!this.current) return;
      const { test, resolve, timer } = this.current;
      clearTimeout(timer);
      this.current = undefined;
      resolve({ test, status: 'fail', reason: why });
    };
    worker.on('error', (error: Error) => died(`the test worker crashed: ${error.message}`));
    worker.on('exit', (code) => died(`the test worker exited (code ${code})`));
  }

  static start(execution: ExecutionOptions): Promise<TestWorker> {
    const worker = new Worker(new URL('./test-worker.js', import.meta.url), { workerData: execution });
    return new Promise((resolve, reject) => {
      const onReady = (message: FromWorker) => {
        if (message.type !== 'ready') return;
        worker.off('message', onReady);
        worker.off('error', reject);
        resolve(new TestWorker(worker));
      };
      worker.on('message', onReady);
      worker.once('error', reject);
    });
  }

  run(test: TestCase, hardLimitMs: number): Promise<TestResult> {
    const started = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.current = undefined;
        this.alive = false;
        void this.worker.terminate();
        resolve({ test, status: 'fail', reason: `timed out: no answer after ${hardLimitMs / 1000} s`, ms: performance.now() - started });
      }, hardLimitMs);
      this.current = { test, resolve, timer };
      this.worker.postMessage({ type: 'run', test } satisfies ToWorker);
    });
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    this.alive = false;
    this.worker.postMessage({ type: 'stop' } satisfies ToWorker);
    const timer = setTimeout(() => void this.worker.terminate(), 2_000);
    await new Promise((resolve) => this.worker.once('exit', resolve));
    clearTimeout(timer);
  }
}
