/**
 * N-Triples (https://www.w3.org/TR/n-triples/) and N-Quads (https://www.w3.org/TR/n-quads/):
 * one statement per line, so a batch is one string. N-Triples drops the graph of each quad.
 */
import type { Quad, Term } from '../rdf/index.js';
import type { QuadsSerializer, TextSink } from './serializer.js';
import { ntriplesTerm } from './term-syntax.js';

export class NTriplesSerializer implements QuadsSerializer {
  constructor(
    private readonly sink: TextSink,
    private readonly withGraphs: boolean,
  ) {}

  /** The last subject written and its syntax: a DESCRIBE or CONSTRUCT answer lists a subject's triples together. */
  private lastSubject: Term | undefined;
  private lastSubjectText = '';

  begin(_prefixes: Record<string, string>): void {}

  quads(batch: Quad[]): void {
    let out = '';
    for (const q of batch) {
      if (q.subject !== this.lastSubject) {
        this.lastSubject = q.subject;
        this.lastSubjectText = ntriplesTerm(q.subject) + ' ';
      }
      out += this.lastSubjectText + ntriplesTerm(q.predicate) + ' ' + ntriplesTerm(q.object);
      if (this.withGraphs && q.graph.termType !== 'DefaultGraph') out += ' ' + ntriplesTerm(q.graph);
      out += ' .\n';
    }
    if (out) this.sink.write(out);
  }

  end(): void {}
}
