/**
 * SPARQL text to algebra, through Traqula. Queries are translated without the quads option so
 * that GRAPH stays an operator (GRAPH ?g {} and sub-SELECTs inside GRAPH keep their meaning);
 * updates need the quads option (Traqula translates INSERT/DELETE templates only that way).
 * Every failure becomes our SparqlSyntaxError with a line and column where the parser gives a position.
 */
import type { IRecognitionException } from '@traqula/chevrotain';
import { Parser } from '@traqula/parser-sparql-1-2';
import { toAlgebra } from '@traqula/algebra-sparql-1-2';
import type { Algebra } from '@traqula/algebra-transformations-1-2';
import { SparqlSyntaxError } from '../errors.js';
import { TextCache } from './text-cache.js';
import { placeholdersAreTerms, templateOf, withConstants, type Template } from './query-template.js';
import { useLinearKeywordTokens } from './linear-keyword-tokens.js';
import { useLinearLiteralTokens } from './linear-literal-tokens.js';
import { LazyLookaheadStrategy } from './lazy-lookahead.js';
import { updateToAlgebra } from './update-algebra.js';
import { markDistinctStar } from './distinct-star.js';
import { rewriteTripleTermPatterns } from './triple-term-patterns.js';
import { checkTextLimits, isStackOverflow, nestingTooDeepError } from './text-limits.js';
import { withValidIris } from './text-iris.js';
import { checkVariableScope } from './variable-scope.js';
import { positionOfOffset } from './text-position.js';

export type { Algebra };

export interface ParsedQuery {
  algebra: Algebra.Operation;
  /** Prefixes declared in the query text, for Turtle output of CONSTRUCT and DESCRIBE. */
  prefixes: Record<string, string>;
  /** The base IRI in force at the end of the prologue (BASE, else the one given), for IRI(). */
  baseIri?: string;
  /** For SELECT *: the variables in the order they first appear in the query (empty otherwise). */
  variableOrder: string[];
}

export interface ParsedUpdate {
  /** The operations of the request, in order. */
  operations: Algebra.Operation[];
  /** Whether any operation names its own dataset (USING, USING NAMED or WITH). */
  hasDatasetClauses: boolean;
}

useLinearKeywordTokens();
useLinearLiteralTokens();
/**
 * The parser's first error and the offset of the token where it stands (NaN: the end of the input).
 * The tokens carry offsets only: a syntax error's line and column are computed from its offset, so
 * the lexer need not track lines in every token, nor work out, when it is built, which token
 * patterns can span lines (a good part of building it).
 */
class RecognitionFailure extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

function throwFirstError(errors: IRecognitionException[]): never {
  throw new RecognitionFailure(errors[0]!.message, errors[0]!.token.startOffset);
}

// Each decision's lookahead is built when a query first reaches it: a one-shot command builds a few.
// The lexer skips the checks of its token definitions (Traqula's, fixed; the W3C syntax suites run
// through them): a few milliseconds of every command's start.
// Traqula's Parser hands all its arguments to the builder's build(), whose errorHandler its type
// leaves out (a syntax error test fails without it: the default handler's message has no offset).
const parser = new Parser({
  lexerConfig: { positionTracking: 'onlyOffset', skipValidations: true },
  parserConfig: { lookaheadStrategy: new LazyLookaheadStrategy() },
  errorHandler: throwFirstError,
} as ConstructorParameters<typeof Parser>[0]);

/** Parsed queries by text: clients repeat the same queries, and parsing costs more than planning. */
const QUERY_CACHE_SIZE = 512;
const queryCache = new TextCache<ParsedQuery>(QUERY_CACHE_SIZE);

/**
 * Whether queries are parsed through their templates (query-template.ts): QUIVER_QUERY_TEMPLATES=0
 * parses every text on its own (still cached by text), and so also turns off prepared plans, which
 * are made per template. For comparison and measurement; the algebra is the same either way.
 */
let templatesAllowed = process.env.QUIVER_QUERY_TEMPLATES !== '0';

/** Turns the template path on or off in this thread (for tests); returns the previous setting. */
export function allowQueryTemplates(allowed: boolean): boolean {
  const previous = templatesAllowed;
  templatesAllowed = allowed;
  return previous;
}

