/**
 * Every IRI written in a query or update must be a valid IRI (RFC 3987, src/rdf/iri-syntax.ts):
 * the grammar's IRIREF token lets `<http://x.example/a#b#c>` or `<http://[::1>` through, and a
 * prefixed name can expand to such an IRI (`ex:a\#b` when ex: ends with `#`). A text with one is a
 * SyntaxError (a 400) naming the IRI's line and column.
 *
 * IRIs are checked as written, before resolution against the base: resolving keeps a reference's
 * characters, escapes and fragment, so a valid reference against a valid base is a valid IRI (and a
 * relative one without a base is refused by the translation to algebra, as before).
 *
 * The parser keeps no positions (tracking them costs every parse): the common, valid case walks the
 * tree once; only a text with an invalid IRI is parsed again with positions, to say where it is.
 */
import { Parser } from '@traqula/parser-sparql-1-2';
import { AstFactory } from '@traqula/rules-sparql-1-2';
import { SparqlSyntaxError } from '../errors.js';
import { iriReferenceError } from '../rdf/index.js';
import { positionOfOffset } from './text-position.js';

/** Returns the parsed tree when every IRI in it is valid; throws a SparqlSyntaxError naming the first that is not. */
export function withValidIris<T>(ast: T, text: string, baseIri?: string): T {
  const invalid = firstInvalidIri(ast);
  if (invalid === undefined) return ast;
  const located = firstInvalidIri(parseWithPositions(text, baseIri)) ?? invalid;
  const message = `invalid IRI <${located.iri}>: ${located.reason}`;
  const start = sourceStart(located.node);
  if (start === undefined) throw new SparqlSyntaxError(message);
  const { line, column } = positionOfOffset(text, start);
  throw new SparqlSyntaxError(message, line, column);
}

interface InvalidIri {
  iri: string;
  reason: string;
  node: Record<string, unknown>;
}

/** The first invalid IRI in document order, prefixed names expanded with the prefixes declared so far. */
function firstInvalidIri(ast: unknown): InvalidIri | undefined {
  const prefixes = new Map<string, string>();
  const visit = (node: unknown): InvalidIri | undefined => {
    if (Array.isArray(node)) {
      for (const item of node) {
        const found = visit(item);
        if (found) return found;
      }
      return undefined;
    }
    if (node === null || typeof node !== 'object') return undefined;
    const n = node as Record<string, unknown>;
    if (n['type'] === 'term' && n['subType'] === 'namedNode' && typeof n['value'] === 'string') return checkIriNode(n, prefixes);
    // The prologue first: its prefixes apply to what follows it.
    if (Array.isArray(n['context'])) {
      const found = visit(n['context']);
      if (found) return found;
    }
    for (const key of Object.keys(n)) {
      if (key === 'loc' || key === 'context') continue;
      const found = visit(n[key]);
      if (found) return found;
    }
    if (n['type'] === 'contextDef' && n['subType'] === 'prefix' && typeof n['key'] === 'string') {
      prefixes.set(n['key'], String((n['value'] as Record<string, unknown> | undefined)?.['value'] ?? ''));
    }
    return undefined;
  };
  return visit(ast);
}

function checkIriNode(node: Record<string, unknown>, prefixes: Map<string, string>): InvalidIri | undefined {
  const value = node['value'] as string;
  const prefix = node['prefix'];
  let iri = value;
  if (typeof prefix === 'string') {
    const namespace = prefixes.get(prefix);
    // An undeclared prefix is the parser's to report.
    if (namespace === undefined) return undefined;
    iri = namespace + unescapeLocalName(value);
  }
  const reason = iriReferenceError(iri);
  return reason === undefined ? undefined : { iri, reason, node };
}

/** The parser keeps a local name's `\` escapes (PN_LOCAL_ESC); the IRI has the characters. */
function unescapeLocalName(local: string): string {
  return local.includes('\\') ? local.replace(/\\(.)/g, '$1') : local;
}

let positionParser: Parser | undefined;

/** The same parse, with each node's place in the text. Only for reporting, so made on first use. */
function parseWithPositions(text: string, baseIri?: string): unknown {
  positionParser ??= new Parser({ lexerConfig: { positionTracking: 'full' }, defaultContext: { astFactory: new AstFactory({ tracksSourceLocation: true }) } });
  try {
    return baseIri === undefined ? positionParser.parse(text) : positionParser.parse(text, { baseIRI: baseIri } as never);
  } catch {
    return undefined;
  }
}

function sourceStart(node: Record<string, unknown>): number | undefined {
  const loc = node['loc'] as { sourceLocationType?: string; start?: number } | undefined;
  return loc?.sourceLocationType === 'source' && typeof loc.start === 'number' ? loc.start : undefined;
}
