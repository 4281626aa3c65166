/** The result table: sortable by any column (click its header), shown a page at a time. */
import { button, clear, el, plural } from './dom.js';
import { numericValue, termText, type PrefixShortener, type RdfTerm } from './rdf-terms.js';

const PAGE_SIZES = [25, 50, 100, 500];

type Row = (RdfTerm | undefined)[];

export class ResultsTable {
  private pageSize = PAGE_SIZES[0]!;
  private page = 0;
  private sortColumn = -1;
  private descending = false;
  private order: Row[];

  constructor(
    private readonly container: HTMLElement,
    private readonly columns: string[],
    private readonly rows: Row[],
    private readonly names: PrefixShortener,
  ) {
    this.order = rows;
    this.render();
  }

  private render(): void {
    clear(this.container);
    const table = el('table', { className: 'results' }, [this.header(), this.body()]);
    this.container.append(el('div', { className: 'table-scroll' }, [table]), this.pager());
  }

  private header(): HTMLTableSectionElement {
    const cells = this.columns.map((name, index) => {
      const arrow = index === this.sortColumn ? (this.descending ? ' ▼' : ' ▲') : '';
      const th = el('th', { text: name + arrow, title: 'Sort by this column', attrs: { scope: 'col' } });
      th.addEventListener('click', () => this.sortBy(index));
      if (index === this.sortColumn) th.setAttribute('aria-sort', this.descending ? 'descending' : 'ascending');
      return th;
    });
    return el('thead', {}, [el('tr', {}, cells)]);
  }

  private body(): HTMLTableSectionElement {
    const start = this.page * this.pageSize;
    const rows = this.order.slice(start, start + this.pageSize).map((row) => el('tr', {}, this.columns.map((_, i) => this.cell(row[i]))));
    return el('tbody', {}, rows);
  }

  private cell(term: RdfTerm | undefined): HTMLTableCellElement {
    const td = el('td');
    if (term === undefined) return td;
    const text = termText(term, this.names);
    if (term.type === 'uri' && /^https?:/i.test(term.value)) {
      // A property, not markup: only http(s) IRIs become links, so no javascript: URL ever does.
      const link = el('a', { text, title: term.value, className: 'iri' });
      link.href = term.value;
      link.rel = 'noopener noreferrer';
      td.append(link);
    } else {
      td.append(el('span', { text, className: term.type }));
    }
    return td;
  }

  private pager(): HTMLElement {
    const pages = Math.max(1, Math.ceil(this.order.length / this.pageSize));
    const first = this.order.length === 0 ? 0 : this.page * this.pageSize + 1;
    const last = Math.min(this.order.length, (this.page + 1) * this.pageSize);
    const previous = button('‹ Previous', () => this.goTo(this.page - 1), 'pager-previous');
    const next = button('Next ›', () => this.goTo(this.page + 1), 'pager-next');
    previous.disabled = this.page === 0;
    next.disabled = this.page >= pages - 1;
    const size = el('select', { attrs: { 'aria-label': 'Rows per page' } }, PAGE_SIZES.map((n) => el('option', { text: `${n} per page`, attrs: { value: String(n) } })));
    size.value = String(this.pageSize);
    size.addEventListener('change', () => {
      this.pageSize = Number(size.value);
      this.goTo(0);
    });
    const where = el('span', { className: 'pager-position', text: `${first}–${last} of ${plural(this.order.length, 'row', 'rows')}` });
    return el('div', { className: 'pager' }, [previous, where, next, size]);
  }

  private goTo(page: number): void {
    this.page = page;
    this.render();
  }

  /** Ascending first, descending on the second click; numbers by value, everything else by text. */
  private sortBy(column: number): void {
    this.descending = column === this.sortColumn ? !this.descending : false;
    this.sortColumn = column;
    const sign = this.descending ? -1 : 1;
    this.order = [...this.rows].sort((a, b) => sign * compareTerms(a[column], b[column], this.names));
    this.goTo(0);
  }
}

const collator = new Intl.Collator('en', { numeric: true });

function compareTerms(a: RdfTerm | undefined, b: RdfTerm | undefined, names: PrefixShortener): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const x = numericValue(a);
  const y = numericValue(b);
  if (x !== undefined && y !== undefined) return x - y;
  return collator.compare(termText(a, names), termText(b, names));
}
