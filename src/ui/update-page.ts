/** The update page ({base}/sparql/update in a browser): edit, run, and a clear outcome. */
import { credentialsForm } from './credentials.js';
import { el, formatDuration } from './dom.js';
import { postForm } from './endpoint.js';
import { readPageData } from './page-data.js';
import { enhanceForm, showFailure } from './page-shell.js';

const data = readPageData();
const credentials = credentialsForm(true, data.updateCredentials);
const shell = enhanceForm(data, 'update', () => void run());
shell.toolbar.append(el('span', { className: 'hint', text: 'Ctrl+Enter runs the update' }));
shell.toolbar.after(credentials.element);

async function run(): Promise<void> {
  shell.editor.clearError();
  shell.status.busy('Running…');
  const started = performance.now();
  try {
    const response = await postForm(data.endpoints.update, { update: shell.editor.text() }, 'application/json, */*;q=0.5', credentials.read());
    const changes = changesText(await summaryOf(response));
    shell.status.success(`Update carried out in ${formatDuration(performance.now() - started)}${changes}.`);
  } catch (error) {
    showFailure(shell, error, () => credentials.show());
  }
}

/** What the server says the update changed (a JSON body: server/update-handler.ts); undefined if it says nothing. */
interface Summary {
  inserted: number;
  deleted: number;
  graphs: { graph: string | null; inserted: number; deleted: number }[];
}

async function summaryOf(response: Response): Promise<Summary | undefined> {
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return undefined;
  try {
    return (await response.json()) as Summary;
  } catch {
    return undefined;
  }
}

function triples(n: number): string {
  return `${n} ${n === 1 ? 'triple' : 'triples'}`;
}

/** ": 3 triples inserted, 1 triple deleted (default graph +2 −1; <http://g> +1 −0)", or nothing. */
function changesText(summary: Summary | undefined): string {
  if (!summary) return '';
  const totals = `: ${triples(summary.inserted)} inserted, ${triples(summary.deleted)} deleted`;
  if (summary.graphs.length === 0) return totals;
  const graphs = summary.graphs.map((g) => `${g.graph === null ? 'default graph' : `<${g.graph}>`} +${g.inserted} −${g.deleted}`);
  return `${totals} (${graphs.join('; ')})`;
}

shell.editor.focus();
