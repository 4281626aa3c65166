/**
 * The query page ({base}/sparql/select in a browser): queries in tabs, each run kept in a history;
 * the answer as a table, a chart, a graph, the engine's plan or the raw response; download it;
 * share its address; open any resource of a result in a view of its own.
 */
import { chartData, ChartView } from './chart-view.js';
import { credentialsForm } from './credentials.js';
import { button, clear, el, formatDuration, plural } from './dom.js';
import { downloadButtons } from './downloads.js';
import { postForm } from './endpoint.js';
import { isExplanation, renderExplanation } from './explain-view.js';
import { GraphView } from './graph-view.js';
import { readPageData } from './page-data.js';
import { enhanceForm, showFailure } from './page-shell.js';
import { outcomeOf, readResponse, RESULT_ACCEPT, type QueryOutcome, type RawResponse } from './query-outcome.js';
import { QueryHistory } from './query-history.js';
import { QueryTabs, type QueryTab } from './query-tabs.js';
import { declaredPrefixes, PrefixShortener } from './rdf-terms.js';
import { targetFromHash } from './resource-address.js';
import { ResourceView } from './resource-view.js';
import { ResultsTable } from './results-table.js';
import { VocabularySource } from './vocabulary-index.js';
import { forgetQueryInLocation, queryFromLocation, rememberQueryInLocation } from './share-link.js';

type ViewName = 'table' | 'chart' | 'graph' | 'plan' | 'response';

/** What one tab shows: the last run of its query (and its plan), or nothing yet. */
interface TabResult {
  query: string;
  names: PrefixShortener;
  summary: string;
  outcome?: QueryOutcome;
  raw?: RawResponse;
  plan?: HTMLElement;
  view: ViewName;
}

/** The raw-response view shows this much; the whole answer is one download away. */
const RAW_LIMIT = 200_000;

const data = readPageData();
const endpoint = data.endpoints.select;
const credentials = credentialsForm(false, data.queryCredentials);
const results = new Map<string, TabResult>();
const vocabulary = new VocabularySource(data.vocabulary, () => credentials.read());
const shell = enhanceForm(
  data,
  'query',
  () => void run(),
  (text) => tabs.saveQuery(text),
  vocabulary,
);
const tabs = new QueryTabs(endpoint, shell.editor.text(), { onSwitch: showTab, onClose: (tab) => results.delete(tab.id) });
const history = new QueryHistory(endpoint, (query) => {
  shell.editor.setText(query);
  shell.editor.focus();
});
shell.toolbar.append(
  button('Explain', () => void explain(), 'explain'),
  el('span', { className: 'hint', text: 'Ctrl+Enter runs the query' }),
  button('Close all tabs', () => tabs.clearAll(), 'tabs-clear'),
);
document.getElementById('sparql-form')!.before(tabs.element);
shell.toolbar.after(credentials.element, history.element);

const viewTabs = new Map<ViewName, HTMLButtonElement>();
const viewBar = el('div', { className: 'tabs', attrs: { role: 'tablist', 'aria-label': 'Views of the result' } });
for (const [name, label] of [
  ['table', 'Table'],
  ['chart', 'Chart'],
  ['graph', 'Graph'],
  ['plan', 'Plan'],
  ['response', 'Response'],
] as const) {
  const tab = button(label, () => void showView(name), `tab tab-${name}`);
  tab.setAttribute('role', 'tab');
  tab.disabled = true;
  viewTabs.set(name, tab);
  viewBar.append(tab);
}
const downloads = el('div', { className: 'download-bar' });
const panel = el('div', { className: 'view-panel', attrs: { role: 'tabpanel' } });
const resultArea = el('section', { className: 'result-area', attrs: { 'aria-label': 'Result' } }, [
  el('div', { className: 'result-bar' }, [viewBar, downloads]),
  panel,
]);
const resourceArea = el('section', { className: 'resource-area', attrs: { 'aria-label': 'Resource' } });
resourceArea.hidden = true;
shell.main.append(resultArea, resourceArea);
// A results page (the query answered as HTML) brings its results: shown where results go, until the next run.
const serverResults = document.getElementById('query-results');
if (serverResults !== null) panel.append(serverResults);

