/**
 * What we check and send before the remote sees a request. Our own parser reads it first: a syntax
 * error is answered here with its line and column (the same message as in local mode) without a
 * round trip, and the query form tells which result formats to ask the remote for.
 */
import { ProtocolError } from '../errors.js';
import { parseQueryShape, parseUpdate, type Algebra } from '../sparql/index.js';
import type { QueryRequest, UpdateRequest } from './sparql-service.js';

export type QueryForm = 'select' | 'ask' | 'construct' | 'describe';

export interface PreparedQuery {
  form: QueryForm;
  /** Prefixes of the query, for Turtle output of CONSTRUCT and DESCRIBE. */
  prefixes: Record<string, string>;
  /** The form fields of the request to the remote. */
  fields: URLSearchParams;
}

export function prepareQuery(request: QueryRequest): PreparedQuery {
  let form: QueryForm;
  let prefixes: Record<string, string> = {};
  let text = request.query;
  try {
    const prepared = withBaseWhenNeeded(request.query, request.baseIri, parseQueryShape);
    form = queryFormOf(prepared.parsed.algebra);
    prefixes = prepared.parsed.prefixes;
    text = prepared.text;
  } catch (error) {
    const lexicalForm = isUnknownPrefix(error) ? lexicalQueryForm(request.query) : undefined;
    if (lexicalForm === undefined) throw error;
    form = lexicalForm;
  }
  const fields = new URLSearchParams({ query: text });
  for (const iri of request.defaultGraphUris ?? []) fields.append('default-graph-uri', iri);
  for (const iri of request.namedGraphUris ?? []) fields.append('named-graph-uri', iri);
  return { form, prefixes, fields };
}

/**
 * Remotes predeclare prefixes (Virtuoso: bif:, sql:, foaf:, dbpedia: … dozens), and queries
 * written for them rely on that: a prefix unknown to us is the remote's to judge, not a syntax error.
 */
function isUnknownPrefix(error: unknown): boolean {
  return /unknown prefix/i.test((error as Error | null)?.message ?? '');
}

const QUERY_FORM_AFTER_PROLOGUE = /^(?:\s+|#[^\n]*(?:\n|$)|(?:BASE|PREFIX)\s*[^<]*<[^>]*>)*(SELECT|ASK|CONSTRUCT|DESCRIBE)\b/i;

/** The query form read from the first keyword after the prologue, for queries we cannot parse. */
export function lexicalQueryForm(text: string): QueryForm | undefined {
  const keyword = QUERY_FORM_AFTER_PROLOGUE.exec(text)?.[1];
  return keyword === undefined ? undefined : (keyword.toLowerCase() as QueryForm);
}

export function prepareUpdate(request: UpdateRequest): URLSearchParams {
  let prepared: { parsed: { hasDatasetClauses: boolean }; text: string };
  try {
    prepared = withBaseWhenNeeded(request.update, request.baseIri, parseUpdate);
  } catch (error) {
    if (!isUnknownPrefix(error)) throw error;
    prepared = { parsed: { hasDatasetClauses: false }, text: request.update };
  }
  const { parsed, text } = prepared;
  const hasProtocolDataset = (request.usingGraphUris?.length ?? 0) > 0 || (request.usingNamedGraphUris?.length ?? 0) > 0;
  if (hasProtocolDataset && parsed.hasDatasetClauses) {
    // The rule of SPARQL 1.1 Protocol §2.2.3, checked here because not every remote checks it.
    throw new ProtocolError('using-graph-uri / using-named-graph-uri may not be combined with USING, USING NAMED or WITH in the request');
  }
  const fields = new URLSearchParams({ update: text });
  for (const iri of request.usingGraphUris ?? []) fields.append('using-graph-uri', iri);
  for (const iri of request.usingNamedGraphUris ?? []) fields.append('using-named-graph-uri', iri);
  return fields;
}

/**
 * The request text to send. Relative IRIs are resolved against our endpoint's URL, as in local
 * mode; the remote would resolve them against its own, so a request that has any gets our base
 * declared in front — on the same line, so that the remote's line numbers stay right.
 */
function withBaseWhenNeeded<T>(text: string, baseIri: string | undefined, parse: (text: string, baseIri?: string) => T): { parsed: T; text: string } {
  try {
    return { parsed: parse(text), text };
  } catch (error) {
    if (baseIri === undefined || !/relative IRI/i.test((error as Error).message)) throw error;
    return { parsed: parse(text, baseIri), text: `BASE <${baseIri}> ${text}` };
  }
}

/** The form of a query: modifiers (LIMIT, DISTINCT…) and FROM wrap the ASK, CONSTRUCT or DESCRIBE operator. */
export function queryFormOf(algebra: Algebra.Operation): QueryForm {
  let operation: Algebra.Operation | undefined = algebra;
  while (operation) {
    if (operation.type === 'ask' || operation.type === 'construct' || operation.type === 'describe') return operation.type;
    if (!['slice', 'distinct', 'reduced', 'from'].includes(operation.type)) return 'select';
    operation = (operation as { input?: Algebra.Operation }).input;
  }
  return 'select';
}
