/**
 * The SPARQL editor of both pages: CodeMirror 6 with the SPARQL mode of @codemirror/legacy-modes,
 * completion of the known prefixes and keywords, Ctrl+Enter (Cmd+Enter) to run, and a syntax error
 * marked where the server says it is.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, startCompletion } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { sparql } from '@codemirror/legacy-modes/mode/sparql';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState, Prec } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { sparqlCompletions } from './sparql-completion.js';
import type { VocabularySource } from './vocabulary-index.js';

export interface EditorOptions {
  parent: HTMLElement;
  text: string;
  label: string;
  prefixes: Record<string, string>;
  styleNonce: string;
  onRun: () => void;
  /** Called after each change of the text (the query page keeps it in its tab). */
  onChange?: (text: string) => void;
  /** The store's classes, properties and prefixes, offered as completions once loaded. */
  vocabulary?: VocabularySource;
}

export interface SparqlEditor {
  view: EditorView;
  text(): string;
  setText(text: string): void;
  /** Marks the error at a 1-based line and column (or the whole text when the position is unknown). */
  markError(message: string, line?: number, column?: number): void;
  clearError(): void;
  focus(): void;
}

/**
 * When the store's vocabulary arrives while a name is being typed, offers its completions at once
 * (a list already open is made again, with them): what was typed before it came (on a slow or busy
 * server) found no prefix of the data's own, and the list would otherwise wait for the next keystroke.
 */
function offerWhatWasTyped(view: EditorView): void {
  if (!view.hasFocus) return;
  const cursor = view.state.selection.main.head;
  const before = view.state.sliceDoc(Math.max(0, cursor - 1), cursor);
  if (/[\w:]/.test(before)) startCompletion(view);
}

export function createSparqlEditor(options: EditorOptions): SparqlEditor {
  const runKeys = keymap.of([
    { key: 'Mod-Enter', run: () => (options.onRun(), true) },
    { key: 'Shift-Enter', run: () => (options.onRun(), true) },
  ]);
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        EditorView.cspNonce.of(options.styleNonce),
        Prec.highest(runKeys),
        lineNumbers(),
        lintGutter(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        StreamLanguage.define(sparql),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        autocompletion({ override: [sparqlCompletions(options.prefixes, options.vocabulary)], icons: false }),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, indentWithTab]),
        placeholder('Type a SPARQL request; Ctrl+Enter runs it'),
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        EditorView.lineWrapping,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
  options.vocabulary?.onArrival(() => offerWhatWasTyped(view));
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    markError(message, line, column) {
      const diagnostic = diagnosticAt(view.state, message, line, column);
      view.dispatch(setDiagnostics(view.state, [diagnostic]));
      view.dispatch({ effects: EditorView.scrollIntoView(diagnostic.from, { y: 'center' }) });
    },
    clearError() {
      view.dispatch(setDiagnostics(view.state, []));
    },
    focus: () => view.focus(),
  };
}

/** One character wide at the position (the character before it at the end of a line). */
function diagnosticAt(state: EditorState, message: string, line?: number, column?: number): Diagnostic {
  const doc = state.doc;
  if (line === undefined || doc.length === 0) return { from: 0, to: doc.length, severity: 'error', message };
  const textLine = doc.line(Math.min(Math.max(line, 1), doc.lines));
  const at = textLine.from + Math.min(Math.max((column ?? 1) - 1, 0), textLine.length);
  const from = at < textLine.to ? at : Math.max(textLine.from, at - 1);
  const to = Math.min(from + 1, textLine.to);
  return { from, to: Math.max(to, from), severity: 'error', message };
}
