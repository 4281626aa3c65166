/**
 * RDF/XML (https://www.w3.org/TR/rdf-syntax-grammar/), streamed: one `rdf:Description` per run of
 * triples with the same subject. Predicates in a namespace declared by `begin()` use its prefix;
 * any other predicate declares its namespace as the default one on its own element, which keeps
 * the output streamable (no namespace needs to be known up front). Graphs are dropped.
 * A predicate whose IRI does not end in an XML NCName cannot be written in RDF/XML at all: that is
 * a {@link SerializationError}.
 *
 * RDF 1.2 (RDF/XML 1.2 draft): a triple term is a property element with rdf:parseType="Triple"
 * holding one rdf:Description of one property; a directional literal carries its:dir. Both need
 * rdf:version="1.2" in scope, which such an element declares for itself, so output without RDF 1.2
 * terms is unchanged.
 */
import type { Quad, Term } from '../rdf/index.js';
import { RDF, xsd } from '../rdf/index.js';
import { escapeXmlAttribute, escapeXmlText } from './escaping.js';
import { SerializationError } from './serialization-error.js';
import type { QuadsSerializer, TextSink } from './serializer.js';
import { portableBlankNodeLabel, sameTerm, unsupportedTerm } from './term-syntax.js';
import { directionOf } from '../rdf/index.js';

const NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = NAME_START + '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const IS_NAME_START = new RegExp(`^[${NAME_START}]$`, 'u');
// The grammar's ranges include combining marks (U+0300–U+036F), which is what the lint rule flags.
// eslint-disable-next-line no-misleading-character-class
const IS_NAME_CHAR = new RegExp(`^[${NAME_CHAR}]$`, 'u');
// eslint-disable-next-line no-misleading-character-class
const NCNAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`, 'u');

/** rdf: names that the RDF/XML grammar does not accept (or rewrites) as property elements. */
const FORBIDDEN_PROPERTIES = new Set(
  ['RDF', 'ID', 'about', 'parseType', 'resource', 'nodeID', 'datatype', 'Description', 'li', 'aboutEach', 'aboutEachPrefix', 'bagID'].map((name) => RDF + name),
);

const CACHE_LIMIT = 50_000;
const ITS = 'http://www.w3.org/2005/11/its';
/** The attribute that puts an element under RDF/XML 1.2 (triple terms, directions). */
const RDF_12 = 'rdf:version="1.2"';

export class RdfXmlSerializer implements QuadsSerializer {
  /** Namespace → prefix, for the namespaces declared on rdf:RDF. */
  private readonly prefixByNamespace = new Map<string, string>([[RDF, 'rdf']]);
  /** Predicate IRI → `[opening tag without '>' or '/>', closing tag]`. */
  private readonly elements = new Map<string, [string, string]>();
  private subject: Term | undefined;

  constructor(private readonly sink: TextSink) {}

  begin(prefixes: Record<string, string>): void {
    let root = '<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="' + RDF + '"';
    for (const [name, namespace] of Object.entries(prefixes)) {
      if (!NCNAME.test(name) || /^xml/i.test(name) || name === 'rdf' || this.prefixByNamespace.has(namespace)) continue;
      this.prefixByNamespace.set(namespace, name);
      root += '\n    xmlns:' + name + '="' + escapeXmlAttribute(namespace) + '"';
    }
    this.sink.write(root + '>\n');
  }

  quads(batch: Quad[]): void {
    let out = '';
    for (const q of batch) {
      if (this.subject === undefined || !sameTerm(q.subject, this.subject)) {
        out += this.closeDescription() + '<rdf:Description ' + nodeAttribute('about', q.subject) + '>\n';
        this.subject = q.subject;
      }
      out += this.property(q.predicate, q.object);
    }
    if (out) this.sink.write(out);
  }

  end(): void {
    this.sink.write(this.closeDescription() + '</rdf:RDF>\n');
  }

  private closeDescription(): string {
    if (this.subject === undefined) return '';
    this.subject = undefined;
    return '</rdf:Description>\n';
  }

  private property(predicate: Term, object: Term, indent = '  '): string {
    if (predicate.termType !== 'NamedNode') throw unsupportedTerm(predicate);
    const [open, close] = this.element(predicate.value);
    switch (object.termType) {
      case 'NamedNode':
      case 'BlankNode':
        return indent + open + ' ' + nodeAttribute('resource', object) + '/>\n';
      case 'Literal': {
        let attributes = '';
        if (object.language) attributes = ' xml:lang="' + escapeXmlAttribute(object.language) + '"';
        else if (object.datatype.value !== xsd.string) attributes = ' rdf:datatype="' + escapeXmlAttribute(object.datatype.value) + '"';
        const direction = directionOf(object);
        if (direction !== undefined) attributes += ' ' + RDF_12 + ' xmlns:its="' + ITS + '" its:version="2.0" its:dir="' + direction + '"';
        return indent + open + attributes + '>' + escapeXmlText(object.value) + close + '\n';
      }
      case 'Quad':
        return (
          indent +
          open +
          ' ' +
          RDF_12 +
          ' rdf:parseType="Triple">\n' +
          indent +
          '  <rdf:Description ' +
          nodeAttribute('about', object.subject) +
          '>\n' +
          this.property(object.predicate, object.object, indent + '    ') +
          indent +
          '  </rdf:Description>\n' +
          indent +
          close +
          '\n'
        );
      default:
        throw unsupportedTerm(object);
    }
  }

  private element(iri: string): [string, string] {
    let element = this.elements.get(iri);
    if (element === undefined) {
      element = this.splitPredicate(iri);
      if (this.elements.size >= CACHE_LIMIT) this.elements.clear();
      this.elements.set(iri, element);
    }
    return element;
  }

  private splitPredicate(iri: string): [string, string] {
    if (FORBIDDEN_PROPERTIES.has(iri)) {
      throw new SerializationError(`the predicate <${iri}> cannot be written in RDF/XML (reserved rdf: name)`);
    }
    const start = localNameStart(iri);
    if (start <= 0) {
      throw new SerializationError(`the predicate <${iri}> cannot be written in RDF/XML: its IRI does not end in a valid XML name; choose another format`);
    }
    const local = iri.slice(start);
    const namespace = iri.slice(0, start);
    const prefix = this.prefixByNamespace.get(namespace);
    if (prefix !== undefined) return ['<' + prefix + ':' + local, '</' + prefix + ':' + local + '>'];
    return ['<' + local + ' xmlns="' + escapeXmlAttribute(namespace) + '"', '</' + local + '>'];
  }
}

/**
 * Where the longest NCName suffix of `iri` starts, or -1. A scan (linear, unlike a regex search
 * anchored at the end): back over name characters, then forward to the first name start.
 */
function localNameStart(iri: string): number {
  let i = iri.length;
  while (i > 0) {
    const pair = i >= 2 && isLowSurrogate(iri.charCodeAt(i - 1)) ? 2 : 1;
    if (!IS_NAME_CHAR.test(iri.slice(i - pair, i))) break;
    i -= pair;
  }
  while (i < iri.length) {
    const width = isLowSurrogate(iri.charCodeAt(i + 1)) ? 2 : 1;
    if (IS_NAME_START.test(iri.slice(i, i + width))) return i;
    i += width;
  }
  return -1;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `rdf:about="…"` / `rdf:resource="…"`, or `rdf:nodeID="…"` for a blank node. */
function nodeAttribute(iriAttribute: 'about' | 'resource', term: Term): string {
  if (term.termType === 'NamedNode') return 'rdf:' + iriAttribute + '="' + escapeXmlAttribute(term.value) + '"';
  if (term.termType === 'BlankNode') return 'rdf:nodeID="' + portableBlankNodeLabel(term.value) + '"';
  throw unsupportedTerm(term);
}
