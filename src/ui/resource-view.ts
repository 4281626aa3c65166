/**
 * The view of one resource, inside the query page: what it says (its properties and their values),
 * what points to it, and the graphs of those triples, with labels where the data has them. Every
 * IRI and blank node in it opens its own view (a link to the page's fragment: back and forward
 * walk through them, and the address can be shared). See resource-address.ts for blank nodes.
 */
import { clear, el, plural } from './dom.js';
import type { Credentials } from './endpoint.js';
import { anyGraph, iriRef, labelsOf, selectSolutions, type Solution } from './neighbours.js';
import { termText, type PrefixShortener, type RdfTerm } from './rdf-terms.js';
import { resourceHref, stepFrom, type ResourceTarget } from './resource-address.js';

/** Triples shown each way, at most: a resource with more is summarized by its first ones. */
export const RESOURCE_TRIPLE_LIMIT = 1000;

export interface ResourceSource {
  endpoint: string;
  credentials: () => Credentials | undefined;
  names: () => PrefixShortener;
  onError: (error: unknown) => void;
  /** The service reads the union of all graphs as its default graph (page data). */
  unionDefaultGraph?: boolean;
}

interface Rows {
  outgoing: Solution[];
  incoming: Solution[];
  /** A blank node whose label the store no longer uses: every blank node at the end of its path. */
  relabelled: boolean;
}

export class ResourceView {
  /** The target being shown: an answer for an earlier one is dropped. */
  private current: string | undefined;

  constructor(
    private readonly container: HTMLElement,
    private readonly source: ResourceSource,
  ) {}

  async show(target: ResourceTarget): Promise<void> {
    const key = resourceHref(target);
    this.current = key;
    clear(this.container);
    this.container.append(backLink(), el('p', { className: 'note', text: 'Loading…' }));
    try {
      const rows = await this.fetchRows(target);
      const labels = await labelsOf(this.source.endpoint, iriList(target, rows), this.source.credentials());
      if (this.current !== key) return;
      this.render(target, rows, labels);
    } catch (error) {
      if (this.current !== key) return;
      clear(this.container);
      this.container.append(backLink());
      this.source.onError(error);
    }
  }

  private async fetchRows(target: ResourceTarget): Promise<Rows> {
    const limit = RESOURCE_TRIPLE_LIMIT + 1;
    const { endpoint } = this.source;
    const credentials = this.source.credentials();
    const union = this.source.unionDefaultGraph === true;
    if (target.kind === 'iri') {
      const x = iriRef(target.iri);
      const [outgoing, incoming] = await Promise.all([
        selectSolutions(endpoint, `SELECT ?p ?o ?g WHERE { ${anyGraph(`${x} ?p ?o`, union)} } LIMIT ${limit}`, credentials),
        selectSolutions(endpoint, `SELECT ?s ?p ?g WHERE { ${anyGraph(`?s ?p ${x}`, union)} } LIMIT ${limit}`, credentials),
      ]);
      return { outgoing, incoming, relabelled: false };
    }
    // The path from the root, then the blank node's own triples; the label picks among the blank nodes reached.
    const reach = `${iriRef(target.root)} ${target.path.join('/')} ?b . FILTER(isBlank(?b))`;
    const [outgoing, incoming] = await Promise.all([
      selectSolutions(endpoint, `SELECT ?b ?p ?o ?g WHERE { ${anyGraph(`${reach} ?b ?p ?o`, union)} } LIMIT ${limit}`, credentials),
      selectSolutions(endpoint, `SELECT ?b ?s ?p ?g WHERE { ${anyGraph(`${reach} ?s ?p ?b`, union)} } LIMIT ${limit}`, credentials),
    ]);
    const same = (row: Solution): boolean => row['b']?.value === target.label;
    if (outgoing.some(same) || incoming.some(same)) return { outgoing: outgoing.filter(same), incoming: incoming.filter(same), relabelled: false };
    return { outgoing, incoming, relabelled: outgoing.length + incoming.length > 0 };
  }

