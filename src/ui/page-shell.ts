/**
 * What both pages share: the no-script form turned into the editor, the examples menu, the status
 * line, and errors shown as messages and marked in the editor.
 */
import { button, el } from './dom.js';
import { RequestFailure } from './endpoint.js';
import type { PageData } from './page-data.js';
import { createSparqlEditor, type SparqlEditor } from './sparql-editor.js';
import type { VocabularySource } from './vocabulary-index.js';

export interface PageShell {
  editor: SparqlEditor;
  toolbar: HTMLElement;
  status: StatusLine;
  /** Where the page puts everything below the toolbar. */
  main: HTMLElement;
}

export interface StatusLine {
  element: HTMLElement;
  busy(text: string): void;
  success(text: string): void;
  error(text: string): void;
  /** Empties the line (a tab without a run yet). */
  reset(): void;
}

/**
 * Replaces the form's textarea with the editor; the form's own button and submit (the no-script
 * way) now run the request here instead.
 */
export function enhanceForm(
  data: PageData,
  field: 'query' | 'update',
  run: () => void,
  onChange?: (text: string) => void,
  vocabulary?: VocabularySource,
): PageShell {
  const form = document.getElementById('sparql-form') as HTMLFormElement;
  const textarea = form.elements.namedItem(field) as HTMLTextAreaElement;
  const editorBox = el('div', { className: 'editor' });
  textarea.before(editorBox);
  textarea.hidden = true;
  for (const controls of form.querySelectorAll<HTMLElement>('.controls')) controls.hidden = true;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });
  const editor = createSparqlEditor({
    parent: editorBox,
    text: textarea.value,
    label: field === 'query' ? 'SPARQL query' : 'SPARQL update',
    prefixes: data.prefixes,
    styleNonce: data.styleNonce,
    onRun: run,
    ...(onChange === undefined ? {} : { onChange }),
    ...(vocabulary === undefined ? {} : { vocabulary }),
  });
  const toolbar = el('div', { className: 'toolbar' }, [examplesMenu(data, editor), button('Run', run, 'run primary')]);
  const status = statusLine();
  const main = document.getElementById('app') ?? document.body;
  form.after(toolbar);
  main.append(status.element);
  return { editor, toolbar, status, main };
}

function examplesMenu(data: PageData, editor: SparqlEditor): HTMLSelectElement {
  const options = [
    el('option', { text: 'Examples…', attrs: { value: '' } }),
    ...data.examples.map((example, i) => el('option', { text: example.name, attrs: { value: String(i) } })),
  ];
  const menu = el('select', { className: 'examples', attrs: { 'aria-label': 'Examples' } }, options);
  menu.addEventListener('change', () => {
    const example = data.examples[Number(menu.value)];
    if (menu.value !== '' && example !== undefined) {
      editor.setText(example.text);
      editor.clearError();
      editor.focus();
    }
    menu.value = '';
  });
  return menu;
}

function statusLine(): StatusLine {
  const element = el('div', { className: 'status', attrs: { role: 'status', 'aria-live': 'polite' } });
  const set = (kind: string, text: string): void => {
    element.className = `status ${kind}`;
    element.textContent = text;
  };
  return {
    element,
    busy: (text) => set('busy', text),
    success: (text) => set('success', text),
    error: (text) => set('error', text),
    reset: () => set('', ''),
  };
}

/** The message of a failure, marked in the editor when the server said where. */
export function showFailure(shell: PageShell, error: unknown, onUnauthorized: () => void): void {
  if (error instanceof RequestFailure) {
    if (error.status === 401) onUnauthorized();
    const prefix = error.status === 401 ? 'Credentials needed or not accepted: ' : error.status > 0 ? `Error ${error.status}: ` : '';
    shell.status.error(prefix + error.message);
    if (error.line !== undefined) shell.editor.markError(error.message, error.line, error.column);
    return;
  }
  shell.status.error(`Error: ${(error as Error).message ?? String(error)}`);
}
