/**
 * Requests shaped to hurt (issue 18, finding 9): seeded random requests against one real
 * `quiver serve`, in four parts.
 *
 * - Nesting around the limit: valid queries and updates whose brackets of every kind (groups,
 *   OPTIONAL, UNION, FILTER, EXISTS, BIND, function calls, blank node lists, collections) nest to a
 *   random depth near 64: up to the limit they are answered (200), past it refused with a 400 that
 *   names it. Once, ~1,000 nested groups answered "Maximum call stack size exceeded".
 * - Long chains (operators, UNIONs, property paths, update operations) of random length: answered,
 *   or refused with a 400 naming the limit; never a 500.
 * - Terms around the term length limit (1 MiB): literals in every quoting and IRIs, a few characters
 *   under or over it, or megabytes over: an update keeps one within it whole and refuses one over it
 *   with a 400 naming the limit; a query answers, or refuses the same way.
 * - Pipelines: random sequences of writes (Graph Store PUT, POST and DELETE, updates by POST and by
 *   GET in several spellings) and reads (by GET and POST, SPARQL and Graph Store) written at once on
 *   one connection: every read sees exactly the writes before it.
 *
 * And every error answer of all of them, and of random malformed requests, carries
 * `X-Content-Type-Options: nosniff` (an error body may echo the request).
 *
 * CI: 40 nestings, 12 chains, 10 terms, 16 pipelines, 80 malformed requests. Full (QUIVER_FULL=1,
 * or QUIVER_SHAPES_SCALE=N for N times the CI counts): 25 times as many. Replay: QUIVER_SEED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawConnection, rawRequest, type RawResponse } from '../http/raw-connection.js';
import { MAX_NESTING_DEPTH, MAX_TERM_LENGTH } from '../../src/sparql/text-limits.js';
import { Random, seedFromEnv } from './prng.js';
import { FULL_RUN, runSize, timeLimit } from './run-size.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { update } from './sparql-client.js';

const SCALE = runSize('QUIVER_SHAPES_SCALE', 1, 25);
const NESTINGS = 40 * SCALE;
const CHAINS = 12 * SCALE;
const TERMS = 10 * SCALE;
const PIPELINES = 16 * SCALE;
const MALFORMED = 80 * SCALE;
const PIPELINE_CONNECTIONS = 4;

const NESTED_TOO_DEEP = new RegExp(`nested more than ${MAX_NESTING_DEPTH} deep`);
/** The parser's limit, or the evaluator's (a long chain of joins recurses as deep as it is long). */
const CHAINED_TOO_DEEP = /nested or chained too deeply to parse|nested too deeply \(maximum call stack size exceeded\)|nested more than \d+ deep/;
/** The longest chain: planning a sequence path is quadratic in its length (see chains), so CI keeps to short ones. */
const LONGEST_CHAIN = FULL_RUN ? 10_000 : 3000;
/**
 * The HTTP parser's own answers (Fastify's client error handler: a timeout, headers too large,
 * malformed HTTP) are fixed JSON texts that quote nothing of the request; they come without nosniff.
 */
const PARSER_ANSWER = /^\{"error":"[^"]+","message":"(Client Timeout|Exceeded maximum allowed HTTP header size|Client Error)","statusCode":\d+\}$/;
const TERM_TOO_LONG = new RegExp(`longer than the term length limit of ${MAX_TERM_LENGTH}`);

/** An answer, as the suite sees every one. */
interface Answer {
  status: number;
  body: string;
  headers: Headers | Record<string, string>;
}

function header(answer: Answer, name: string): string | undefined {
  return answer.headers instanceof Headers ? (answer.headers.get(name) ?? undefined) : answer.headers[name];
}

/** Collects what went wrong, and checks nosniff on every error answer that passes through. */
class Findings {
  readonly failures: string[] = [];
  /** The whole request text of each failure that has one, for a replay by hand. */
  readonly requests: { failure: string; text: string }[] = [];
  readonly statuses = new Map<string, number>();
  errorAnswers = 0;
  parserAnswers = 0;

