/**
 * The two facts the runner needs from a query's text before it runs it: which files its
 * FROM / FROM NAMED clauses name (the runner loads them, since the engine fetches nothing), and
 * which variables its top-level ORDER BY sorts on (to know how strictly to compare the order).
 * Read from the text with a light scanner on purpose: the runner must not depend on the parser
 * it is testing.
 */

/**
 * The query with comments blanked out and the contents of string literals replaced by spaces, so
 * keywords can be searched for safely. IRIs stay as they are. Offsets are preserved.
 */
export function maskQuery(text: string): string {
  let out = '';
  let at = 0;
  while (at < text.length) {
    const c = text[at];
    if (c === '#') {
      const end = text.indexOf('\n', at);
      const stop = end < 0 ? text.length : end;
      out += ' '.repeat(stop - at);
      at = stop;
    } else if (c === '"' || c === "'") {
      const long = text.startsWith(c.repeat(3), at);
      const delimiter = long ? c.repeat(3) : c;
      let end = at + delimiter.length;
      while (end < text.length && !text.startsWith(delimiter, end)) end += text[end] === '\\' ? 2 : 1;
      end = Math.min(text.length, end + delimiter.length);
      out += delimiter + ' '.repeat(Math.max(0, end - at - 2 * delimiter.length)) + delimiter;
      at = end;
    } else if (c === '<') {
      const iri = /^<[^<>"{}|^`\\\s]*>/.exec(text.slice(at, at + 4096));
      const length = iri ? iri[0].length : 1;
      out += text.slice(at, at + length);
      at += length;
    } else {
      out += c;
      at++;
    }
  }
  return out;
}

/** Masked text with everything inside braces blanked: what is left is the query's top level. */
function topLevel(masked: string): string {
  let depth = 0;
  let out = '';
  for (const c of masked) {
    if (c === '{') depth++;
    out += depth > 0 ? ' ' : c;
    if (c === '}') depth = Math.max(0, depth - 1);
  }
  return out;
}

function prefixesOf(masked: string): Map<string, string> {
  const prefixes = new Map<string, string>();
  for (const m of masked.matchAll(/\bPREFIX\s+([\w.-]*):\s*<([^>]*)>/gi)) prefixes.set(m[1], m[2]);
  return prefixes;
}

function baseOf(masked: string, documentBase: string): string {
  const declared = /\bBASE\s*<([^>]*)>/i.exec(masked);
  return declared ? resolveIri(declared[1], documentBase) : documentBase;
}

function resolveIri(iri: string, base: string): string {
  try {
    return new URL(iri, base).href;
  } catch {
    return iri;
  }
}

export interface QueryDataset {
  from: string[];
  fromNamed: string[];
}

/** The IRIs of the query's FROM and FROM NAMED clauses, resolved against its base. */
export function datasetOfQuery(query: string, documentBase: string): QueryDataset {
  const masked = maskQuery(query);
  const prefixes = prefixesOf(masked);
  const base = baseOf(masked, documentBase);
  const dataset: QueryDataset = { from: [], fromNamed: [] };
  for (const m of topLevel(masked).matchAll(/\bFROM\s+(NAMED\s+)?(<[^>]*>|([\w.-]*):([\w.-]*))/gi)) {
    const iri = m[2].startsWith('<') ? resolveIri(m[2].slice(1, -1), base) : (prefixes.get(m[3]) ?? `${m[3]}:`) + m[4];
    (m[1] ? dataset.fromNamed : dataset.from).push(iri);
  }
  return dataset;
}

const ORDER_CONDITION = /^\s*(?:(?:ASC|DESC)\s*\(\s*[?$](\w+)\s*\)|[?$](\w+)|\(\s*[?$](\w+)\s*\))/i;

/**
 * How the top-level ORDER BY can be checked: the variables of its leading conditions that are
 * plain (possibly ASC/DESC) projected variables. Conditions after the first that is an expression
 * or an unprojected variable are left out, so rows tying on the kept keys may come in any order.
 * When not even the first condition is checkable the list is empty, and the comparison falls back
 * to the exact expected sequence (the suites' expression-ordered tests have no ties).
 * Undefined when the query has no top-level ORDER BY.
 */
export function orderKeysOf(query: string, projected: string[]): string[] | undefined {
  const top = topLevel(maskQuery(query));
  const orderBy = /\bORDER\s+BY\b/gi;
  let last: RegExpExecArray | null = null;
  for (let m = orderBy.exec(top); m; m = orderBy.exec(top)) last = m;
  if (!last) return undefined;
  let clause = top.slice(last.index + last[0].length);
  const end = /\b(LIMIT|OFFSET|VALUES)\b/i.exec(clause);
  if (end) clause = clause.slice(0, end.index);
  const keys: string[] = [];
  for (let m = ORDER_CONDITION.exec(clause); m; m = ORDER_CONDITION.exec(clause)) {
    const variable = m[1] ?? m[2] ?? m[3];
    if (!projected.includes(variable)) break;
    keys.push(variable);
    clause = clause.slice(m[0].length);
  }
  return keys;
}
