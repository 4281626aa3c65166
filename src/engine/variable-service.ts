/**
 * SERVICE with a variable endpoint (`SERVICE ?service { … }`). The Federated Query spec defines it
 * over every IRI the variable could name; what can reach the result are only the IRIs the pattern
 * it joins with binds the variable to (a sibling in a join, the left side of an OPTIONAL). Those
 * are found first by evaluating that sibling alone (locally, with its constant SERVICE answers
 * already fetched), then each endpoint is asked, and the SERVICE stands for the union of the
 * answers, each row with the variable bound to the endpoint that gave it. A SILENT SERVICE whose
 * endpoint fails gives that endpoint's single empty solution, as a constant one does.
 */
import type * as RDF from '@rdfjs/types';
import type { Algebra } from '../sparql/index.js';
import { EvaluationError } from '../errors.js';
import type { SolutionRow, Term } from '../rdf/index.js';
import { namedNode } from '../rdf/index.js';
import type { ServiceAnswer, ServiceResults } from './service-call.js';

/** A SERVICE with a variable endpoint and the pattern that binds the variable. */
export interface VariableService {
  service: Algebra.Service;
  variable: string;
  /** The sibling whose solutions give the endpoints; undefined when no pattern around binds it. */
  source?: Algebra.Operation;
}

/** Evaluates an operation alone and answers the distinct IRIs it binds a variable to. */
export type EndpointFinder = (source: Algebra.Operation, variable: string) => string[];
/** Asks one endpoint for the solutions of a SERVICE's pattern. */
export type EndpointCall = (endpoint: string, service: Algebra.Service) => Promise<ServiceAnswer>;

/** The SERVICEs of the algebra whose endpoint is a variable, each with the sibling that binds it. */
export function variableServices(root: Algebra.Operation): VariableService[] {
  const found: VariableService[] = [];
  const walk = (node: unknown, ancestors: unknown[]) => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, ancestors);
      return;
    }
    if (node === null || typeof node !== 'object' || (node as { termType?: unknown }).termType !== undefined) return;
    const op = node as Algebra.Operation;
    if (op.type === 'service' && (op as Algebra.Service).name.termType === 'Variable') {
      const service = op as Algebra.Service;
      found.push({ service, variable: service.name.value, source: sourceOf(service.name.value, [...ancestors, node]) });
    }
    for (const key of ['input', 'expression', 'args'] as const) {
      const child = (op as unknown as Record<string, unknown>)[key];
      if (child !== undefined) walk(child, [...ancestors, node]);
    }
  };
  walk(root, []);
  return found;
}

/**
 * The nearest sibling on the way up that binds the variable: another operand of a join, or the
 * left side of an OPTIONAL the SERVICE is inside. A sub-SELECT, a group, MINUS's right side or an
 * expression is a boundary: the variable outside is another one, or does not flow in.
 */
function sourceOf(variable: string, path: unknown[]): Algebra.Operation | undefined {
  for (let i = path.length - 2; i >= 0; i--) {
    const parent = path[i] as Algebra.Operation;
    const child = path[i + 1];
    const inputs = (parent as { input?: unknown }).input;
    if (parent.type === 'join' && Array.isArray(inputs)) {
      const binding = (inputs as Algebra.Operation[]).filter((input) => input !== child && binds(input, variable));
      if (binding.length === 1) return binding[0];
      if (binding.length > 1) return { type: 'join', input: binding } as unknown as Algebra.Join;
    }
    if (parent.type === 'leftjoin' && Array.isArray(inputs) && inputs[1] === child && binds(inputs[0] as Algebra.Operation, variable)) {
      return inputs[0] as Algebra.Operation;
    }
    if (['project', 'group', 'minus', 'expression'].includes(parent.type)) return undefined;
  }
  return undefined;
}

