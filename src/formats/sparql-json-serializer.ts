/**
 * SPARQL 1.1 Query Results JSON Format (https://www.w3.org/TR/sparql11-results-json/), with the
 * SPARQL 1.2 additions: triple terms (`"type":"triple"`) and base directions (`"its:dir"`).
 */
import { directionOf, type SolutionRow, type Term } from '../rdf/index.js';
import { xsd, rdf } from '../rdf/index.js';
import { jsonString } from './escaping.js';
import type { SolutionsSerializer, TextSink } from './serializer.js';
import { unsupportedTerm } from './term-syntax.js';

export class SparqlJsonSerializer implements SolutionsSerializer {
  /** `"name":` per variable, built once. */
  private keys: string[] = [];
  /**
   * Per variable, the last term written and its JSON: rows often repeat a column's term (the engine
   * hands the same object on when a value repeats; BSBM Q2 repeats a product's long comment in
   * every row), and escaping it again is most of the work.
   */
  private lastTerms: (Term | undefined)[] = [];
  private lastJson: string[] = [];
  private firstRow = true;

  constructor(private readonly sink: TextSink) {}

  begin(variables: string[]): void {
    this.keys = variables.map((v) => jsonString(v) + ':');
    this.lastTerms = variables.map(() => undefined);
    this.lastJson = variables.map(() => '');
    this.sink.write('{"head":{"vars":[' + variables.map(jsonString).join(',') + ']},\n"results":{"bindings":[\n');
  }

  rows(batch: SolutionRow[]): void {
    const { keys, lastTerms, lastJson } = this;
    let out = '';
    for (const row of batch) {
      out += this.firstRow ? '{' : ',\n{';
      this.firstRow = false;
      let separator = '';
      for (let i = 0; i < keys.length; i++) {
        const term = row[i];
        if (term === undefined) continue;
        if (term !== lastTerms[i]) {
          lastTerms[i] = term;
          lastJson[i] = keys[i] + jsonTerm(term);
        }
        out += separator + lastJson[i];
        separator = ',';
      }
      out += '}';
    }
    if (out) this.sink.write(out);
  }

  end(): void {
    this.sink.write('\n]}}\n');
  }

  boolean(value: boolean): void {
    this.sink.write('{"head":{},"boolean":' + value + '}\n');
  }
}

/** One RDF term as a SPARQL JSON binding object. */
export function jsonTerm(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return '{"type":"uri","value":' + jsonString(term.value) + '}';
    case 'BlankNode':
      return '{"type":"bnode","value":' + jsonString(term.value) + '}';
    case 'Literal': {
      const value = '{"type":"literal","value":' + jsonString(term.value);
      if (term.language) {
        const direction = directionOf(term);
        const dir = direction === undefined ? '' : ',"its:dir":' + jsonString(direction);
        return value + ',"xml:lang":' + jsonString(term.language) + dir + '}';
      }
      const dt = term.datatype.value;
      if (dt === xsd.string || dt === rdf.langString) return value + '}';
      return value + ',"datatype":' + jsonString(dt) + '}';
    }
    case 'Quad':
      // SPARQL 1.2: a triple term's value is an object of its three parts.
      return (
        '{"type":"triple","value":{"subject":' +
        jsonTerm(term.subject) +
        ',"predicate":' +
        jsonTerm(term.predicate) +
        ',"object":' +
        jsonTerm(term.object) +
        '}}'
      );
    default:
      throw unsupportedTerm(term);
  }
}
