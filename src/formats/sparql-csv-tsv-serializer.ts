/**
 * SPARQL 1.1 Query Results CSV and TSV Formats (https://www.w3.org/TR/sparql11-results-csv-tsv/).
 * CSV is lossy on purpose (plain values, CRLF lines); TSV keeps every term in its N-Triples form,
 * with numbers abbreviated as Turtle allows. An unbound variable is an empty field.
 * ASK has no standard CSV/TSV form; we answer the one common in the field (Jena's):
 * a single `_askResult` column.
 */
import type { SolutionRow, Term } from '../rdf/index.js';
import { csvField } from './escaping.js';
import type { SolutionsSerializer, TextSink } from './serializer.js';
import { bareNumber, ntriplesTerm, portableBlankNodeLabel, unsupportedTerm } from './term-syntax.js';

export class SparqlCsvSerializer implements SolutionsSerializer {
  private width = 0;

  constructor(private readonly sink: TextSink) {}

  begin(variables: string[]): void {
    this.width = variables.length;
    this.sink.write(variables.map(csvField).join(',') + '\r\n');
  }

  rows(batch: SolutionRow[]): void {
    const width = this.width;
    let out = '';
    for (const row of batch) {
      for (let i = 0; i < width; i++) {
        const term = row[i];
        if (i > 0) out += ',';
        if (term !== undefined) out += csvField(csvValue(term));
      }
      out += '\r\n';
    }
    if (out) this.sink.write(out);
  }

  end(): void {}

  boolean(value: boolean): void {
    this.sink.write('_askResult\r\n' + value + '\r\n');
  }
}

function csvValue(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
    case 'Literal':
      return term.value;
    case 'BlankNode':
      return '_:' + portableBlankNodeLabel(term.value);
    case 'Quad':
      // CSV has no term syntax of its own: a triple term is written as N-Triples 1.2 writes it.
      return ntriplesTerm(term);
    default:
      throw unsupportedTerm(term);
  }
}

export class SparqlTsvSerializer implements SolutionsSerializer {
  private width = 0;

  constructor(private readonly sink: TextSink) {}

  begin(variables: string[]): void {
    this.width = variables.length;
    this.sink.write(variables.map((v) => '?' + v).join('\t') + '\n');
  }

  rows(batch: SolutionRow[]): void {
    const width = this.width;
    let out = '';
    for (const row of batch) {
      for (let i = 0; i < width; i++) {
        const term = row[i];
        if (i > 0) out += '\t';
        if (term !== undefined) out += tsvTerm(term);
      }
      out += '\n';
    }
    if (out) this.sink.write(out);
  }

  end(): void {}

  boolean(value: boolean): void {
    this.sink.write('?_askResult\n' + value + '\n');
  }
}

/** A term as a TSV field: N-Triples syntax (tabs and newlines escaped), numbers bare. */
export function tsvTerm(term: Term): string {
  if (term.termType === 'Literal') {
    const bare = bareNumber(term);
    if (bare !== undefined) return bare;
  }
  return ntriplesTerm(term);
}
