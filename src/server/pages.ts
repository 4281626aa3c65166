/**
 * The HTML query and update pages a browser gets on a GET without a request. Plain forms, no
 * script: they work under the strict Content-Security-Policy every HTML response carries.
 */
import { escapeHtml, htmlPage } from './html.js';

export interface PagePaths {
  select: string;
  update: string;
}

const EXAMPLE_QUERY = 'SELECT * WHERE {\n  ?s ?p ?o\n}\nLIMIT 10';
const EXAMPLE_UPDATE = 'PREFIX ex: <http://example.org/>\nINSERT DATA {\n  ex:subject ex:predicate "object"\n}';

const QUERY_OUTPUTS: [string, string][] = [
  ['html', 'HTML table'],
  ['json', 'JSON (SPARQL results / JSON-LD)'],
  ['xml', 'XML (SPARQL results / RDF/XML)'],
  ['csv', 'CSV (SELECT only)'],
  ['tsv', 'TSV (SELECT only)'],
  ['turtle', 'Turtle (CONSTRUCT / DESCRIBE)'],
  ['ntriples', 'N-Triples (CONSTRUCT / DESCRIBE)'],
];

function navigation(paths: PagePaths): string {
  return `<nav><a href="${escapeHtml(paths.select)}">Query</a><a href="${escapeHtml(paths.update)}">Update</a></nav>`;
}

export function queryPage(paths: PagePaths, query = EXAMPLE_QUERY): string {
  const options = QUERY_OUTPUTS.map(([value, label]) => `<option value="${value}">${escapeHtml(label)}</option>`).join('');
  return htmlPage(
    'SPARQL query',
    `${navigation(paths)}
<h1>SPARQL query</h1>
<form method="post" action="${escapeHtml(paths.select)}" accept-charset="utf-8">
<textarea name="query" rows="14" spellcheck="false" aria-label="SPARQL query">${escapeHtml(query)}</textarea>
<div class="controls">
<label>Results as <select name="output">${options}</select></label>
<button type="submit">Run</button>
</div>
</form>`,
  );
}

export function updatePage(paths: PagePaths, update = EXAMPLE_UPDATE): string {
  return htmlPage(
    'SPARQL update',
    `${navigation(paths)}
<h1>SPARQL update</h1>
<form method="post" action="${escapeHtml(paths.update)}" accept-charset="utf-8">
<textarea name="update" rows="14" spellcheck="false" aria-label="SPARQL update">${escapeHtml(update)}</textarea>
<input type="hidden" name="output" value="html">
<div class="controls">
<button type="submit">Run</button>
<span>An empty page means the update was carried out.</span>
</div>
</form>`,
  );
}