let closeView: () => void = () => {};
const resourceView = new ResourceView(resourceArea, {
  endpoint,
  credentials: () => credentials.read(),
  names: () => namesFor(shell.editor.text()),
  onError: (error) => showFailure(shell, error, () => credentials.show()),
  unionDefaultGraph: data.unionDefaultGraph,
});

function namesFor(query: string): PrefixShortener {
  return new PrefixShortener({ ...data.prefixes, ...declaredPrefixes(query) });
}

async function run(): Promise<void> {
  const tab = tabs.active;
  const query = shell.editor.text();
  shell.editor.clearError();
  shell.status.busy('Running…');
  const started = performance.now();
  try {
    const raw = await readResponse(await postForm(endpoint, { query }, RESULT_ACCEPT, credentials.read()));
    const outcome = outcomeOf(raw);
    const summary = summaryOf(outcome, performance.now() - started);
    results.set(tab.id, { query, outcome, raw, names: namesFor(query), summary, view: 'table' });
    history.add(query, summary);
    if (tabs.active.id !== tab.id) return;
    rememberQueryInLocation(query);
    shell.status.success(summary);
    await showResult();
  } catch (error) {
    failed(tab, error);
  }
}

async function explain(): Promise<void> {
  const tab = tabs.active;
  const query = shell.editor.text();
  shell.editor.clearError();
  shell.status.busy('Running the query for its plan…');
  try {
    const response = await postForm(endpoint, { query, explain: 'true' }, 'application/json', credentials.read());
    const explanation: unknown = await response.json();
    if (!isExplanation(explanation)) throw new Error('the server answered without a plan: it does not support explain');
    const previous = results.get(tab.id);
    const kept = previous?.query === query ? previous : { query, names: namesFor(query), summary: '' };
    const plan = el('div', { className: 'plan-view' });
    renderExplanation(plan, explanation, kept.names);
    const summary = `Plan of a query that gave ${plural(explanation.resultRows, 'row', 'rows')} in ${formatDuration(explanation.totalTimeMs)}`;
    results.set(tab.id, { ...kept, plan, summary, view: 'plan' });
    if (tabs.active.id !== tab.id) return;
    shell.status.success(summary);
    await showResult();
  } catch (error) {
    failed(tab, error);
  }
}

/** A failed run leaves no earlier result or plan under its message: they answered another text. */
function failed(tab: QueryTab, error: unknown): void {
  results.delete(tab.id);
  if (tabs.active.id !== tab.id) return;
  clearResult();
  showFailure(shell, error, () => credentials.show());
}

function summaryOf(outcome: QueryOutcome, elapsed: number): string {
  const time = formatDuration(elapsed);
  switch (outcome.kind) {
    case 'bindings':
      return `${plural(outcome.rows.length, 'row', 'rows')} in ${time}`;
    case 'triples':
      return `${plural(outcome.triples.length, 'triple', 'triples')} in ${time}`;
    case 'boolean':
      return `Answer: ${outcome.value} in ${time}`;
  }
}

function clearResult(): void {
  closeView();
  closeView = () => {};
  clear(panel);
  clear(downloads);
  delete panel.dataset['view'];
  for (const tab of viewTabs.values()) {
    tab.disabled = true;
    tab.setAttribute('aria-selected', 'false');
  }
}

/** Another tab became active: its text in the editor, its result (if any) below. */
function showTab(tab: QueryTab): void {
  shell.editor.setText(tab.query);
  shell.editor.clearError();
  const result = results.get(tab.id);
  if (result === undefined) {
    shell.status.reset();
    clearResult();
    forgetQueryInLocation();
  } else {
    shell.status.success(result.summary);
    rememberQueryInLocation(result.query);
    void showResult();
  }
  shell.editor.focus();
}

