/**
 * A SparqlService whose behaviour is chosen by a keyword in the request text, for the cases a real
 * engine cannot be made to produce on demand: a failure after the first rows, an overloaded queue,
 * a timeout, a query that runs until its client goes away. It records every request it receives.
 */
import { EvaluationError, OverloadedError, ProtocolError, SparqlSyntaxError, TimeoutError } from '../../src/errors.js';
import { factory, literal, namedNode } from '../../src/rdf/terms.js';
import type {
  CancelSignal,
  QueryRequest,
  QueryResult,
  ServiceDescriptionData,
  SolutionRow,
  SparqlService,
  UpdateRequest,
} from '../../src/service/sparql-service.js';

export class ScriptedService implements SparqlService {
  readonly queries: QueryRequest[] = [];
  readonly updates: UpdateRequest[] = [];
  /** Resolves when a SLOW query sees its signal abort. */
  aborted: Promise<void>;
  private markAborted!: () => void;

  constructor() {
    this.aborted = new Promise((resolve) => (this.markAborted = resolve));
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    this.queries.push(request);
    const text = request.query;
    if (text.includes('FAIL-SYNTAX')) throw new SparqlSyntaxError("unexpected token 'FAIL'", 2, 7);
    if (text.includes('OVERLOADED')) throw new OverloadedError('the query queue is full', 7);
    if (text.includes('TIMEOUT')) throw new TimeoutError();
    if (text.includes('FAIL-EARLY')) return { kind: 'bindings', variables: ['x'], rows: failingRows(0) };
    if (text.includes('FAIL-LATE')) return { kind: 'bindings', variables: ['x'], rows: failingRows(2) };
    if (text.includes('SLOW')) return { kind: 'bindings', variables: ['x'], rows: this.endlessRows(request.signal) };
    if (/^\s*ASK/i.test(text)) return { kind: 'boolean', value: true };
    if (/^\s*(CONSTRUCT|DESCRIBE)/i.test(text)) {
      return { kind: 'quads', prefixes: { ex: 'http://example.org/' }, quads: batches([[exampleQuad()]]) };
    }
    return {
      kind: 'bindings',
      variables: ['s', 'label'],
      rows: batches([[[namedNode('http://example.org/a'), literal('<b>A & "a"</b>')]], [[namedNode('http://example.org/b'), undefined]]]),
    };
  }

  async update(request: UpdateRequest): Promise<undefined> {
    this.updates.push(request);
    const text = request.update;
    if (text.includes('FAIL-SYNTAX')) throw new SparqlSyntaxError("unexpected token 'FAIL'", 1, 1);
    if (text.includes('FAIL-EVAL')) throw new EvaluationError('CREATE GRAPH: the graph <http://example.org/g> already exists');
    if (text.includes('USING') && request.usingGraphUris) {
      throw new ProtocolError('using-graph-uri cannot be combined with USING or WITH in the request');
    }
  }

  async describe(): Promise<ServiceDescriptionData> {
    return { defaultGraphTriples: 3, namedGraphs: [{ name: 'http://example.org/g', triples: 2 }] };
  }

  async close(): Promise<void> {}

  private async *endlessRows(signal: CancelSignal | undefined): AsyncGenerator<SolutionRow[]> {
    try {
      for (let i = 0; ; i++) {
        if (signal?.aborted) {
          this.markAborted();
          return;
        }
        yield [[literal(String(i))]];
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      if (signal?.aborted) this.markAborted();
    }
  }
}

function exampleQuad() {
  return factory.quad(namedNode('http://example.org/s'), namedNode('http://example.org/p'), literal('o'));
}

async function* batches<T>(list: T[][]): AsyncGenerator<T[]> {
  for (const batch of list) yield batch;
}

async function* failingRows(goodBatches: number): AsyncGenerator<SolutionRow[]> {
  for (let i = 0; i < goodBatches; i++) {
    yield [[literal(`row ${i}`)]];
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new EvaluationError('division by zero in a late row');
}