  private render(target: ResourceTarget, rows: Rows, labels: Map<string, string>): void {
    const names = this.source.names();
    const cell = new TermCells(names, labels);
    clear(this.container);
    const self: RdfTerm = target.kind === 'iri' ? { type: 'uri', value: target.iri } : { type: 'bnode', value: target.label };
    const label = target.kind === 'iri' ? labels.get(target.iri) : undefined;
    const heading = el('h2', { className: 'resource-title', text: label ?? termText(self, names) });
    const about = el('p', { className: 'resource-iri' }, [
      el('span', { text: target.kind === 'iri' ? target.iri : `A blank node reached from ${names.shorten(target.root)} by ${target.path.join('/')}` }),
    ]);
    if (target.kind === 'iri' && /^https?:/i.test(target.iri)) {
      // Only http(s) IRIs are linked out of the page: no other scheme can become a link.
      const out = el('a', { text: 'open the IRI itself', className: 'external' });
      out.href = target.iri;
      out.rel = 'noopener noreferrer';
      about.append(' · ', out);
    }
    this.container.append(backLink(), heading, about);
    if (rows.relabelled) {
      this.container.append(
        el('p', {
          className: 'note',
          text: 'The store has changed since this blank node was found, and its label with it: these are all the blank nodes at the end of its path.',
        }),
      );
    }
    const graphs = new Set([...rows.outgoing, ...rows.incoming].map((r) => r['g']?.value ?? ''));
    const graphList = el('p', { className: 'resource-graphs' }, [`In ${plural(graphs.size, 'graph', 'graphs')}: `]);
    [...graphs]
      .sort()
      .forEach((g, i) =>
        graphList.append(...(i > 0 ? [', '] : []), g === '' ? el('span', { text: 'the default graph' }) : cell.term({ type: 'uri', value: g })),
      );
    if (graphs.size > 0) this.container.append(graphList);

    const outgoing = rows.outgoing.slice(0, RESOURCE_TRIPLE_LIMIT).sort(byProperty);
    this.container.append(
      section(
        `Properties (${countText(rows.outgoing.length)})`,
        'resource-properties',
        ['Property', 'Value', 'Graph'],
        outgoing.map((r) => [
          cell.term(r['p']),
          cell.term(r['o'], r['p'] && r['o']?.type === 'bnode' ? stepFrom(target, r['p'].value, false, r['o'].value) : undefined),
          cell.graph(r['g']),
        ]),
      ),
    );
    const incoming = rows.incoming.slice(0, RESOURCE_TRIPLE_LIMIT).sort(byProperty);
    this.container.append(
      section(
        `Pointing here (${countText(rows.incoming.length)})`,
        'resource-incoming',
        ['Subject', 'Property', 'Graph'],
        incoming.map((r) => [
          cell.term(r['s'], r['p'] && r['s']?.type === 'bnode' ? stepFrom(target, r['p'].value, true, r['s'].value) : undefined),
          cell.term(r['p']),
          cell.graph(r['g']),
        ]),
      ),
    );
    this.container.dataset['resource'] = resourceHref(target);
  }
}

function countText(n: number): string {
  return n > RESOURCE_TRIPLE_LIMIT ? `the first ${RESOURCE_TRIPLE_LIMIT.toLocaleString('en')}` : n.toLocaleString('en');
}

function byProperty(a: Solution, b: Solution): number {
  return (a['p']?.value ?? '').localeCompare(b['p']?.value ?? '');
}

/** Every IRI the view shows: what labels are asked for. */
function iriList(target: ResourceTarget, rows: Rows): string[] {
  const iris = target.kind === 'iri' ? [target.iri] : [];
  for (const row of [...rows.outgoing, ...rows.incoming]) {
    for (const name of ['s', 'p', 'o', 'g']) if (row[name]?.type === 'uri') iris.push(row[name]!.value);
  }
  return iris;
}

function backLink(): HTMLElement {
  const back = el('a', { text: '← Queries', className: 'resource-back' });
  back.href = '#';
  return el('nav', { className: 'resource-nav' }, [back]);
}

function section(title: string, className: string, headers: string[], rows: Node[][]): HTMLElement {
  const head = el(
    'tr',
    {},
    headers.map((h) => el('th', { text: h, attrs: { scope: 'col' } })),
  );
  const body = rows.map((cells) =>
    el(
      'tr',
      {},
      cells.map((c) => el('td', {}, [c])),
    ),
  );
  const table =
    rows.length === 0
      ? el('p', { className: 'note', text: 'None.' })
      : el('div', { className: 'table-scroll' }, [el('table', { className: `results ${className}` }, [el('thead', {}, [head]), el('tbody', {}, body)])]);
  return el('section', { className }, [el('h3', { text: title }), table]);
}

/** Terms as the view shows them: IRIs by label (and short name) linking to their own view. */
class TermCells {
  constructor(
    private readonly names: PrefixShortener,
    private readonly labels: Map<string, string>,
  ) {}

  term(term: RdfTerm | undefined, bnodeTarget?: ResourceTarget): Node {
    if (term === undefined) return document.createTextNode('');
    const text = termText(term, this.names);
    if (term.type === 'uri') {
      const label = this.labels.get(term.value);
      const link = el('a', { text: label ?? text, className: 'iri', title: term.value });
      if (label !== undefined) link.append(el('span', { className: 'short-name', text: ` ${text}` }));
      link.href = resourceHref({ kind: 'iri', iri: term.value });
      return link;
    }
    if (term.type === 'bnode' && bnodeTarget !== undefined) {
      const link = el('a', { text, className: 'iri bnode', title: 'Open this blank node' });
      link.href = resourceHref(bnodeTarget);
      return link;
    }
    return el('span', { text, className: term.type });
  }

  graph(term: RdfTerm | undefined): Node {
    return term === undefined ? el('span', { className: 'note', text: 'default' }) : this.term(term);
  }
}
