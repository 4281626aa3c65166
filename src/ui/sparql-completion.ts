/**
 * Completions while typing: the server's known prefixes and those of the store's data (choosing one
 * also declares it at the top when the text does not yet), the SPARQL keywords, and after `prefix:`
 * the store's classes and properties in that namespace, the most used first.
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import type { EditorView } from '@codemirror/view';
import { declaredPrefixes } from './rdf-terms.js';
import type { VocabularySource } from './vocabulary-index.js';

const KEYWORDS = [
  'SELECT',
  'CONSTRUCT',
  'DESCRIBE',
  'ASK',
  'WHERE',
  'PREFIX',
  'BASE',
  'DISTINCT',
  'REDUCED',
  'FROM',
  'NAMED',
  'OPTIONAL',
  'FILTER',
  'UNION',
  'MINUS',
  'GRAPH',
  'SERVICE',
  'BIND',
  'VALUES',
  'GROUP BY',
  'ORDER BY',
  'HAVING',
  'LIMIT',
  'OFFSET',
  'ASC',
  'DESC',
  'COUNT',
  'SUM',
  'MIN',
  'MAX',
  'AVG',
  'SAMPLE',
  'GROUP_CONCAT',
  'EXISTS',
  'NOT EXISTS',
  'INSERT',
  'DELETE',
  'INSERT DATA',
  'DELETE DATA',
  'DELETE WHERE',
  'WITH',
  'USING',
  'LOAD',
  'CLEAR',
  'DROP',
  'CREATE',
  'ADD',
  'MOVE',
  'COPY',
  'SILENT',
  'DEFAULT',
  'ALL',
  'STR',
  'LANG',
  'LANGMATCHES',
  'DATATYPE',
  'BOUND',
  'IRI',
  'REGEX',
  'CONTAINS',
  'STRSTARTS',
  'STRENDS',
  'LCASE',
  'UCASE',
  'CONCAT',
  'COALESCE',
  'IF',
];

export function sparqlCompletions(knownPrefixes: Record<string, string>, vocabulary?: VocabularySource): CompletionSource {
  const keywordOptions: Completion[] = KEYWORDS.map((keyword) => ({ label: keyword, type: 'keyword', boost: -1 }));
  return (context: CompletionContext): CompletionResult | null => {
    const index = vocabulary?.current();
    const terms = termCompletions(context, knownPrefixes, index);
    if (terms !== undefined) return terms;
    // The data's prefixes besides the known ones; a known name keeps its known namespace.
    const prefixes = { ...index?.prefixes, ...knownPrefixes };
    const word = context.matchBefore(/[A-Za-z][\w-]*:?|[A-Za-z]?/);
    if (word === null || (word.from === word.to && !context.explicit)) return null;
    const before = context.state.sliceDoc(Math.max(0, word.from - 1), word.from);
    // Inside a variable, a prefixed name's local part or an IRI: nothing to offer.
    if (before === '?' || before === '$' || before === ':' || insideIri(context, word.from)) return null;
    const afterPrefixKeyword = /PREFIX\s+$/i.test(context.state.sliceDoc(Math.max(0, word.from - 20), word.from));
    const prefixOptions = Object.entries(prefixes).map(([prefix, namespace]) =>
      afterPrefixKeyword ? declarationOption(prefix, namespace) : prefixedNameOption(prefix, namespace),
    );
    return {
      from: word.from,
      options: afterPrefixKeyword ? prefixOptions : [...prefixOptions, ...keywordOptions],
      validFor: /^[\w-]*:?$/,
    };
  };
}

/**
 * After `prefix:` (declared in the text, or known): the namespace's classes and properties, matched
 * against the local part typed so far; classes first after `a` or `rdf:type`.
 */
function termCompletions(
  context: CompletionContext,
  known: Record<string, string>,
  index: ReturnType<VocabularySource['current']>,
): CompletionResult | null | undefined {
  const name = context.matchBefore(/(?:^|[^\w:?$<"'-])([A-Za-z][\w.-]*)?:[\w-]*$/);
  if (name === null || index === undefined) return undefined;
  const text = name.text.replace(/^[^\w:]/, '');
  const colon = text.indexOf(':');
  const prefix = text.slice(0, colon);
  const namespace = declaredPrefixes(context.state.doc.toString())[prefix] ?? known[prefix] ?? index.prefixes[prefix];
  if (namespace === undefined || insideIri(context, name.to)) return undefined;
  const start = name.to - (text.length - colon - 1);
  const before = context.state.sliceDoc(Math.max(0, name.to - text.length - 40), name.to - text.length);
  const classExpected = /(?:\ba|rdf:type|<http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type>)\s+$/.test(before);
  const options = index.termsIn(namespace, classExpected);
  if (options.length === 0) return null;
  return { from: start, options, validFor: /^[\w-]*$/ };
}

function insideIri(context: CompletionContext, at: number): boolean {
  const line = context.state.doc.lineAt(at);
  const text = context.state.sliceDoc(line.from, at);
  return text.lastIndexOf('<') > text.lastIndexOf('>') && !/[\s=!]$/.test(text.slice(0, text.lastIndexOf('<') + 1));
}

/** After PREFIX: the whole declaration. */
function declarationOption(prefix: string, namespace: string): Completion {
  return { label: `${prefix}:`, detail: `<${namespace}>`, type: 'namespace', apply: `${prefix}: <${namespace}>` };
}

/** Elsewhere: the prefix, declared at the top when the text lacks it. */
function prefixedNameOption(prefix: string, namespace: string): Completion {
  return {
    label: `${prefix}:`,
    detail: namespace,
    type: 'namespace',
    apply: (view: EditorView, _completion: Completion, from: number, to: number) => {
      const text = view.state.doc.toString();
      const declared = new RegExp(`PREFIX\\s+${prefix}:`, 'i').test(text);
      const declaration = declared ? [] : [{ from: declarationPosition(text), insert: `PREFIX ${prefix}: <${namespace}>\n` }];
      const changes = view.state.changes([{ from, to, insert: `${prefix}:` }, ...declaration]);
      view.dispatch({ changes, selection: { anchor: changes.mapPos(to, 1) }, userEvent: 'input.complete' });
    },
  };
}

/** After the PREFIX and BASE lines that open the text. */
function declarationPosition(text: string): number {
  const prologue = /^(?:\s*(?:#[^\n]*|PREFIX\s+[\w-]*:\s*<[^>]*>|BASE\s*<[^>]*>))*[ \t]*\n?/i.exec(text);
  return prologue?.[0].length ?? 0;
}
