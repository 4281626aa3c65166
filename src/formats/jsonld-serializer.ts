/**
 * JSON-LD 1.1 (https://www.w3.org/TR/json-ld11/) in expanded form, streamed: a top-level array
 * with one node object per run of quads sharing subject and graph, and one
 * `{"@id": graph, "@graph": [...]}` object per run of quads in the same named graph. A subject
 * whose predicates come back after another predicate starts a second node object with the same
 * `@id` rather than repeating a JSON key; JSON-LD merges the two.
 *
 * RDF 1.2: a directional literal keeps its direction as `@direction` (JSON-LD 1.1 has it); a triple
 * term has no JSON-LD 1.1 form, so writing one is a {@link SerializationError} naming the formats
 * that carry it.
 */
import type { Quad, Term } from '../rdf/index.js';
import { xsd } from '../rdf/index.js';
import { jsonString } from './escaping.js';
import type { QuadsSerializer, TextSink } from './serializer.js';
import { portableBlankNodeLabel, sameTerm, tripleTermRefused, unsupportedTerm } from './term-syntax.js';
import { directionOf } from '../rdf/index.js';

export class JsonLdSerializer implements QuadsSerializer {
  private graph: Term | undefined;
  private subject: Term | undefined;
  private predicate: Term | undefined;
  /** Predicates already written in the open node object. */
  private readonly keys = new Set<string>();
  /** Whether the enclosing array (top level or `@graph`) has an element yet. */
  private hasElement = false;

  constructor(private readonly sink: TextSink) {}

  begin(_prefixes: Record<string, string>): void {
    this.sink.write('[');
  }

  quads(batch: Quad[]): void {
    let out = '';
    for (const q of batch) {
      if (this.graph === undefined || !sameTerm(q.graph, this.graph)) {
        out += this.closeNode() + this.closeGraph() + this.openGraph(q.graph);
      }
      if (this.subject === undefined || !sameTerm(q.subject, this.subject)) {
        out += this.closeNode() + this.openNode(q.subject);
      }
      if (this.predicate !== undefined && sameTerm(q.predicate, this.predicate)) {
        out += ',' + jsonLdObject(q.object);
        continue;
      }
      const key = q.predicate.value;
      if (this.keys.has(key)) out += this.closeNode() + this.openNode(q.subject);
      this.keys.add(key);
      out += (this.predicate === undefined ? ',' : '],') + jsonString(nodeId(q.predicate)) + ':[' + jsonLdObject(q.object);
      this.predicate = q.predicate;
    }
    if (out) this.sink.write(out);
  }

  end(): void {
    this.sink.write(this.closeNode() + this.closeGraph() + '\n]\n');
  }

  private element(): string {
    const separator = this.hasElement ? ',\n' : '\n';
    this.hasElement = true;
    return separator;
  }

  private openGraph(graph: Term): string {
    this.graph = graph;
    if (graph.termType === 'DefaultGraph') return '';
    const opening = this.element() + '{"@id":' + jsonString(nodeId(graph)) + ',"@graph":[';
    this.hasElement = false;
    return opening;
  }

  private closeGraph(): string {
    if (this.graph === undefined || this.graph.termType === 'DefaultGraph') return '';
    this.graph = undefined;
    this.hasElement = true;
    return '\n]}';
  }

  private openNode(subject: Term): string {
    this.subject = subject;
    this.predicate = undefined;
    this.keys.clear();
    return this.element() + '{"@id":' + jsonString(nodeId(subject));
  }

  private closeNode(): string {
    if (this.subject === undefined) return '';
    const closing = this.predicate === undefined ? '}' : ']}';
    this.subject = undefined;
    this.predicate = undefined;
    return closing;
  }
}

function nodeId(term: Term): string {
  if (term.termType === 'NamedNode') return term.value;
  if (term.termType === 'BlankNode') return '_:' + portableBlankNodeLabel(term.value);
  throw unsupportedTerm(term);
}

function jsonLdObject(term: Term): string {
  if (term.termType === 'Quad') throw tripleTermRefused('JSON-LD');
  if (term.termType !== 'Literal') return '{"@id":' + jsonString(nodeId(term)) + '}';
  const value = '{"@value":' + jsonString(term.value);
  if (term.language) {
    const direction = directionOf(term);
    const language = value + ',"@language":' + jsonString(term.language);
    return direction === undefined ? language + '}' : language + ',"@direction":"' + direction + '"}';
  }
  const dt = term.datatype.value;
  return dt === xsd.string ? value + '}' : value + ',"@type":' + jsonString(dt) + '}';
}
