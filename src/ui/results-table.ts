/**
 * The result table: filtered by a text box, sortable by any column (click its header), shown a page
 * at a time. Long values are cut with an ellipsis (a click on the ⋯ shows them whole), numbers are
 * right-aligned, and every IRI opens the view of its resource inside the page.
 */
import { button, clear, el, plural } from './dom.js';
import { numericValue, termText, type PrefixShortener, type RdfTerm } from './rdf-terms.js';
import { resourceHref, type ResourceTarget } from './resource-address.js';

/** Values longer than this are cut in the table (CSS does the cutting; this decides the ⋯ button). */
const LONG_VALUE = 60;

const PAGE_SIZES = [25, 50, 100, 500];

type Row = (RdfTerm | undefined)[];

export class ResultsTable {
  private pageSize = PAGE_SIZES[0]!;
  private page = 0;
  private sortColumn = -1;
  private descending = false;
  private order: Row[];
  private sorted: Row[];
  private filterText = '';
  private readonly tableBox = el('div', { className: 'table-scroll' });
  private readonly pagerBox = el('div');

  /** `triples`: the rows are subject, predicate, object, so a blank node can be followed from its neighbour. */
  constructor(
    private readonly container: HTMLElement,
    private readonly columns: string[],
    private readonly rows: Row[],
    private readonly names: PrefixShortener,
    private readonly triples = false,
  ) {
    this.order = rows;
    this.sorted = rows;
    const filter = el('input', { className: 'row-filter', attrs: { type: 'search', placeholder: 'Filter rows', 'aria-label': 'Filter rows' } });
    filter.addEventListener('input', () => this.filter(filter.value));
    clear(container);
    container.append(el('div', { className: 'table-tools' }, [filter]), this.tableBox, this.pagerBox);
    this.render();
  }

  private render(): void {
    const table = el('table', { className: 'results' }, [this.header(), this.body()]);
    this.tableBox.replaceChildren(table);
    this.pagerBox.replaceChildren(this.pager());
  }

  /** Rows with a value whose text (as shown, or the full IRI) contains the filter, ignoring case. */
  private filter(text: string): void {
    this.filterText = text.trim().toLowerCase();
    this.applyFilter();
    this.goTo(0);
  }

  private applyFilter(): void {
    const needle = this.filterText;
    this.order =
      needle === ''
        ? this.sorted
        : this.sorted.filter((row) =>
            row.some((term) => term !== undefined && (termText(term, this.names).toLowerCase().includes(needle) || term.value.toLowerCase().includes(needle))),
          );
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
    const rows = this.order.slice(start, start + this.pageSize).map((row) =>
      el(
        'tr',
        {},
        this.columns.map((_, i) => this.cell(row, i)),
      ),
    );
    return el('tbody', {}, rows);
  }

  private cell(row: Row, column: number): HTMLTableCellElement {
    const term = row[column];
    const td = el('td');
    if (term === undefined) return td;
    const text = termText(term, this.names);
    const target = this.targetOf(row, column);
    if (target !== undefined) {
      // The link stays in this page (its fragment): whatever the IRI, nothing but the view opens.
      const link = el('a', {
        text,
        title: term.type === 'uri' ? term.value : `${text}: open this blank node`,
        className: term.type === 'uri' ? 'iri' : 'iri bnode',
      });
      link.href = resourceHref(target);
      td.append(link);
    } else {
      td.append(
        el('span', {
          text,
          className: term.type,
          title: term.type === 'bnode' ? 'A blank node: open it from a triple that reaches it (CONSTRUCT, DESCRIBE or a resource view)' : '',
        }),
      );
    }
    if (numericValue(term) !== undefined) td.className = 'number';
    if (text.length > LONG_VALUE) {
      td.classList.add('long');
      const whole = button('⋯', () => td.classList.toggle('whole'), 'show-whole');
      whole.title = 'Show the whole value';
      whole.setAttribute('aria-label', 'Show the whole value');
      td.append(whole);
    }
    return td;
  }

  /** An IRI is its own view; a blank node in a triple is reached from an IRI beside it. */
  private targetOf(row: Row, column: number): ResourceTarget | undefined {
    const term = row[column]!;
    if (term.type === 'uri') return { kind: 'iri', iri: term.value };
    if (term.type !== 'bnode' || !this.triples) return undefined;
    const [s, p, o] = row;
    if (column === 2 && s?.type === 'uri' && p !== undefined) return { kind: 'bnode', label: term.value, root: s.value, path: [`<${p.value}>`] };
    if (column === 0 && o?.type === 'uri' && p !== undefined) return { kind: 'bnode', label: term.value, root: o.value, path: [`^<${p.value}>`] };
    return undefined;
  }

  private pager(): HTMLElement {
    const pages = Math.max(1, Math.ceil(this.order.length / this.pageSize));
    const first = this.order.length === 0 ? 0 : this.page * this.pageSize + 1;
    const last = Math.min(this.order.length, (this.page + 1) * this.pageSize);
    const previous = button('‹ Previous', () => this.goTo(this.page - 1), 'pager-previous');
    const next = button('Next ›', () => this.goTo(this.page + 1), 'pager-next');
    previous.disabled = this.page === 0;
    next.disabled = this.page >= pages - 1;
    const size = el(
      'select',
      { attrs: { 'aria-label': 'Rows per page' } },
      PAGE_SIZES.map((n) => el('option', { text: `${n} per page`, attrs: { value: String(n) } })),
    );
    size.value = String(this.pageSize);
    size.addEventListener('change', () => {
      this.pageSize = Number(size.value);
      this.goTo(0);
    });
    const filtered = this.order.length === this.rows.length ? '' : ` (filtered from ${this.rows.length.toLocaleString('en')})`;
    const where = el('span', { className: 'pager-position', text: `${first}–${last} of ${plural(this.order.length, 'row', 'rows')}${filtered}` });
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
    this.sorted = [...this.rows].sort((a, b) => sign * compareTerms(a[column], b[column], this.names));
    this.applyFilter();
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
