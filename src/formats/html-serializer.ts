/**
 * HTML output for both kinds of query: a full page with one results table, or for RDF one table
 * of triples per run of quads in the same graph. The row count and the time taken close the page.
 */
import type { Quad, SolutionRow, Term } from '../rdf/index.js';
import { headerRow, htmlTerm, pageEnd, pageStart, plural, type IriLabeler } from './html-page.js';
import type { HtmlOptions, QuadsSerializer, SolutionsSerializer, TextSink } from './serializer.js';
import { sameTerm } from './term-syntax.js';
import { isValidLocalName } from './turtle-prefixes.js';

export class HtmlSolutionsSerializer implements SolutionsSerializer {
  private width = 0;
  private count = 0;

  constructor(
    private readonly sink: TextSink,
    private readonly options: HtmlOptions = {},
  ) {}

  begin(variables: string[]): void {
    this.width = variables.length;
    this.sink.write(pageStart(this.options) + '<table class="results">\n' + headerRow(variables.map((v) => '?' + v)));
  }

  rows(batch: SolutionRow[]): void {
    const width = this.width;
    let out = '';
    for (const row of batch) {
      out += '<tr>';
      for (let i = 0; i < width; i++) {
        const term = row[i];
        out += term === undefined ? '<td></td>' : '<td>' + htmlTerm(term) + '</td>';
      }
      out += '</tr>\n';
    }
    this.count += batch.length;
    if (out) this.sink.write(out);
  }

  end(): void {
    this.sink.write('</tbody>\n</table>\n' + pageEnd(this.options, plural(this.count, 'row', 'rows')));
  }

  boolean(value: boolean): void {
    this.sink.write(pageStart(this.options) + '<p class="boolean">' + (value ? 'true' : 'false') + '</p>\n' + pageEnd(this.options, 'ASK answered'));
  }
}

const TRIPLE_HEADER = headerRow(['Subject', 'Predicate', 'Object']);

export class HtmlQuadsSerializer implements QuadsSerializer {
  private count = 0;
  /** Graph of the open table; undefined before the first quad. */
  private graph: Term | undefined;
  private label: IriLabeler = (iri) => iri;

  constructor(
    private readonly sink: TextSink,
    private readonly options: HtmlOptions = {},
  ) {}

  begin(prefixes: Record<string, string>): void {
    this.label = prefixLabeler(prefixes);
    this.sink.write(pageStart(this.options));
  }

  quads(batch: Quad[]): void {
    const label = this.label;
    let out = '';
    for (const q of batch) {
      if (this.graph === undefined || !sameTerm(q.graph, this.graph)) out += this.startTable(q.graph);
      out += '<tr><td>' + htmlTerm(q.subject, label) + '</td><td>' + htmlTerm(q.predicate, label) + '</td><td>' + htmlTerm(q.object, label) + '</td></tr>\n';
    }
    this.count += batch.length;
    if (out) this.sink.write(out);
  }

  end(): void {
    const table = this.graph === undefined ? '<table class="results">\n' + TRIPLE_HEADER : '';
    this.sink.write(table + '</tbody>\n</table>\n' + pageEnd(this.options, plural(this.count, 'triple', 'triples')));
  }

  private startTable(graph: Term): string {
    let out = this.graph === undefined ? '' : '</tbody>\n</table>\n';
    if (graph.termType !== 'DefaultGraph') out += '<h2>Graph ' + htmlTerm(graph, this.label) + '</h2>\n';
    else if (this.graph !== undefined) out += '<h2>Default graph</h2>\n';
    this.graph = graph;
    return out + '<table class="results">\n' + TRIPLE_HEADER;
  }
}

/** Shows IRIs as prefixed names where a declared prefix fits, like Turtle would. */
function prefixLabeler(prefixes: Record<string, string>): IriLabeler {
  const entries = Object.entries(prefixes)
    .filter(([, namespace]) => namespace.length > 0)
    .sort((a, b) => b[1].length - a[1].length);
  if (entries.length === 0) return (iri) => iri;
  return (iri) => {
    for (const [name, namespace] of entries) {
      if (iri.startsWith(namespace) && isValidLocalName(iri.slice(namespace.length))) return name + ':' + iri.slice(namespace.length);
    }
    return iri;
  };
}