  see(part: string, answer: Answer, what: string): void {
    const key = `${part} ${answer.status}`;
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
    if (answer.status < 400) return;
    this.errorAnswers++;
    if (PARSER_ANSWER.test(answer.body)) this.parserAnswers++;
    else if (header(answer, 'x-content-type-options') !== 'nosniff') this.fail(part, `${what}: the ${answer.status} lacks X-Content-Type-Options: nosniff`);
    if (answer.status === 500 && /Maximum call stack|RangeError/.test(answer.body)) this.fail(part, `${what}: ${answer.body.slice(0, 300)}`);
  }

  fail(part: string, message: string, text?: string): void {
    this.failures.push(`${part}: ${message}`);
    if (text !== undefined) this.requests.push({ failure: message.slice(0, 200), text });
  }
}

const DOORS = ['GET /sparql', 'POST /sparql/select', 'form POST /sparql'] as const;

async function ask(origin: string, door: (typeof DOORS)[number], query: string): Promise<Answer> {
  const accept = { accept: 'application/sparql-results+json' };
  const init: RequestInit =
    door === 'GET /sparql'
      ? { headers: accept }
      : door === 'POST /sparql/select'
        ? { method: 'POST', headers: { ...accept, 'content-type': 'application/sparql-query' }, body: query }
        : { method: 'POST', headers: { ...accept, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query }).toString() };
  const path = door === 'GET /sparql' ? `/sparql?${new URLSearchParams({ query })}` : door === 'POST /sparql/select' ? '/sparql/select' : '/sparql';
  const response = await fetch(origin + path, { ...init, signal: AbortSignal.timeout(60_000) });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

