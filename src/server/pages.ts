/**
 * The HTML query and update pages a browser gets on a GET without a request. Each is a plain form
 * that works without script, enhanced by the bundled page script (src/ui/) when it was built: an
 * editor, results, charts, graphs and plans. Server data reaches the script through a JSON data
 * block, never through inline script, so the page's policy allows scripts from this origin only.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { HandlerContext } from './handler-context.js';
import { escapeHtml, htmlPage, jsonForScriptBlock, pageContentSecurityPolicy } from './html.js';
import { KNOWN_PREFIXES, QUERY_EXAMPLES, UPDATE_EXAMPLES, type Example } from './page-examples.js';
import { uiAssets, type UiAssets } from './ui-assets.js';
import { downloadChoices, outputChoices, type DownloadChoice, type QueryKind } from '../formats/index.js';

export interface PagePaths {
  select: string;
  update: string;
}

/** What the page needs to know beyond its paths. */
export interface PageOptions {
  /** The bundled assets; without them (UI not built) the page is the plain form. */
  assets?: UiAssets;
  /** Queries need credentials (a bearer token). */
  queryCredentials?: boolean;
  /** Updates need credentials (a bearer token, or a user and password). */
  updateCredentials?: boolean;
  /** The service's default graph is the union of all graphs. */
  unionDefaultGraph?: boolean;
}

/** A page and the Content-Security-Policy it must be sent with (it names the page's nonce). */
export interface RenderedPage {
  html: string;
  contentSecurityPolicy: string;
}

/** What the page script reads from the data block (src/ui/page-data.ts mirrors it). */
interface PageData {
  page: 'query' | 'update';
  endpoints: PagePaths;
  prefixes: Record<string, string>;
  /** Where the store's vocabulary is, for completion (store-vocabulary.ts). */
  vocabulary: string;
  examples: Example[];
  queryCredentials: boolean;
  updateCredentials: boolean;
  /** For the editor's run-time styles: the nonce the policy allows. */
  styleNonce: string;
  /** Queries read the union of all graphs as their default graph (quiver serve --union-default-graph). */
  unionDefaultGraph: boolean;
  /** The formats a result can be saved in, by kind (the table of formats says which). */
  downloads: Record<QueryKind, DownloadChoice[]>;
}

/** Each page links the other; the current one is marked for assistive technology and the style. */
function navigation(paths: PagePaths, current: PageData['page']): string {
  const link = (page: PageData['page'], href: string, label: string): string =>
    `<a href="${escapeHtml(href)}"${page === current ? ' aria-current="page"' : ''}>${label}</a>`;
  return `<nav>${link('query', paths.select, 'Query')}${link('update', paths.update, 'Update')}</nav>`;
}

export function queryPage(paths: PagePaths, options: PageOptions = {}, query = QUERY_EXAMPLES[0]!.text): RenderedPage {
  return enhancedPage('SPARQL query', 'query', paths, options, queryForm(paths, query));
}

/**
 * The query page around a query's HTML results: the same page as {@link queryPage}, its editor
 * holding the query, split where the results go so that they can stream between its two halves.
 * The results sit in `<section id="query-results">`, which the page script shows in its result view.
 */
export interface ResultsPageFrame {
  /** Everything up to and including the opening of the results section. */
  start: string;
  /** The closing of the results section and the rest of the page. */
  end: string;
  contentSecurityPolicy: string;
}

export function queryResultsFrame(paths: PagePaths, options: PageOptions, query: string): ResultsPageFrame {
  const page = enhancedPage('SPARQL query', 'query', paths, options, queryForm(paths, query) + RESULTS_SLOT);
  const slot = page.html.indexOf(RESULTS_SLOT);
  return {
    start: page.html.slice(0, slot) + '\n<section id="query-results" class="query-results" aria-label="Results">\n',
    end: '</section>' + page.html.slice(slot + RESULTS_SLOT.length),
    contentSecurityPolicy: page.contentSecurityPolicy,
  };
}

