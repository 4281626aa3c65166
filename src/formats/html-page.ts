/**
 * The HTML5 page around result tables: head, query, summary. Everything that comes from outside
 * (query text, IRIs, literals, variable names, options) goes through {@link escapeHtml}; the page
 * has no inline script, and its only inline style is a nonce-carrying block.
 */
import { directionOf, type Term } from '../rdf/index.js';
import { XSD, xsd, rdf } from '../rdf/index.js';
import { escapeHtml } from './escaping.js';
import type { HtmlOptions } from './serializer.js';
import { portableBlankNodeLabel, unsupportedTerm } from './term-syntax.js';

/** Exported so the Content-Security-Policy can allow exactly this inline style by its hash. */
export const RESULT_PAGE_STYLE = `
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1b1b1b;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}
pre.query{background:#f5f5f5;padding:.75rem;overflow:auto;border-radius:4px}
table.results{border-collapse:collapse;font-size:.9rem}
table.results th,table.results td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
table.results th{background:#f0f0f0;position:sticky;top:0}
table.results tbody tr:nth-child(even){background:#fafafa}
.literal{white-space:pre-wrap}.lang,.datatype{color:#777;font-size:.85em}
.bnode{color:#795da3}.iri{word-break:break-all}
.summary{color:#555}.boolean{font-size:1.2rem;font-weight:bold}
`;

export function pageStart(options: HtmlOptions): string {
  if (options.frame !== undefined) return options.frame.start;
  const title = escapeHtml(options.title ?? 'Query results');
  let head =
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>' +
    title +
    '</title>\n';
  if (options.stylesheetHref !== undefined) {
    head += '<link rel="stylesheet" href="' + escapeHtml(options.stylesheetHref) + '">\n';
  } else if (options.nonce !== undefined) {
    head += '<style nonce="' + escapeHtml(options.nonce) + '">' + RESULT_PAGE_STYLE + '</style>\n';
  }
  let body = '</head>\n<body>\n<header><h1>' + title + '</h1></header>\n<main>\n';
  if (options.query !== undefined) {
    body += '<section class="query-text"><h2>Query</h2>\n<pre class="query"><code>' + escapeHtml(options.query) + '</code></pre></section>\n';
  }
  return head + body;
}

/** The summary line (count and, when known, time) and the end of the page. */
export function pageEnd(options: HtmlOptions, summary: string): string {
  let line = summary;
  if (options.elapsedMs !== undefined) line += ' in ' + formatMilliseconds(options.elapsedMs());
  if (options.frame !== undefined) return '<p class="summary">' + escapeHtml(line) + '</p>\n' + options.frame.end;
  let end = '<p class="summary">' + escapeHtml(line) + '</p>\n</main>\n';
  if (options.scriptHref !== undefined) {
    const nonce = options.nonce !== undefined ? ' nonce="' + escapeHtml(options.nonce) + '"' : '';
    end += '<script src="' + escapeHtml(options.scriptHref) + '"' + nonce + ' defer></script>\n';
  }
  return end + '</body>\n</html>\n';
}

function formatMilliseconds(ms: number): string {
  if (!Number.isFinite(ms)) return '? ms';
  return ms < 1000 ? ms.toFixed(ms < 10 ? 1 : 0) + ' ms' : (ms / 1000).toFixed(2) + ' s';
}

export function plural(count: number, singular: string, pluralForm: string): string {
  return count + ' ' + (count === 1 ? singular : pluralForm);
}

/** `<th>` cells for a header row. */
export function headerRow(names: string[]): string {
  let out = '<thead><tr>';
  for (const name of names) out += '<th>' + escapeHtml(name) + '</th>';
  return out + '</tr></thead>\n<tbody>\n';
}

const LINKABLE = /^https?:/i;

/** Shortens IRIs for display; the link target is always the full IRI. */
export type IriLabeler = (iri: string) => string;

const identity: IriLabeler = (iri) => iri;

/** Common datatypes are shown as xsd:… / rdf:…, whatever prefixes the query declared. */
function datatypeLabel(iri: string, label: IriLabeler): string {
  if (iri.startsWith(XSD)) return 'xsd:' + iri.slice(XSD.length);
  if (iri === rdf.langString) return 'rdf:langString';
  return label(iri);
}

/** One term as the content of a table cell. Only http(s) IRIs become links. */
export function htmlTerm(term: Term, label: IriLabeler = identity): string {
  switch (term.termType) {
    case 'NamedNode':
      return htmlIri(term.value, label(term.value));
    case 'BlankNode':
      return '<span class="bnode">_:' + escapeHtml(portableBlankNodeLabel(term.value)) + '</span>';
    case 'Literal': {
      const value = '<span class="literal">' + escapeHtml(term.value) + '</span>';
      if (term.language) {
        const direction = directionOf(term);
        return value + '<span class="lang">@' + escapeHtml(term.language) + (direction === undefined ? '' : '--' + direction) + '</span>';
      }
      const dt = term.datatype.value;
      if (dt === xsd.string) return value;
      const dtText = escapeHtml(datatypeLabel(dt, label));
      const dtHtml = LINKABLE.test(dt) ? '<a href="' + escapeHtml(dt) + '">' + dtText + '</a>' : dtText;
      return value + '<span class="datatype">^^' + dtHtml + '</span>';
    }
    case 'Quad':
      return (
        '<span class="triple">&lt;&lt;( ' +
        htmlTerm(term.subject, label) +
        ' ' +
        htmlTerm(term.predicate, label) +
        ' ' +
        htmlTerm(term.object, label) +
        ' )&gt;&gt;</span>'
      );
    default:
      throw unsupportedTerm(term);
  }
}

function htmlIri(iri: string, text: string): string {
  const escaped = escapeHtml(iri);
  const title = text === iri ? '' : ' title="' + escaped + '"';
  if (LINKABLE.test(iri)) return '<a class="iri" href="' + escaped + '"' + title + '>' + escapeHtml(text) + '</a>';
  return '<span class="iri"' + title + '>' + escapeHtml(text) + '</span>';
}
