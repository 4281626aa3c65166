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
    await postForm(data.endpoints.update, { update: shell.editor.text() }, 'text/plain, */*;q=0.5', credentials.read());
    shell.status.success(`Update carried out in ${formatDuration(performance.now() - started)}.`);
  } catch (error) {
    showFailure(shell, error, () => credentials.show());
  }
}

shell.editor.focus();