/** Where the results go. Unique in the page: every other `<` of it is markup, escaped text has none. */
const RESULTS_SLOT = '<!--quiver-results-->';

/**
 * The plain form: without script it posts the query and gets the results page back. The newline
 * after `<textarea>` is dropped by the HTML parser, so a query that starts with one keeps it.
 */
function queryForm(paths: PagePaths, query: string): string {
  const outputs = outputChoices()
    .map(({ name, label }) => `<option value="${name}">${escapeHtml(label)}</option>`)
    .join('');
  return `<form id="sparql-form" method="post" action="${escapeHtml(paths.select)}" accept-charset="utf-8">
<textarea name="query" rows="14" spellcheck="false" aria-label="SPARQL query">\n${escapeHtml(query)}</textarea>
<div class="controls">
<label>Results as <select name="output">${outputs}</select></label>
<button type="submit">Run</button>
</div>
</form>`;
}

export function updatePage(paths: PagePaths, options: PageOptions = {}, update = UPDATE_EXAMPLES[0]!.text): RenderedPage {
  const form = `<form id="sparql-form" method="post" action="${escapeHtml(paths.update)}" accept-charset="utf-8">
<textarea name="update" rows="14" spellcheck="false" aria-label="SPARQL update">${escapeHtml(update)}</textarea>
<input type="hidden" name="output" value="html">
<div class="controls">
<button type="submit">Run</button>
<span class="no-script-note">An empty page means the update was carried out.</span>
</div>
</form>`;
  return enhancedPage('SPARQL update', 'update', paths, options, form);
}

function enhancedPage(title: string, page: PageData['page'], paths: PagePaths, options: PageOptions, form: string): RenderedPage {
  const nonce = randomBytes(16).toString('base64');
  const script = options.assets?.href(`${page}.js`);
  const stylesheet = options.assets?.href('quiver.css');
  const data: PageData = {
    page,
    endpoints: paths,
    prefixes: KNOWN_PREFIXES,
    vocabulary: paths.select.replace(/\/select$/, '/vocabulary'),
    examples: page === 'query' ? QUERY_EXAMPLES : UPDATE_EXAMPLES,
    queryCredentials: options.queryCredentials ?? false,
    updateCredentials: options.updateCredentials ?? false,
    styleNonce: nonce,
    unionDefaultGraph: options.unionDefaultGraph ?? false,
    downloads: downloadChoices(),
  };
  const scripts =
    script === undefined
      ? ''
      : `\n<div id="app"></div>
<script type="application/json" id="quiver-page-data">${jsonForScriptBlock(data)}</script>
<script type="module" src="${escapeHtml(script)}"></script>`;
  const html = htmlPage(title, `${navigation(paths, page)}\n<h1>${escapeHtml(title)}</h1>\n${form}${scripts}`, {
    nonce,
    // An empty icon: browsers would otherwise ask for /favicon.ico and log its 404.
    headMarkup: `<link rel="icon" href="data:,">\n${stylesheet === undefined ? '' : `<link rel="stylesheet" href="${escapeHtml(stylesheet)}">\n`}`,
  });
  return { html, contentSecurityPolicy: pageContentSecurityPolicy(nonce) };
}

/** The page options of a running server: its assets and which requests need credentials. */
export function pageOptionsFor(context: HandlerContext): PageOptions {
  return {
    assets: uiAssets(context.config.basePath),
    queryCredentials: context.config.authorizeQuery !== undefined,
    updateCredentials: context.config.authorizeUpdate !== undefined,
    unionDefaultGraph: context.service.unionDefaultGraph === true,
  };
}

export function sendPage(reply: FastifyReply, page: RenderedPage): FastifyReply {
  return reply.type('text/html; charset=utf-8').header('content-security-policy', page.contentSecurityPolicy).send(page.html);
}
