/**
 * SERVICE (SPARQL 1.1 Federated Query). Evaluation is synchronous, so remote patterns with a
 * constant endpoint are fetched before evaluation starts; their solutions then join like VALUES.
 * SERVICE SILENT turns a failure into the single empty solution.
 */
import { toAst } from '@traqula/algebra-sparql-1-1';
import { Generator } from '@traqula/generator-sparql-1-1';
import type { Algebra } from '../sparql/parse.js';
import { EvaluationError, TimeoutError } from '../errors.js';
import type { SolutionRow } from '../service/sparql-service.js';
import { parseSparqlResults } from '../formats/results-parser.js';
import type { EngineQueryOptions } from './engine-api.js';
import type { Scope } from './plan/scope.js';
import type { GraphRef } from './operators/graph-ref.js';
import { Values } from './operators/values.js';

const generator = new Generator();

export type ServiceResults = Map<Algebra.Service, { variables: string[]; rows: SolutionRow[] } | Error>;

export async function prefetchServices(root: Algebra.Operation, options: EngineQueryOptions): Promise<ServiceResults> {
  const results: ServiceResults = new Map();
  const services: Algebra.Service[] = [];
  collectServices(root, services);
  await Promise.all(
    services.map(async (service) => {
      if (service.name.termType !== 'NamedNode') {
        results.set(service, new EvaluationError('SERVICE with a variable endpoint is not supported'));
        return;
      }
      try {
        results.set(service, await callService(service.name.value, service.input, options));
      } catch (error) {
        results.set(service, error instanceof Error ? error : new EvaluationError(String(error)));
      }
    }),
  );
  return results;
}

function collectServices(node: unknown, out: Algebra.Service[]): void {
  if (!node || typeof node !== 'object') return;
  if ((node as Algebra.Operation).type === 'service') out.push(node as Algebra.Service);
  const input = (node as { input?: unknown }).input;
  if (Array.isArray(input)) input.forEach((n) => collectServices(n, out));
  else collectServices(input, out);
  const expression = (node as { expression?: unknown }).expression;
  if (expression) collectServices(expression, out);
}

async function callService(endpoint: string, pattern: Algebra.Operation, options: EngineQueryOptions) {
  const query = generator.generate(toAst({ type: 'project', input: pattern, variables: [] } as any) as any);
  const timeoutMs = options.deadline !== undefined ? Math.max(1, options.deadline - Date.now()) : 60_000;
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/sparql-query',
        accept: 'application/sparql-results+json, application/sparql-results+xml;q=0.9',
      },
      body: query,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new TimeoutError(`SERVICE <${endpoint}> did not answer in time`);
    throw new EvaluationError(`SERVICE <${endpoint}> is unreachable: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) throw new EvaluationError(`SERVICE <${endpoint}> answered ${response.status}: ${text.slice(0, 300)}`);
  const parsed = parseSparqlResults(text, response.headers.get('content-type') ?? 'application/sparql-results+json');
  if (parsed.kind !== 'bindings') throw new EvaluationError(`SERVICE <${endpoint}> did not answer with solutions`);
  return { variables: parsed.variables, rows: parsed.rows };
}

export function planService(op: Algebra.Service, scope: Scope, _graph: GraphRef, results: ServiceResults) {
  const result = results.get(op);
  if (!result || result instanceof Error) {
    if (op.silent) return { op: new Values([], [[]]), mentioned: new Set<number>() };
    throw result instanceof EvaluationError || result instanceof TimeoutError ? result : new EvaluationError(result?.message ?? 'SERVICE failed');
  }
  const slots = result.variables.map((v) => scope.slot(v));
  return { op: new Values(slots, result.rows), mentioned: new Set(slots) };
}