function usableTemplate(text: string): Template | undefined {
  return templatesAllowed ? templateOf(text) : undefined;
}

export function parseQuery(text: string, baseIri?: string): ParsedQuery {
  const cached = queryCache.get(text, baseIri);
  if (cached) return cached;
  // A copy of a template's parse is cheap to make again, and caching one per query text (each
  // with its own constants) would keep hundreds of algebra trees alive for a while, then drop them:
  // the garbage collector's most expensive kind of object.
  const fromTemplate = parseThroughTemplate(text, baseIri);
  if (fromTemplate) return fromTemplate;
  const parsed = parseQueryText(text, baseIri);
  queryCache.set(text, baseIri, parsed);
  return parsed;
}

/**
 * The query checked as parseQuery checks it, but with the algebra of its template where it has one
 * (placeholders in place of its constants): enough for its form and prefixes (remote mode forwards
 * the text) without the copy of the algebra with the constants put back.
 */
export function parseQueryShape(text: string, baseIri?: string): Pick<ParsedQuery, 'algebra' | 'prefixes'> {
  const cached = queryCache.get(text, baseIri);
  if (cached) return cached;
  const template = usableTemplate(text);
  const shape = template && templateParse(template, baseIri);
  return shape ?? parseQuery(text, baseIri);
}

/**
 * A query as its template's parse (placeholders in place of its constants, shared by every query of
 * the template) and its own constants, in placeholder order (query-template.ts); undefined when the
 * query has no usable template. For plans made once per template (engine/plan/prepared-plans.ts).
 */
export function parseAsTemplate(text: string, baseIri?: string): { template: ParsedQuery; constants: readonly string[] } | undefined {
  const template = usableTemplate(text);
  if (!template) return undefined;
  const parsed = templateParse(template, baseIri);
  return parsed === null ? undefined : { template: parsed, constants: template.constants };
}

/** Parsed templates by template text; null: the template cannot stand for its queries. */
const templateCache = new TextCache<ParsedQuery | null>(QUERY_CACHE_SIZE);

/** The query as a copy of its template's parse, or undefined when there is no usable template. */
function parseThroughTemplate(text: string, baseIri?: string): ParsedQuery | undefined {
  const found = parseAsTemplate(text, baseIri);
  return found && { ...found.template, algebra: withConstants(found.template.algebra, found.constants) };
}

function templateParse(template: Template, baseIri?: string): ParsedQuery | null {
  let parsed = templateCache.get(template.text, baseIri);
  if (parsed === undefined) {
    parsed = parseTemplate(template, baseIri);
    templateCache.set(template.text, baseIri, parsed);
  }
  return parsed;
}

function parseTemplate(template: Template, baseIri?: string): ParsedQuery | null {
  try {
    const parsed = parseQueryText(template.text, baseIri);
    return placeholdersAreTerms(parsed.algebra, template.constants.length) ? parsed : null;
  } catch {
    // The query itself will be parsed, and its own error reported.
    return null;
  }
}

function parseQueryText(text: string, baseIri?: string): ParsedQuery {
  const ast = parseText(text, baseIri) as any;
  if (ast.type !== 'query') throw new SparqlSyntaxError('expected a query but found an update request');
  const algebra = rewriteTripleTermPatterns(translate(() => toAlgebra(ast, { quads: false, baseIRI: baseIri }) as Algebra.Operation));
  markSolutionWildcards(text, ast, algebra);
  return { algebra, prefixes: prefixesOf(ast), baseIri: declaredBase(ast) ?? baseIri, variableOrder: selectsAll(ast) ? variablesInOrder(ast.where) : [] };
}

/** SELECT *: the only projection whose order the query text leaves to the variables' appearance. */
function selectsAll(ast: any): boolean {
  return Array.isArray(ast.variables) && ast.variables.some((v: any) => v?.type === 'wildcard');
}