async function postUpdateText(origin: string, text: string): Promise<Answer> {
  const response = await fetch(`${origin}/sparql/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: text,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

// ---- nesting -------------------------------------------------------------------------------

/** Valid SPARQL whose brackets nest exactly `depth` deep within what it returns. */
class Nester {
  private binds = 0;
  constructor(private readonly random: Random) {}

  /** Each level matches one triple of the data at most, so that nested EXISTS cost no more than their depth. */
  pattern(depth: number): string {
    if (depth === 0) return '?s <urn:p> 1';
    const inner = depth - 1;
    return this.random.pick([
      () => `{ ${this.pattern(inner)} }`,
      () => `OPTIONAL { ${this.pattern(inner)} }`,
      () => `{ ?s <urn:p> 1 } UNION { ${this.pattern(inner)} }`,
      () => `MINUS { ${this.pattern(inner)} }`,
      () => `GRAPH ?g { ${this.pattern(inner)} }`,
      () => `?s <urn:p> 1 FILTER(${this.expression(inner)})`,
      () => `BIND(${this.expression(inner)} AS ?b${++this.binds})`,
      () => `[ <urn:p> ${this.object(inner)} ]`,
      () => `?s <urn:p> ${this.object(depth)}`,
    ])();
  }

  expression(depth: number): string {
    if (depth === 0) return this.random.pick(['1', '?o', 'true', '"x"']);
    const inner = depth - 1;
    return this.random.pick([
      () => `(${this.expression(inner)})`,
      () => `ABS(${this.expression(inner)})`,
      () => `1 + (${this.expression(inner)})`,
      () => `COALESCE(${this.expression(inner)}, 2)`,
      () => `EXISTS { ${this.pattern(inner)} }`,
      () => `NOT EXISTS { ${this.pattern(inner)} }`,
      () => `IF(${this.expression(inner)}, 1, 2)`,
    ])();
  }

  /** An object: a term, or a blank node property list or collection that nests. */
  object(depth: number): string {
    if (depth === 0) return this.random.pick(['1', '"o"', '<urn:o>']);
    const inner = depth - 1;
    return this.random.chance(0.5) ? `[ <urn:p> ${this.object(inner)} ]` : `( 1 ${this.object(inner)} )`;
  }
}

/** The deepest nesting of brackets, counted here as a reader would (no strings or IRIs hold brackets). */
function bracketDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of text) {
    if (char === '{' || char === '(' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === '}' || char === ')' || char === ']') depth--;
  }
  return deepest;
}

/** A query or an update nesting about `depth` deep in all (its own outer brackets included). */
function nestedRequest(nester: Nester, random: Random, depth: number): { kind: 'query' | 'update'; text: string } {
  switch (random.int(0, 3)) {
    case 0:
      return { kind: 'query', text: `SELECT * WHERE { ${nester.pattern(depth - 1)} } LIMIT 5` };
    case 1:
      return { kind: 'query', text: `ASK { ${nester.pattern(depth - 1)} }` };
    case 2:
      return { kind: 'update', text: `INSERT { GRAPH <urn:nested> { <urn:n> <urn:p> 1 } } WHERE { ${nester.pattern(depth - 1)} }` };
    default:
      return { kind: 'update', text: `INSERT DATA { GRAPH <urn:nested> { <urn:n> <urn:p> ${nester.object(depth - 2)} } }` };
  }
}

/** Depths around the limit mostly, a few far from it either way. */
function depthNearTheLimit(random: Random): number {
  if (random.chance(0.7)) return MAX_NESTING_DEPTH + random.int(-4, 4);
  return random.chance(0.5) ? random.int(3, MAX_NESTING_DEPTH) : random.int(MAX_NESTING_DEPTH, 1200);
}

async function nestings(server: ServerProcess, random: Random, findings: Findings): Promise<void> {
  const nester = new Nester(random);
  for (let n = 0; n < NESTINGS; n++) {
    const { kind, text } = nestedRequest(nester, random, Math.max(3, depthNearTheLimit(random)));
    const depth = bracketDepth(text);
    const door = random.pick(DOORS);
    const answer = kind === 'query' ? await ask(server.origin, door, text) : await postUpdateText(server.origin, text);
    const what = `${kind} ${kind === 'query' ? `by ${door} ` : ''}nested ${depth} deep: ${text.slice(0, 200)}`;
    findings.see('nesting', answer, what);
    // A URL past Node's header size limit (16 KiB with the headers) is refused before it is read.
    if (kind === 'query' && door === 'GET /sparql' && answer.status === 431 && encodeURIComponent(text).length > 15_000) continue;
    const within = depth <= MAX_NESTING_DEPTH;
    const right = within ? answer.status === 200 : answer.status === 400 && NESTED_TOO_DEEP.test(answer.body);
    if (!right) findings.fail('nesting', `${what}\n  → ${answer.status} ${within ? 'within' : 'past'} the limit: ${answer.body.slice(0, 300)}`, text);
    // What an update wrote (lists and blank nodes nested as deep) would give the next queries'
    // dozens of patterns real matches to join: time, not depth, would decide their answer.
    if (kind === 'update') await update(server.origin, 'DROP SILENT GRAPH <urn:nested>');
  }
}

// ---- chains --------------------------------------------------------------------------------

function chain(random: Random): { kind: 'query' | 'update'; text: string; length: number } {
  const length = random.chance(0.5) ? random.int(10, 500) : random.int(500, LONGEST_CHAIN);
  const many = (piece: (i: number) => string, separator: string): string => Array.from({ length }, (_, i) => piece(i)).join(separator);
  switch (random.int(0, 4)) {
    case 0: {
      const op = random.pick(['+', '*', '-', '&&', '||']);
      return { kind: 'query', text: `SELECT * WHERE { BIND(${many((i) => String(i % 7), ` ${op} `)} AS ?x) }`, length };
    }
    case 1:
      return { kind: 'query', text: `SELECT * WHERE { ${many(() => '{ ?s ?p ?o }', ' UNION ')} } LIMIT 1`, length };
    case 2:
      return { kind: 'query', text: `ASK { ?s ${many(() => '<urn:p>', random.pick(['/', '|']))} ?o }`, length };
    case 3:
      return { kind: 'query', text: `SELECT * WHERE { VALUES ?x { ${many((i) => String(i), ' ')} } } LIMIT 1`, length };
    default:
      return { kind: 'update', text: many((i) => `INSERT DATA { GRAPH <urn:chain> { <urn:c> <urn:p> ${i} } }`, ' ;\n'), length };
  }
}

/**
 * Answered, refused by a limit that is named, or stopped at the time limit: a sequence path of n
 * steps is a basic graph pattern of n patterns, and its greedy join order takes O(n²) (16,000 steps:
 * half a minute), which only the query time limit bounds.
 */
async function chains(server: ServerProcess, random: Random, findings: Findings): Promise<void> {
  for (let n = 0; n < CHAINS; n++) {
    const { kind, text, length } = chain(random);
    const answer =
      kind === 'query'
        ? await ask(server.origin, random.pick(['POST /sparql/select', 'form POST /sparql'] as const), text)
        : await postUpdateText(server.origin, text);
    const what = `a chain of ${length}: ${text.slice(0, 120)}…`;
    findings.see('chain', answer, what);
    const refusedByName = answer.status === 400 && CHAINED_TOO_DEEP.test(answer.body);
    if (answer.status !== 200 && answer.status !== 504 && !refusedByName) findings.fail('chain', `${what}\n  → ${answer.status}: ${answer.body.slice(0, 300)}`);
  }
  await update(server.origin, 'DROP SILENT GRAPH <urn:chain>');
}

// ---- terms ---------------------------------------------------------------------------------

/** A literal or IRI whose token (quotes or angle brackets included) is `length` characters long. */
function termOfLength(random: Random, length: number): { token: string; kind: 'literal' | 'IRI'; value: number } {
  if (random.chance(0.2)) {
    const head = '<http://example.org/';
    return { token: `${head}${'i'.repeat(length - head.length - 1)}>`, kind: 'IRI', value: length - 2 };
  }
  const quote = random.pick(['"', "'", '"""', "'''"]);
  // A unit repeated: plain, accented (one UTF-16 unit), or an escape (two characters of text, one of value).
  const unit = random.pick(['ab', 'é', '\\t', 'x y']);
  const room = length - 2 * quote.length;
  const units = Math.floor(room / unit.length);
  const content = unit.repeat(units) + 'x'.repeat(room - units * unit.length);
  const value = unit === '\\t' ? units + (room - units * unit.length) : content.length;
  return { token: `${quote}${content}${quote}`, kind: 'literal', value };
}

/** Lengths a few characters either side of the limit mostly, else anywhere up to six times it. */
function lengthNearTheLimit(random: Random): number {
  if (random.chance(0.6)) return MAX_TERM_LENGTH + random.int(-3, 3);
  return random.chance(0.5) ? MAX_TERM_LENGTH + random.int(-5000, 5000) : random.int(1000, 6 * MAX_TERM_LENGTH);
}

/** quiver serve's default --max-body: a larger request is refused with 413 before anything else. */
const MAX_BODY = 10 * 2 ** 20;

async function terms(server: ServerProcess, random: Random, findings: Findings): Promise<void> {
  for (let n = 0; n < TERMS; n++) {
    const length = lengthNearTheLimit(random);
    const { token, kind, value } = termOfLength(random, length);
    const within = token.length <= MAX_TERM_LENGTH;
    const term = `${kind === 'IRI' ? 'an IRI' : `a literal (${token.slice(0, 3)}…)`} of ${token.length} characters`;
    if (random.chance(0.6)) {
      const text = `INSERT DATA { <urn:long:${n}> <urn:p> ${token} }`;
      const answer = await postUpdateText(server.origin, text);
      const what = `an update with ${term}`;
      findings.see('term', answer, what);
      const right =
        Buffer.byteLength(text) > MAX_BODY ? answer.status === 413 : within ? answer.status === 200 : answer.status === 400 && TERM_TOO_LONG.test(answer.body);
      if (!right) findings.fail('term', `${what} → ${answer.status}: ${answer.body.slice(0, 300)}`);
      if (within && answer.status === 200) await checkStoredLength(server, findings, n, kind, value, what);
      await update(server.origin, `DELETE WHERE { <urn:long:${n}> <urn:p> ?o }`);
      continue;
    }
    // Queries may take a long literal by another road than the lexer (a query template's constant):
    // past the limit they answer, or refuse it by name.
    const query = `ASK { VALUES ?x { ${token} } }`;
    const door = random.pick(DOORS.filter((d) => d !== 'GET /sparql'));
    const bytes = Buffer.byteLength(door === 'form POST /sparql' ? new URLSearchParams({ query }).toString() : query);
    const answer = await ask(server.origin, door, query);
    const what = `a query by ${door} with ${term}`;
    findings.see('term', answer, what);
    const refusedByName = answer.status === 400 && TERM_TOO_LONG.test(answer.body);
    const right = bytes > MAX_BODY ? answer.status === 413 : answer.status === 200 || (!within && refusedByName);
    if (!right) findings.fail('term', `${what} → ${answer.status}: ${answer.body.slice(0, 300)}`);
  }
}

/** The value kept is the term's own, whole: as many characters as written (escapes decoded). */
async function checkStoredLength(server: ServerProcess, findings: Findings, n: number, kind: 'literal' | 'IRI', expected: number, what: string): Promise<void> {
  const answer = await ask(
    server.origin,
    'POST /sparql/select',
    `SELECT (STRLEN(${kind === 'IRI' ? 'STR(?o)' : '?o'}) AS ?n) WHERE { <urn:long:${n}> <urn:p> ?o }`,
  );
  const stored =
    answer.status === 200 ? Number((JSON.parse(answer.body) as { results: { bindings: { n?: { value: string } }[] } }).results.bindings[0]?.n?.value) : NaN;
  if (stored !== expected) findings.fail('term', `${what}: stored ${stored} characters, not ${expected}`);
}

// ---- pipelines -----------------------------------------------------------------------------

/** One request of a pipeline, and what it does to (or must see of) the values in its graph. */
interface Step {
  name: string;
  bytes: string;
  /** A write: the values after it. */
  apply?: (values: Set<string>) => Set<string>;
  /** A write's acceptable statuses, given the values before it. */
  statuses?: (before: Set<string>) => number[];
  /** A read: the values it answers. */
  read?: (response: RawResponse) => Set<string> | 'none';
}

const enc = encodeURIComponent;

function pipelineSteps(random: Random, graph: string, values: Set<string>, next: () => string): Step[] {
  const insert = (v: string): string => `INSERT DATA { GRAPH <${graph}> { <urn:s> <urn:v> "${v}" } }`;
  const select = `SELECT ?v WHERE { GRAPH <${graph}> { <urn:s> <urn:v> ?v } }`;
  const add = (v: string) => (before: Set<string>) => new Set([...before, v]);
  const jsonValues = (response: RawResponse): Set<string> =>
    new Set((JSON.parse(response.body) as { results: { bindings: { v: { value: string } }[] } }).results.bindings.map((b) => b.v.value));
  const ntriplesValues = (response: RawResponse): Set<string> | 'none' =>
    response.status === 404 ? 'none' : new Set([...response.body.matchAll(/<urn:v> "([^"]*)"/g)].map((m) => m[1]!));
  const steps: Step[] = [];
  for (let n = random.int(2, 10); n > 0; n--) {
    const v = next();
    const existing = [...values];
    steps.push(
      random.pick<() => Step>([
        () => ({
          name: 'GSP PUT',
          bytes: rawRequest('PUT', `/sparql/store?graph=${enc(graph)}`, { 'Content-Type': 'text/turtle' }, `<urn:s> <urn:v> "${v}" .`),
          apply: () => new Set([v]),
          statuses: () => [200, 201, 204],
        }),
        () => ({
          name: 'GSP POST',
          bytes: rawRequest('POST', `/sparql/store?graph=${enc(graph)}`, { 'Content-Type': 'text/turtle' }, `<urn:s> <urn:v> "${v}" .`),
          apply: add(v),
          statuses: () => [200, 201, 204],
        }),
        // A graph whose last triple was deleted may still exist, empty: deleting it then is no 404.
        () => ({
          name: 'GSP DELETE',
          bytes: rawRequest('DELETE', `/sparql/store?graph=${enc(graph)}`),
          apply: () => new Set(),
          statuses: (before) => (before.size === 0 ? [404, 200, 204] : [200, 204]),
        }),
        () => ({
          name: 'POST update',
          bytes: rawRequest('POST', '/sparql/update', { 'Content-Type': 'application/sparql-update' }, insert(v)),
          apply: add(v),
          statuses: () => [200, 204],
        }),
        () => ({ name: 'GET update', bytes: rawRequest('GET', `/sparql/update?update=${enc(insert(v))}`), apply: add(v), statuses: () => [200, 204] }),
        () => ({
          name: 'GET update (%75pdate)',
          bytes: rawRequest('GET', `/sparql/update?%75pdate=${enc(insert(v))}`),
          apply: add(v),
          statuses: () => [200, 204],
        }),
        () => ({
          name: 'GET update (path %75pdate)',
          bytes: rawRequest('GET', `/sparql/%75pdate?update=${enc(insert(v))}`),
          apply: add(v),
          statuses: () => [200, 204],
        }),
        () => {
          const gone = existing.length > 0 ? random.pick(existing) : v;
          const text = `DELETE DATA { GRAPH <${graph}> { <urn:s> <urn:v> "${gone}" } }`;
          return {
            name: 'DELETE DATA',
            bytes: rawRequest('POST', '/sparql/update', { 'Content-Type': 'application/sparql-update' }, text),
            apply: (before) => new Set([...before].filter((x) => x !== gone)),
            statuses: () => [200, 204],
          };
        },
        () => ({
          name: 'GET select',
          bytes: rawRequest('GET', `/sparql/select?query=${enc(select)}`, { Accept: 'application/sparql-results+json' }),
          read: jsonValues,
        }),
        () => ({
          name: 'form POST select on {base}/sparql',
          bytes: rawRequest(
            'POST',
            '/sparql',
            { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json' },
            `query=${enc(select)}`,
          ),
          read: jsonValues,
        }),
        () => ({
          name: 'POST select',
          bytes: rawRequest('POST', '/sparql/select', { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, select),
          read: jsonValues,
        }),
        () => ({ name: 'GSP GET', bytes: rawRequest('GET', `/sparql/store?graph=${enc(graph)}`, { Accept: 'application/n-triples' }), read: ntriplesValues }),
      ])(),
    );
    const last = steps[steps.length - 1]!;
    if (last.apply) values = last.apply(values);
  }
  return steps;
}

async function pipelines(server: ServerProcess, random: Random, findings: Findings): Promise<void> {
  let next = 0;
  const worker = async (c: number): Promise<void> => {
    const own = new Random(random.int(0, 2 ** 31), 'pipeline', c);
    const graph = `urn:pipe:${c}`;
    let values = new Set<string>();
    let counter = 0;
    const connection = await RawConnection.open(server.origin);
    try {
      while (next++ < PIPELINES) {
        const steps = pipelineSteps(own, graph, values, () => `${c}-${++counter}`);
        writeInPieces(connection, own, steps.map((step) => step.bytes).join(''));
        const responses = await connection.responses(steps.length, 60_000);
        values = checkPipeline(steps, responses, values, findings);
      }
    } catch (error) {
      findings.fail('pipeline', `connection ${c}: ${(error as Error).message}`);
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: PIPELINE_CONNECTIONS }, (_, c) => worker(c)));
}

/** All at once, or cut in a few places without waiting: the server must not care. */
function writeInPieces(connection: RawConnection, random: Random, bytes: string): void {
  const cuts = random.chance(0.5) ? [] : Array.from({ length: random.int(1, 4) }, () => random.int(0, bytes.length)).sort((a, b) => a - b);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    connection.write(bytes.slice(at, cut));
    at = cut;
  }
}

/** Replays the steps on the model; every read must see exactly the model's values at its turn. */
function checkPipeline(steps: Step[], responses: RawResponse[], values: Set<string>, findings: Findings): Set<string> {
  const names = steps.map((step) => step.name).join(' → ');
  steps.forEach((step, i) => {
    const response = responses[i]!;
    findings.see('pipeline', { status: response.status, body: response.body, headers: response.headers }, step.name);
    if (step.apply) {
      const allowed = step.statuses!(values);
      if (!allowed.includes(response.status))
        findings.fail('pipeline', `${names}: step ${i} (${step.name}) answered ${response.status}, not ${allowed.join('/')}: ${response.body.slice(0, 200)}`);
      values = step.apply(values);
      return;
    }
    const seen = step.read!(response);
    const same = seen === 'none' ? values.size === 0 : seen.size === values.size && [...seen].every((v) => values.has(v));
    if (!same)
      findings.fail(
        'pipeline',
        `${names}: step ${i} (${step.name}) saw ${seen === 'none' ? 'no graph' : JSON.stringify([...seen])}, not ${JSON.stringify([...values])}`,
      );
  });
  return values;
}

// ---- malformed requests --------------------------------------------------------------------

/** Requests that must fail, each a different way: only their error answers' headers are checked. */
function malformed(random: Random): { method: string; path: string; headers: Record<string, string>; body?: string } {
  const junk = random.pick(['SELECT', '<script>alert(1)</script>', 'ASK {', '\u0000', 'INSERT DATA { <a b> <c> <d> }', '"""', '%%%', '{'.repeat(100)]);
  return random.pick([
    () => ({ method: 'POST', path: '/sparql/select', headers: { 'content-type': 'application/sparql-query' }, body: junk }),
    () => ({ method: 'GET', path: `/sparql?query=${enc(junk)}`, headers: {} }),
    () => ({ method: 'POST', path: '/sparql/update', headers: { 'content-type': 'application/sparql-update' }, body: junk }),
    () => ({ method: 'GET', path: `/sparql/update?update=${enc(junk)}`, headers: {} }),
    () => ({
      method: 'POST',
      path: '/sparql',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `update=${enc(junk)}&query=${enc(junk)}`,
    }),
    () => ({ method: 'POST', path: '/sparql/update', headers: { 'content-type': random.pick(['text/plain', 'application/json', 'image/png']) }, body: junk }),
    () => ({ method: 'GET', path: `/sparql?query=${enc('ASK {}')}`, headers: { accept: random.pick(['image/png', 'application/x-nothing', 'text/*;q=0']) } }),
    () => ({ method: 'PATCH', path: '/sparql/store?default', headers: {} }),
    () => ({ method: 'GET', path: `/sparql/store?graph=${enc(`urn:missing:${random.int(0, 1e9)}`)}`, headers: {} }),
    () => ({ method: 'PUT', path: '/sparql/store?graph=urn:bad', headers: { 'content-type': 'text/turtle' }, body: junk }),
    () => ({ method: 'GET', path: `/${enc(junk)}`, headers: {} }),
    () => ({ method: 'GET', path: `/sparql?query=${enc('ASK {}')}&query=${enc('ASK {}')}`, headers: {} }),
    () => ({ method: 'POST', path: '/sparql/update?timeout=abc', headers: { 'content-type': 'application/sparql-update' }, body: 'INSERT DATA {}' }),
  ])();
}

async function malformedRequests(server: ServerProcess, random: Random, findings: Findings): Promise<void> {
  for (let n = 0; n < MALFORMED; n++) {
    const request = malformed(random);
    const response = await fetch(server.origin + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(30_000),
    });
    const answer = { status: response.status, body: await response.text(), headers: response.headers };
    findings.see('malformed', answer, `${request.method} ${request.path.slice(0, 100)}`);
    if (answer.status < 400) findings.fail('malformed', `${request.method} ${request.path.slice(0, 100)} answered ${answer.status}`);
  }
}

// ---- the run -------------------------------------------------------------------------------

test('nesting, chains and terms around their limits, pipelines and error headers', { timeout: timeLimit(240_000, 3_600_000) }, async () => {
  const seed = seedFromEnv();
  console.log(
    `request shapes: seed ${seed} (replay with QUIVER_SEED=${seed}); ${NESTINGS} nestings, ${CHAINS} chains, ${TERMS} terms, ${PIPELINES} pipelines, ${MALFORMED} malformed requests`,
  );
  const server = await startServerProcess(['--memory', '--workers', '2', '--query-timeout', '20', '--update-timeout', '20']);
  const findings = new Findings();
  try {
    await update(server.origin, 'INSERT DATA { <urn:a> <urn:p> 1 . <urn:a> <urn:q> "x" . GRAPH <urn:g> { <urn:a> <urn:p> <urn:b> } }');
    const parts: [string, (s: ServerProcess, r: Random, f: Findings) => Promise<void>][] = [
      ['nesting', nestings],
      ['chains', chains],
      ['terms', terms],
      ['pipelines', pipelines],
      ['malformed', malformedRequests],
    ];
    for (const [name, part] of parts) {
      const started = Date.now();
      await part(server, new Random(seed, 'request-shapes', name), findings);
      console.log(`request shapes: ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      assert.ok(server.alive(), `the server died during ${name}:\n${server.stderr()}`);
    }
  } finally {
    await server.stop('SIGTERM');
  }
  const statuses = [...findings.statuses]
    .sort()
    .map(([key, n]) => `${key}: ${n}`)
    .join(', ');
  console.log(`request shapes: ${statuses}; ${findings.errorAnswers} error answers checked for nosniff (${findings.parserAnswers} the HTTP parser's own)`);
  for (const failure of findings.failures.slice(0, 10)) console.log(`request shapes failure: ${failure}`);
  if (findings.requests.length > 0) {
    const file = join(tmpdir(), `quiver-request-shapes-${seed}.json`);
    writeFileSync(file, JSON.stringify(findings.requests, null, 2));
    console.log(`request shapes: the failing requests, whole, in ${file}`);
  }
  assert.equal(findings.failures.length, 0, `${findings.failures.length} failures (seed ${seed}); first: ${findings.failures[0]}`);
});
