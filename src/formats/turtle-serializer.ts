/**
 * Turtle (https://www.w3.org/TR/turtle/) and TriG (https://www.w3.org/TR/trig/), streamed.
 * Consecutive triples that share a subject are grouped with `;`, and those that also share a
 * predicate with `,`; TriG opens a graph block per run of quads in the same graph. The last
 * statement stays open between batches (the next quad may continue it) and is closed by `end()`.
 * Turtle has no graphs: it writes every quad as a triple.
 */
import type { Quad, Term } from '../rdf/index.js';
import { rdf } from '../rdf/index.js';
import type { QuadsSerializer, TextSink } from './serializer.js';
import { bareTurtleLiteral, ntriplesLiteral, portableBlankNodeLabel, sameTerm, unsupportedTerm } from './term-syntax.js';
import { TurtleIriWriter } from './turtle-prefixes.js';

export class TurtleSerializer implements QuadsSerializer {
  private iris = new TurtleIriWriter({});
  private readonly datatype = (iri: string): string => this.iris.iri(iri);
  private subject: Term | undefined;
  private predicate: Term | undefined;
  /** The graph of the open TriG block; undefined before the first quad. */
  private graph: Term | undefined;
  /** Indentation of statements: inside a named graph block in TriG. */
  private indent = '';

  constructor(
    private readonly sink: TextSink,
    private readonly trig: boolean,
  ) {}

  begin(prefixes: Record<string, string>): void {
    this.iris = new TurtleIriWriter(prefixes);
    const declarations = this.iris.declarations();
    if (declarations) this.sink.write(declarations + '\n');
  }

  quads(batch: Quad[]): void {
    let out = '';
    for (const q of batch) {
      if (this.trig && (this.graph === undefined || !sameTerm(q.graph, this.graph))) {
        out += this.closeStatement() + this.closeGraph() + this.openGraph(q.graph);
      }
      if (this.subject !== undefined && sameTerm(q.subject, this.subject)) {
        if (sameTerm(q.predicate, this.predicate!)) {
          out += ', ' + this.object(q.object);
          continue;
        }
        out += ' ;\n' + this.indent + '    ';
      } else {
        out += this.closeStatement() + this.indent + this.node(q.subject) + ' ';
        this.subject = q.subject;
      }
      this.predicate = q.predicate;
      out += this.verb(q.predicate) + ' ' + this.object(q.object);
    }
    if (out) this.sink.write(out);
  }

  end(): void {
    const out = this.closeStatement() + this.closeGraph();
    if (out) this.sink.write(out);
  }

  private closeStatement(): string {
    if (this.subject === undefined) return '';
    this.subject = undefined;
    this.predicate = undefined;
    return ' .\n';
  }

  private closeGraph(): string {
    if (this.graph === undefined || this.graph.termType === 'DefaultGraph') return '';
    this.graph = undefined;
    this.indent = '';
    return '}\n';
  }

  private openGraph(graph: Term): string {
    this.graph = graph;
    if (graph.termType === 'DefaultGraph') return '';
    this.indent = '    ';
    return this.node(graph) + ' {\n';
  }

  private node(term: Term): string {
    if (term.termType === 'NamedNode') return this.iris.iri(term.value);
    if (term.termType === 'BlankNode') return '_:' + portableBlankNodeLabel(term.value);
    throw unsupportedTerm(term);
  }

  private verb(term: Term): string {
    return term.termType === 'NamedNode' && term.value === rdf.type ? 'a' : this.node(term);
  }

  private object(term: Term): string {
    // RDF 1.2 triple term: Turtle 1.2 and TriG 1.2 write it as N-Triples does, with prefixed names inside.
    if (term.termType === 'Quad') return '<<( ' + this.node(term.subject) + ' ' + this.node(term.predicate) + ' ' + this.object(term.object) + ' )>>';
    if (term.termType !== 'Literal') return this.node(term);
    return bareTurtleLiteral(term) ?? ntriplesLiteral(term, this.datatype);
  }
}
