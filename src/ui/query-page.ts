/**
 * The query page ({base}/sparql/select in a browser): edit, run, and look at the answer as a table,
 * a chart, a graph or the engine's plan; download it; share its address.
 */
import { chartData, ChartView } from './chart-view.js';
import { credentialsForm } from './credentials.js';
import { button, clear, el, formatDuration, plural } from './dom.js';
import { downloadButtons, RDF_DOWNLOADS, RESULT_DOWNLOADS } from './downloads.js';
import { postForm } from './endpoint.js';
import { isExplanation, renderExplanation } from './explain-view.js';
import { GraphView } from './graph-view.js';
import { readPageData } from './page-data.js';
import { enhanceForm, showFailure } from './page-shell.js';
import { readOutcome, RESULT_ACCEPT, type QueryOutcome } from './query-outcome.js';
import { declaredPrefixes, PrefixShortener } from './rdf-terms.js';
import { ResultsTable } from './results-table.js';
import { queryFromLocation, rememberQueryInLocation } from './share-link.js';

type ViewName = 'table' | 'chart' | 'graph' | 'plan';

interface Shown {
  query: string;
  outcome?: QueryOutcome;
  names: PrefixShortener;
}

const data = readPageData();
const endpoint = data.endpoints.select;
const credentials = credentialsForm(false, data.queryCredentials);
const shell = enhanceForm(data, 'query', () => void run());
shell.toolbar.append(button('Explain', () => void explain(), 'explain'), el('span', { className: 'hint', text: 'Ctrl+Enter runs the query' }));
shell.toolbar.after(credentials.element);

const tabs = new Map<ViewName, HTMLButtonElement>();
const tabBar = el('div', { className: 'tabs', attrs: { role: 'tablist' } });
for (const [name, label] of [['table', 'Table'], ['chart', 'Chart'], ['graph', 'Graph'], ['plan', 'Plan']] as const) {
  const tab = button(label, () => void showView(name), `tab tab-${name}`);
  tab.setAttribute('role', 'tab');
  tab.disabled = true;
  tabs.set(name, tab);
  tabBar.append(tab);
}
const downloads = el('div', { className: 'download-bar' });
const panel = el('div', { className: 'view-panel', attrs: { role: 'tabpanel' } });
shell.main.append(el('div', { className: 'result-bar' }, [tabBar, downloads]), panel);
// A results page (the query answered as HTML) brings its results: shown where results go, until the next run.
const serverResults = document.getElementById('query-results');
if (serverResults !== null) panel.append(serverResults);

let shown: Shown | undefined;
let closeView: () => void = () => {};
let planOf: string | undefined;
let planPanel: HTMLElement | undefined;

function namesFor(query: string): PrefixShortener {
  return new PrefixShortener({ ...data.prefixes, ...declaredPrefixes(query) });
}

async function run(): Promise<void> {
  const query = shell.editor.text();
  shell.editor.clearError();
  shell.status.busy('Running…');
  const started = performance.now();
  try {
    const response = await postForm(endpoint, { query }, RESULT_ACCEPT, credentials.read());
    const outcome = await readOutcome(response);
    const elapsed = performance.now() - started;
    rememberQueryInLocation(query);
    shown = { query, outcome, names: namesFor(query) };
    planOf = undefined;
    shell.status.success(summaryOf(outcome, elapsed));
    showDownloads(query, outcome);
    enableTabs();
    await showView('table');
  } catch (error) {
    showFailure(shell, error, () => credentials.show());
  }
}

async function explain(): Promise<void> {
  const query = shell.editor.text();
  shell.editor.clearError();
  shell.status.busy('Running the query for its plan…');
  try {
    const response = await postForm(endpoint, { query, explain: 'true' }, 'application/json', credentials.read());
    const explanation: unknown = await response.json();
    if (!isExplanation(explanation)) throw new Error('the server answered without a plan: it does not support explain');
    if (shown?.query !== query) shown = { query, names: namesFor(query) };
    planOf = query;
    planPanel = el('div', { className: 'plan-view' });
    renderExplanation(planPanel, explanation);
    shell.status.success(`Plan of a query that gave ${plural(explanation.resultRows, 'row', 'rows')} in ${formatDuration(explanation.totalTimeMs)}`);
    if (shown.outcome === undefined) clear(downloads);
    enableTabs();
    await showView('plan');
  } catch (error) {
    showFailure(shell, error, () => credentials.show());
  }
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

function showDownloads(query: string, outcome: QueryOutcome): void {
  const formats = outcome.kind === 'triples' ? RDF_DOWNLOADS : RESULT_DOWNLOADS.slice(0, outcome.kind === 'boolean' ? 2 : undefined);
  downloads.replaceChildren(
    downloadButtons(formats, { endpoint, query, credentials: () => credentials.read(), onError: (error) => showFailure(shell, error, () => credentials.show()) }),
  );
}

function enableTabs(): void {
  const outcome = shown?.outcome;
  tabs.get('table')!.disabled = outcome === undefined;
  tabs.get('chart')!.disabled = outcome?.kind !== 'bindings' || chartData(outcome.variables, outcome.rows, shown!.names) === undefined;
  tabs.get('graph')!.disabled = outcome?.kind !== 'triples' || outcome.triples.length === 0;
  tabs.get('plan')!.disabled = planOf === undefined || planOf !== shown?.query;
}

async function showView(name: ViewName): Promise<void> {
  if (shown === undefined) return;
  closeView();
  closeView = () => {};
  for (const [tabName, tab] of tabs) tab.setAttribute('aria-selected', String(tabName === name));
  panel.dataset['view'] = name;
  clear(panel);
  const { outcome, names } = shown;
  if (name === 'plan' && planPanel !== undefined) {
    panel.append(planPanel);
  } else if (outcome?.kind === 'boolean') {
    panel.append(el('p', { className: 'boolean', text: String(outcome.value) }));
  } else if (name === 'table' && outcome?.kind === 'bindings') {
    new ResultsTable(panel, outcome.variables.map((v) => `?${v}`), outcome.rows, names);
  } else if (name === 'table' && outcome?.kind === 'triples') {
    new ResultsTable(panel, ['Subject', 'Predicate', 'Object'], outcome.triples, names);
  } else if (name === 'chart' && outcome?.kind === 'bindings') {
    const view = new ChartView(panel, chartData(outcome.variables, outcome.rows, names)!);
    closeView = () => view.destroy();
    await view.show();
  } else if (name === 'graph' && outcome?.kind === 'triples') {
    const view = new GraphView(panel, outcome.triples, names);
    closeView = () => view.destroy();
    await view.show();
  }
}

const sharedQuery = queryFromLocation();
if (sharedQuery !== undefined) {
  shell.editor.setText(sharedQuery);
  void run();
}
shell.editor.focus();
