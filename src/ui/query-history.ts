/**
 * The history of run queries, newest first, kept in localStorage: each with when it ran and what
 * it gave. Picking one puts its text in the editor; the list can be cleared.
 */
import { button, clear, el } from './dom.js';
import { forgetSaved, readSaved, savedKey, writeSaved } from './saved-state.js';

export interface HistoryEntry {
  query: string;
  /** Epoch milliseconds. */
  at: number;
  /** The status line of the run: "12 rows in 4 ms". */
  summary: string;
}

/** Enough to find last week's query again; a query seen again moves to the top instead of repeating. */
const MAX_ENTRIES = 100;

function isHistory(value: unknown): value is HistoryEntry[] {
  return Array.isArray(value) && value.every((e: HistoryEntry) => typeof e?.query === 'string' && typeof e.at === 'number' && typeof e.summary === 'string');
}

export class QueryHistory {
  readonly element: HTMLDetailsElement;
  private entries: HistoryEntry[];
  private readonly key: string;
  private readonly list = el('ol', { className: 'history-list' });

  constructor(
    endpoint: string,
    private readonly onPick: (query: string) => void,
  ) {
    this.key = savedKey(endpoint, 'history');
    this.entries = readSaved(this.key, isHistory) ?? [];
    const clearButton = button('Clear history', () => this.clear(), 'history-clear');
    this.element = el('details', { className: 'history' }, [el('summary', { text: 'History' }), clearButton, this.list]);
    this.render();
  }

  add(query: string, summary: string): void {
    this.entries = [{ query, at: Date.now(), summary }, ...this.entries.filter((e) => e.query !== query)].slice(0, MAX_ENTRIES);
    writeSaved(this.key, this.entries);
    this.render();
  }

  get size(): number {
    return this.entries.length;
  }

  clear(): void {
    this.entries = [];
    forgetSaved(this.key);
    this.render();
  }

  private render(): void {
    clear(this.list);
    (this.element.querySelector('summary') as HTMLElement).textContent = `History (${this.entries.length})`;
    for (const entry of this.entries) {
      const firstLine = entry.query.split('\n').find((line) => line.trim() !== '' && !/^\s*(PREFIX|BASE)\b/i.test(line)) ?? entry.query;
      const pick = button(firstLine.trim().slice(0, 120), () => this.onPick(entry.query), 'history-pick');
      pick.title = entry.query;
      const when = el('time', { text: new Date(entry.at).toLocaleString(), attrs: { datetime: new Date(entry.at).toISOString() } });
      this.list.append(el('li', {}, [pick, el('span', { className: 'history-meta' }, [when, ` · ${entry.summary}`])]));
    }
  }
}