/** Whether a pattern can bind the variable (it occurs where a solution gets its value from). */
function binds(op: unknown, variable: string): boolean {
  if (Array.isArray(op)) return op.some((item) => binds(item, variable));
  if (op === null || typeof op !== 'object') return false;
  const node = op as Record<string, unknown>;
  const is = (term: unknown) => isVariable(term, variable);
  switch (node.type) {
    case 'pattern':
      return [node.subject, node.predicate, node.object, node.graph].some(is);
    case 'path':
      return [node.subject, node.object, node.graph].some(is);
    case 'extend':
      return is(node.variable) || binds(node.input, variable);
    case 'values':
      return (node.variables as unknown[]).some(is);
    case 'project':
      return (node.variables as unknown[]).some(is);
    case 'graph':
    case 'service':
      return is(node.name) || binds(node.input, variable);
    case 'minus':
      return binds((node.input as unknown[])[0], variable);
    case 'group':
      return (node.variables as unknown[]).some(is) || ((node.aggregates as { variable: unknown }[] | undefined) ?? []).some((a) => is(a.variable));
    case 'expression':
      return false;
    default:
      return binds(node.input, variable) || binds(node.patterns, variable);
  }
}

function isVariable(term: unknown, name: string): boolean {
  const t = term as RDF.Term | undefined;
  return t?.termType === 'Variable' && t.value === name;
}

/**
 * Fetches the answers of the variable SERVICEs into `results`: the endpoints from their sources,
 * then every endpoint's answer. A source that holds an unresolved variable SERVICE waits for it;
 * one that never can be resolved (or that no pattern binds) is an error, which SILENT hides.
 */
export async function fetchVariableServices(
  services: VariableService[],
  results: ServiceResults,
  findEndpoints: EndpointFinder,
  call: EndpointCall,
): Promise<void> {
  let pending = services;
  while (pending.length > 0) {
    const waiting = pending.filter((s) => s.source !== undefined && pending.some((other) => other !== s && contains(s.source!, other.service)));
    const ready = pending.filter((s) => !waiting.includes(s));
    if (ready.length === 0) {
      for (const s of waiting) results.set(s.service, new EvaluationError('SERVICE with a variable endpoint: the endpoints depend on each other'));
      return;
    }
    for (const s of ready) results.set(s.service, await answerOf(s, findEndpoints, call));
    pending = waiting;
  }
}

async function answerOf(s: VariableService, findEndpoints: EndpointFinder, call: EndpointCall): Promise<ServiceAnswer | Error> {
  if (s.source === undefined) {
    return new EvaluationError(`SERVICE ?${s.variable}: no pattern joined with it binds ?${s.variable} to an endpoint`);
  }
  try {
    const endpoints = findEndpoints(s.source, s.variable);
    const answers = await Promise.all(endpoints.map((endpoint) => call(endpoint, s.service).catch((error: unknown) => failed(error))));
    return union(s, endpoints, answers);
  } catch (error) {
    return failed(error);
  }
}

function failed(error: unknown): Error {
  return error instanceof Error ? error : new EvaluationError(String(error));
}

/** The answers as one, each row with the variable bound to its endpoint; a failure fails it unless SILENT. */
function union(s: VariableService, endpoints: string[], answers: (ServiceAnswer | Error)[]): ServiceAnswer | Error {
  const variables = [s.variable];
  for (const answer of answers) if (!(answer instanceof Error)) for (const v of answer.variables) if (!variables.includes(v)) variables.push(v);
  const rows: SolutionRow[] = [];
  let bytes = 0;
  for (const [i, answer] of answers.entries()) {
    const endpoint = namedNode(endpoints[i]);
    if (answer instanceof Error) {
      if (!s.service.silent) return answer;
      rows.push([endpoint, ...variables.slice(1).map(() => undefined)]);
      continue;
    }
    bytes += answer.bytes;
    const columns = variables.map((v) => answer.variables.indexOf(v));
    for (const row of answer.rows) {
      const own = columns[0] >= 0 ? row[columns[0]] : undefined;
      // The endpoint's answer binding the variable itself must agree with where it came from.
      if (own !== undefined && !sameTerm(own, endpoint)) continue;
      rows.push([endpoint, ...columns.slice(1).map((c) => (c >= 0 ? row[c] : undefined))]);
    }
  }
  return { variables, rows, bytes };
}

function sameTerm(a: Term, b: Term): boolean {
  return a.termType === b.termType && a.value === b.value;
}

function contains(node: unknown, target: unknown): boolean {
  if (node === target) return true;
  if (Array.isArray(node)) return node.some((item) => contains(item, target));
  if (node === null || typeof node !== 'object' || (node as { termType?: unknown }).termType !== undefined) return false;
  return Object.values(node as Record<string, unknown>).some((value) => contains(value, target));
}