export function parseUpdate(text: string, baseIri?: string): ParsedUpdate {
  const ast = parseText(text, baseIri) as any;
  if (ast.type !== 'update') throw new SparqlSyntaxError('expected an update request but found a query');
  const algebra = rewriteTripleTermPatterns(translate(() => updateToAlgebra(ast, baseIri)));
  markSolutionWildcards(text, ast, algebra);
  const hasDatasetClauses = (ast.updates ?? []).some((u: any) => u.operation?.graph !== undefined || (u.operation?.from?.clauses?.length ?? 0) > 0);
  if (algebra.type === 'compositeupdate') {
    const operations = (algebra as Algebra.CompositeUpdate).updates.filter((op) => op.type !== 'nop');
    return { operations, hasDatasetClauses };
  }
  return { operations: algebra.type === 'nop' ? [] : [algebra], hasDatasetClauses };
}

function parseText(text: string, baseIri?: string): unknown {
  checkTextLimits(text);
  try {
    const ast = withValidIris(baseIri === undefined ? parser.parse(text) : parser.parse(text, { baseIRI: baseIri } as any), text, baseIri);
    checkVariableScope(ast);
    return ast;
  } catch (error) {
    throw isStackOverflow(error) ? nestingTooDeepError() : toSyntaxError(error, text);
  }
}

function translate(toOperation: () => Algebra.Operation): Algebra.Operation {
  try {
    return toOperation();
  } catch (error) {
    // The translation rejects what the grammar alone lets through (e.g. relative IRIs without a
    // base, variables reused in SELECT): for a client that is still a malformed request.
    throw isStackOverflow(error) ? nestingTooDeepError() : new SparqlSyntaxError(messageOf(error));
  }
}

/** COUNT(DISTINCT *) needs to know which variables the query wrote; the text says whether it occurs at all. */
function markSolutionWildcards(text: string, ast: unknown, algebra: Algebra.Operation): void {
  if (/\(\s*DISTINCT\s*\*/i.test(text)) markDistinctStar(algebra, new Set(variablesInOrder(ast)));
}

/** Variables in document order (Traqula lists the variables of SELECT * sorted by name). */
function variablesInOrder(node: unknown, seen = new Set<string>(), order: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) variablesInOrder(item, seen, order);
  } else if (node && typeof node === 'object') {
    const n = node as Record<string, unknown>;
    if (n.type === 'term' && n.subType === 'variable' && typeof n.value === 'string') {
      if (!seen.has(n.value)) {
        seen.add(n.value);
        order.push(n.value);
      }
      return order;
    }
    for (const key of Object.keys(n)) if (key !== 'loc') variablesInOrder(n[key], seen, order);
  }
  return order;
}

function declaredBase(ast: any): string | undefined {
  let base: string | undefined;
  for (const def of ast.context ?? []) if (def.subType === 'base' && def.value?.value !== undefined) base = def.value.value;
  return base;
}

function prefixesOf(ast: any): Record<string, string> {
  const prefixes: Record<string, string> = {};
  for (const def of ast.context ?? []) {
    if (def.subType === 'prefix' && def.value?.value !== undefined) prefixes[def.key] = def.value.value;
  }
  return prefixes;
}

/** A parse error at its place in the text; the lexer's messages name an offset in their text. */
export function toSyntaxError(error: unknown, text: string): SparqlSyntaxError {
  if (error instanceof SparqlSyntaxError) return error;
  if (error instanceof RecognitionFailure) {
    // No token offset: the parser ran into the end of the input.
    const atEnd = Number.isNaN(error.offset);
    const { line, column } = positionOfOffset(text, atEnd ? text.length : error.offset);
    return new SparqlSyntaxError(`${atEnd ? 'unexpected end of input; ' : ''}${summarize(error.message)}`, line, column);
  }
  const message = messageOf(error);
  const atOffset = /at offset: (\d+)/.exec(message);
  if (atOffset) {
    const { line, column } = positionOfOffset(text, Number(atOffset[1]));
    return new SparqlSyntaxError(message.replace(/,? ?skipped \d+ characters\.?/, '').replace(/ at offset: \d+/, ''), line, column);
  }
  return new SparqlSyntaxError(message);
}

/** Chevrotain lists every token it would have accepted; keep the message readable. */
function summarize(detail: string): string {
  const found = /but found: '([^']*)'/.exec(detail);
  const expectingMany = detail.includes('one of these possible Token sequences');
  const firstLine = detail.split('\n')[0].trim();
  if (expectingMany) return `syntax error${found && found[1] ? ` at '${found[1]}'` : ''}`;
  return firstLine.length > 200 ? firstLine.slice(0, 200) + '…' : firstLine;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
