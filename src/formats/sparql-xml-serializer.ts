/**
 * SPARQL Query Results XML Format (https://www.w3.org/TR/rdf-sparql-XMLres/), with the SPARQL 1.2
 * additions: triple terms (`<triple>`) and base directions (`its:dir`).
 */
import { directionOf, type SolutionRow, type Term } from '../rdf/index.js';
import { xsd, rdf } from '../rdf/index.js';
import { escapeXmlAttribute, escapeXmlText } from './escaping.js';
import type { SolutionsSerializer, TextSink } from './serializer.js';
import { unsupportedTerm } from './term-syntax.js';

const PROLOG = '<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n';
/** The ITS namespace of its:dir, declared on the literal that needs it: documents without directions stay as in 1.1. */
const ITS = ' xmlns:its="http://www.w3.org/2005/11/its" its:version="2.0"';

export class SparqlXmlSerializer implements SolutionsSerializer {
  /** `<binding name="...">` per variable, built once. */
  private openings: string[] = [];

  constructor(private readonly sink: TextSink) {}

  begin(variables: string[]): void {
    this.openings = variables.map((v) => '<binding name="' + escapeXmlAttribute(v) + '">');
    let head = PROLOG + '<head>\n';
    for (const v of variables) head += '  <variable name="' + escapeXmlAttribute(v) + '"/>\n';
    this.sink.write(head + '</head>\n<results>\n');
  }

  rows(batch: SolutionRow[]): void {
    const openings = this.openings;
    let out = '';
    for (const row of batch) {
      out += '<result>';
      for (let i = 0; i < openings.length; i++) {
        const term = row[i];
        if (term !== undefined) out += openings[i] + xmlTerm(term) + '</binding>';
      }
      out += '</result>\n';
    }
    if (out) this.sink.write(out);
  }

  end(): void {
    this.sink.write('</results>\n</sparql>\n');
  }

  boolean(value: boolean): void {
    this.sink.write(PROLOG + '<head/>\n<boolean>' + value + '</boolean>\n</sparql>\n');
  }
}

/** One RDF term as the content of a SPARQL XML `<binding>`. */
export function xmlTerm(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '<uri>' + escapeXmlText(term.value) + '</uri>';
    case 'BlankNode':
      return '<bnode>' + escapeXmlText(term.value) + '</bnode>';
    case 'Literal': {
      const text = escapeXmlText(term.value) + '</literal>';
      if (term.language) {
        const direction = directionOf(term);
        const dir = direction === undefined ? '' : ITS + ' its:dir="' + direction + '"';
        return '<literal xml:lang="' + escapeXmlAttribute(term.language) + '"' + dir + '>' + text;
      }
      const dt = term.datatype.value;
      if (dt === xsd.string || dt === rdf.langString) return '<literal>' + text;
      return '<literal datatype="' + escapeXmlAttribute(dt) + '">' + text;
    }
    case 'Quad':
      return (
        '<triple><subject>' +
        xmlTerm(term.subject) +
        '</subject><predicate>' +
        xmlTerm(term.predicate) +
        '</predicate><object>' +
        xmlTerm(term.object) +
        '</object></triple>'
      );
    default:
      throw unsupportedTerm(term);
  }
}
