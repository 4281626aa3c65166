/**
 * Query tabs: several queries open at once, each with its own text (kept in localStorage, so a
 * reload brings them back) and its own result (kept in the page only: results can be large).
 */
import { button, el } from './dom.js';
import { forgetSaved, readSaved, savedKey, writeSaved } from './saved-state.js';

export interface QueryTab {
  id: string;
  title: string;
  query: string;
}

interface SavedTabs {
  tabs: QueryTab[];
  active: string;
  next: number;
}

function isSavedTabs(value: unknown): value is SavedTabs {
  const v = value as SavedTabs | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.tabs) &&
    v.tabs.length > 0 &&
    typeof v.active === 'string' &&
    typeof v.next === 'number' &&
    v.tabs.every((t) => typeof t?.id === 'string' && typeof t.title === 'string' && typeof t.query === 'string')
  );
}

export interface TabEvents {
  /** Another tab became the active one (its text is to be shown). */
  onSwitch(tab: QueryTab): void;
  /** A tab was closed: its result can go. */
  onClose(tab: QueryTab): void;
}

export class QueryTabs {
  readonly element: HTMLElement;
  private state: SavedTabs;
  private readonly key: string;

  constructor(
    endpoint: string,
    firstQuery: string,
    private readonly events: TabEvents,
  ) {
    this.key = savedKey(endpoint, 'tabs');
    this.state = readSaved(this.key, isSavedTabs) ?? fresh(firstQuery);
    if (!this.state.tabs.some((t) => t.id === this.state.active)) this.state.active = this.state.tabs[0]!.id;
    this.element = el('div', { className: 'query-tabs', attrs: { role: 'tablist', 'aria-label': 'Queries' } });
    this.render();
  }

  get active(): QueryTab {
    return this.state.tabs.find((t) => t.id === this.state.active)!;
  }

  get all(): readonly QueryTab[] {
    return this.state.tabs;
  }

  /** The editor's text of the active tab, kept as it is typed. */
  saveQuery(query: string): void {
    if (this.active.query === query) return;
    this.active.query = query;
    this.save();
  }

  /** A new tab holding `query`, made the active one. */
  open(query: string): QueryTab {
    const tab = { id: `t${this.state.next}`, title: `Query ${this.state.next}`, query };
    this.state.next += 1;
    this.state.tabs.push(tab);
    this.switchTo(tab.id);
    return tab;
  }

  switchTo(id: string): void {
    const tab = this.state.tabs.find((t) => t.id === id);
    if (tab === undefined) return;
    this.state.active = id;
    this.save();
    this.render();
    this.events.onSwitch(tab);
  }

  close(id: string): void {
    const index = this.state.tabs.findIndex((t) => t.id === id);
    if (index < 0) return;
    const [closed] = this.state.tabs.splice(index, 1);
    this.events.onClose(closed!);
    if (this.state.tabs.length === 0) this.state.tabs.push({ id: `t${this.state.next}`, title: `Query ${this.state.next++}`, query: '' });
    if (this.state.active === id) {
      this.switchTo(this.state.tabs[Math.max(0, index - 1)]!.id);
    } else {
      this.save();
      this.render();
    }
  }

  /** Forgets every tab: one empty tab is left. */
  clearAll(): void {
    for (const tab of this.state.tabs) this.events.onClose(tab);
    forgetSaved(this.key);
    this.state = fresh('');
    this.save();
    this.render();
    this.events.onSwitch(this.active);
  }

  private save(): void {
    writeSaved(this.key, this.state);
  }

  private render(): void {
    const tabs = this.state.tabs.map((tab) => {
      const selected = tab.id === this.state.active;
      const pick = button(tab.title, () => this.switchTo(tab.id), 'query-tab');
      pick.setAttribute('role', 'tab');
      pick.setAttribute('aria-selected', String(selected));
      pick.dataset['tab'] = tab.id;
      pick.title = tab.query.slice(0, 300);
      const close = button('×', () => this.close(tab.id), 'query-tab-close');
      close.setAttribute('aria-label', `Close ${tab.title}`);
      return el('span', { className: `query-tab-item${selected ? ' selected' : ''}` }, [pick, close]);
    });
    const add = button('+', () => void this.open(''), 'query-tab-new');
    add.setAttribute('aria-label', 'New query tab');
    add.title = 'New query tab';
    this.element.replaceChildren(...tabs, add);
  }
}

function fresh(query: string): SavedTabs {
  return { tabs: [{ id: 't1', title: 'Query 1', query }], active: 't1', next: 2 };
}
