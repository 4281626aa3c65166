/**
 * SERVICE (SPARQL 1.1 Federated Query). Evaluation is synchronous, so remote patterns with a
 * constant endpoint are fetched before evaluation starts; their solutions then join like VALUES.
 * SERVICE SILENT turns a failure into the single empty solution. What is fetched is bounded
 * (net/outbound-http.ts): targets, bytes and time. A variable endpoint is resolved from the pattern
 * that binds it (variable-service.ts).
 */
import { toAst } from '@traqula/algebra-sparql-1-2';
import { Generator } from '@traqula/generator-sparql-1-2';
import type { Algebra } from '../sparql/index.js';
import { EvaluationError, ProtocolError, QuiverError } from '../errors.js';
import type { SolutionRow } from '../rdf/index.js';
import { parseSparqlResults, resultsFormatOf } from '../formats/index.js';
import { FetchBudget, fetchOutbound, type ByteLimit } from '../net/index.js';
import type { EngineQueryOptions } from './engine-api.js';
import { checkLimits, type ExecContext } from './exec-context.js';
import type { Scope } from './plan/scope.js';
import type { GraphRef } from './operators/graph-ref.js';
import { Values } from './operators/inline-data.js';
import { rowBytes } from '../rdf/index.js';
import { fetchVariableServices, variableServices, type EndpointFinder as VariableEndpointFinder } from './variable-service.js';

const generator = new Generator();

/** A SERVICE's solutions and the memory they hold (charged to the query's budget). */
export type ServiceAnswer = { variables: string[]; rows: SolutionRow[]; bytes: number };
export type ServiceResults = Map<Algebra.Service, ServiceAnswer | Error>;

const ACCEPT = 'application/sparql-results+json, application/sparql-results+xml;q=0.9';

/**
 * Reading an answer holds its bytes, the text decoded from them, the parser's objects and the rows
 * at once: about seven times its size at the peak (a 20 MB JSON answer of 200,000 rows needed
 * 99 MiB of heap besides its 40 MB of buffers). So an answer may be an eighth of the budget.
 */
const ANSWER_READING_FACTOR = 8;

/**
 * Fetches the answers of the query's SERVICE patterns, all at once. Their bytes share one budget:
 * the fetch limit, and the query's memory budget, which the answers occupy until the query ends.
 */
export async function prefetchServices(root: Algebra.Operation, options: EngineQueryOptions, findEndpoints?: EndpointFinder): Promise<ServiceResults> {
  const results: ServiceResults = new Map();
  const services: Algebra.Service[] = [];
  collectServices(root, services);
  if (services.length > 0 && options.allowService === false) {
    // Not a failure SILENT may hide: the query asks for what this server does not do.
    throw new ProtocolError('SERVICE is disabled on this server');
  }
  const budget = new FetchBudget(options.fetchSettings, ...answerMemoryLimit(options.memoryBudget));
  await Promise.all(
    services.map(async (service) => {
      if (service.name.termType !== 'NamedNode') return;
      try {
        results.set(service, await callService(service.name.value, service.input, options, budget));
      } catch (error) {
        results.set(service, error instanceof Error ? error : new EvaluationError(String(error)));
      }
    }),
  );
  // Variable endpoints after the constant ones: the patterns that give their endpoints may hold those.
  const variable = variableServices(root);
  if (variable.length > 0) {
    const find: VariableEndpointFinder = findEndpoints
      ? (source, name) => findEndpoints(source, name, results)
      : () => {
          throw new EvaluationError('SERVICE with a variable endpoint is not supported here');
        };
    await fetchVariableServices(variable, results, find, (endpoint, service) => callService(endpoint, service.input, options, budget));
  }
  return results;
}

/** Evaluates an operation alone (with the SERVICE answers fetched so far) and answers the IRIs it binds a variable to. */
export type EndpointFinder = (source: Algebra.Operation, variable: string, services: ServiceResults) => string[];

/** The bytes of answers the query's memory budget can take: an eighth of it (ANSWER_READING_FACTOR). */
function answerMemoryLimit(memoryBudget: number | undefined): ByteLimit[] {
  if (memoryBudget === undefined) return [];
  const name = `the share of the query memory budget (--query-memory) an answer may take, as reading it takes ${ANSWER_READING_FACTOR} times its size`;
  return [{ bytes: Math.floor(memoryBudget / ANSWER_READING_FACTOR), name }];
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

async function callService(endpoint: string, pattern: Algebra.Operation, options: EngineQueryOptions, budget: FetchBudget): Promise<ServiceAnswer> {
  const query = generator.generate(toAst({ type: 'project', input: pattern, variables: [] } as any) as any);
  const purpose = `SERVICE <${endpoint}>`;
  const response = await fetchOutbound({
    url: endpoint,
    purpose,
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: ACCEPT },
    body: query,
    settings: options.fetchSettings,
    budget,
    deadline: options.deadline,
    checkpoint: () => checkLimits(options),
  });
  let text: string;
  try {
    // The body of an error answer is not read: it is the endpoint's, and is never shown.
    if (response.status < 200 || response.status >= 300) throw new EvaluationError(`${purpose} answered ${response.status}`);
    text = await response.text();
  } finally {
    response.close();
  }
  const parsed = await parseAnswer(text, response.contentType || 'application/sparql-results+json', purpose);
  if (parsed.kind !== 'bindings') throw new EvaluationError(`${purpose} did not answer with solutions`);
  return { variables: parsed.variables, rows: parsed.rows, bytes: answerBytes(parsed.rows) };
}

/** The memory the rows of an answer hold for the rest of the evaluation. */
function answerBytes(rows: SolutionRow[]): number {
  let bytes = 8 * rows.length;
  for (const row of rows) bytes += rowBytes(row);
  return bytes;
}

/** The parser's message would quote the answer: only the format is named. */
async function parseAnswer(text: string, contentType: string, purpose: string) {
  try {
    return await parseSparqlResults(text, contentType);
  } catch {
    const format = resultsFormatOf(contentType);
    throw new EvaluationError(`${purpose}: the answer is not ${format ? `valid SPARQL results (${format.toUpperCase()})` : 'in a SPARQL results format'}`);
  }
}

export function planService(op: Algebra.Service, scope: Scope, _graph: GraphRef, results: ServiceResults, ctx: ExecContext) {
  const result = results.get(op);
  if (result !== undefined && !(result instanceof Error)) chargeOnce(result, ctx);
  if (!result || result instanceof Error) {
    if (op.silent) return { op: new Values([], [[]]), mentioned: new Set<number>() };
    throw result instanceof QuiverError ? result : new EvaluationError(result?.message ?? 'SERVICE failed');
  }
  const slots = result.variables.map((v) => scope.slot(v));
  return { op: new Values(slots, result.rows), mentioned: new Set(slots) };
}

const charged = new WeakMap<ServiceAnswer, ExecContext>();

/** The answer's rows stay in memory for the whole evaluation: they count against its budget, once. */
function chargeOnce(answer: ServiceAnswer, ctx: ExecContext): void {
  if (charged.get(answer) === ctx) return;
  charged.set(answer, ctx);
  ctx.reserve(answer.bytes);
}