async function showResult(): Promise<void> {
  const result = results.get(tabs.active.id);
  if (result === undefined) return clearResult();
  const { outcome, query } = result;
  if (outcome === undefined) clear(downloads);
  else showDownloads(query, outcome);
  viewTabs.get('table')!.disabled = outcome === undefined;
  viewTabs.get('chart')!.disabled = outcome?.kind !== 'bindings' || chartData(outcome.variables, outcome.rows, result.names) === undefined;
  viewTabs.get('graph')!.disabled = outcome?.kind !== 'triples' || outcome.triples.length === 0;
  viewTabs.get('plan')!.disabled = result.plan === undefined;
  viewTabs.get('response')!.disabled = result.raw === undefined;
  await showView(result.view);
}

function showDownloads(query: string, outcome: QueryOutcome): void {
  const formats = outcome.kind === 'triples' ? data.downloads.rdf : data.downloads.results;
  downloads.replaceChildren(
    downloadButtons(formats, {
      endpoint,
      query,
      credentials: () => credentials.read(),
      onError: (error) => showFailure(shell, error, () => credentials.show()),
    }),
  );
}

async function showView(name: ViewName): Promise<void> {
  const result = results.get(tabs.active.id);
  if (result === undefined) return;
  result.view = name;
  closeView();
  closeView = () => {};
  for (const [tabName, tab] of viewTabs) tab.setAttribute('aria-selected', String(tabName === name));
  panel.dataset['view'] = name;
  clear(panel);
  const { outcome, names } = result;
  if (name === 'plan' && result.plan !== undefined) {
    panel.append(result.plan);
  } else if (name === 'response' && result.raw !== undefined) {
    panel.append(rawView(result.raw));
  } else if (outcome?.kind === 'boolean') {
    panel.append(el('p', { className: 'boolean', text: String(outcome.value) }));
  } else if (name === 'table' && outcome?.kind === 'bindings') {
    new ResultsTable(
      panel,
      outcome.variables.map((v) => `?${v}`),
      outcome.rows,
      names,
    );
  } else if (name === 'table' && outcome?.kind === 'triples') {
    new ResultsTable(panel, ['Subject', 'Predicate', 'Object'], outcome.triples, names, true);
  } else if (name === 'chart' && outcome?.kind === 'bindings') {
    const view = new ChartView(panel, chartData(outcome.variables, outcome.rows, names)!);
    closeView = () => view.destroy();
    await view.show();
  } else if (name === 'graph' && outcome?.kind === 'triples') {
    const view = new GraphView(panel, outcome.triples, names, { endpoint, credentials: () => credentials.read() });
    closeView = () => view.destroy();
    await view.show();
  }
}

/** The answer as the server wrote it, as text (never as markup). */
function rawView(raw: RawResponse): HTMLElement {
  const cut = raw.text.length > RAW_LIMIT;
  const note = `${raw.contentType}, ${plural(raw.text.length, 'character', 'characters')}${cut ? `; the first ${RAW_LIMIT.toLocaleString('en')} shown (download the rest)` : ''}`;
  return el('div', { className: 'raw-response' }, [
    el('p', { className: 'note', text: note }),
    el('pre', { className: 'raw', text: cut ? raw.text.slice(0, RAW_LIMIT) : raw.text }),
  ]);
}

/** The address decides: a resource's view, or the query tabs with their results. */
function route(): void {
  const target = targetFromHash(location.hash);
  resourceArea.hidden = target === undefined;
  resultArea.hidden = target !== undefined;
  if (target !== undefined) void resourceView.show(target);
}
window.addEventListener('hashchange', route);

const sharedQuery = queryFromLocation();
const opened = sharedQuery ?? (serverResults !== null ? shell.editor.text() : undefined);
if (opened !== undefined && opened !== tabs.active.query) {
  // A shared address or a results page brings its query: to the tab that holds it, or to a tab of
  // its own (this one when it is empty).
  const holder = tabs.all.find((tab) => tab.query === opened);
  if (holder !== undefined) tabs.switchTo(holder.id);
  else if (tabs.active.query.trim() === '') tabs.saveQuery(opened);
  else tabs.open(opened);
}
shell.editor.setText(tabs.active.query);
if (serverResults !== null) panel.append(serverResults);
if (sharedQuery !== undefined) void run();
route();
// The store's vocabulary is fetched while the page is read, not when the first completion needs it.
vocabulary.current();
shell.editor.focus();
