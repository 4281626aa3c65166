/**
 * SPARQL Query Results XML (.srx), with SPARQL 1.2's triple terms and base directions: a whole
 * document, or incrementally as it arrives. The XML itself is read by saxes (@rubensworks/saxes,
 * the SAX parser rdfxml-streaming-parser already brings): well-formedness, entities, character
 * references, CDATA, comments, processing instructions and line ends are its job, and its errors
 * become ResultsFormatErrors with their line and column. This file only follows the results
 * vocabulary. results-parser.ts loads it when XML results are first read, so that a process that
 * reads none (a `quiver query` without SERVICE, most servers) never loads saxes.
 */
import { SaxesParser, type SaxesTagPlain } from '@rubensworks/saxes';
import type { SolutionRow, Term } from '../rdf/index.js';
import { blankNode, namedNode } from '../rdf/index.js';
import { ResultsFormatError, literalOf, tripleTermOf, type IncrementalReader, type ParsedResults, type ResultsEvent } from './results-reading.js';

export function parseXmlResults(text: string): ParsedResults {
  let result: ParsedResults | undefined;
  const rows: SolutionRow[] = [];
  const reader = new ResultsDocumentReader({
    head: (variables) => (result = { kind: 'bindings', variables, rows }),
    row: (row) => rows.push(row),
    boolean: (value) => (result = { kind: 'boolean', value }),
  });
  reader.write(text);
  reader.close();
  return result!;
}

/** XML results as their chunks arrive: the head once <results> starts, then each <result> as it closes. */
export class XmlReader implements IncrementalReader {
  private events: ResultsEvent[] = [];
  private readonly reader = new ResultsDocumentReader({
    head: (variables) => this.events.push({ type: 'head', variables }),
    row: (row) => this.events.push({ type: 'row', row }),
    boolean: (value) => this.events.push({ type: 'boolean', value }),
  });

  push(text: string): ResultsEvent[] {
    this.reader.write(text);
    return this.takeEvents();
  }

  end(): ResultsEvent[] {
    this.reader.close();
    return this.takeEvents();
  }

  private takeEvents(): ResultsEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}

/** What a results document says, in document order. */
interface ResultsHandler {
  /** The variables, once <results> starts. */
  head(variables: string[]): void;
  row(row: SolutionRow): void;
  boolean(value: boolean): void;
}

/**
 * An element kept whole until it closes: <head>, <boolean> and each <result>, the units the
 * document is read in. Everything else (the root, <results>) is followed without being kept, so
 * memory holds one result at a time. Element names lose their namespace prefix (results never mix
 * vocabularies); attribute names keep theirs, so `xml:lang` stays `xml:lang`.
 */
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

/** Follows saxes' events through a results document and hands what it says to a {@link ResultsHandler}. */
class ResultsDocumentReader {
  private readonly parser = new SaxesParser();
  /** Elements open around the parser's position, the root counting 1. */
  private depth = 0;
  /** The child of <sparql> the parser is in. */
  private section: string | undefined;
  /** The element being kept (first) and its descendants open around the parser's position. */
  private readonly kept: XmlElement[] = [];
  private variables: string[] = [];
  /** Columns of the variables, known once <results> starts. */
  private columnOf: Map<string, number> | undefined;
  private answered = false;

  constructor(private readonly handler: ResultsHandler) {
    this.parser.on('opentag', (tag) => this.openElement(tag));
    this.parser.on('closetag', () => this.closeElement());
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
    this.parser.on('error', (error) => {
      throw xmlSyntaxError(error, this.parser.line, this.parser.column);
    });
  }

  write(text: string): void {
    this.parser.write(text);
  }

  /** The end of the document: what is still open is an error, and so is a document that answered nothing. */
  close(): void {
    this.parser.close();
    if (!this.answered) throw new ResultsFormatError('SPARQL XML results: neither <results> nor <boolean>');
  }

  private openElement(tag: SaxesTagPlain): void {
    const name = localName(tag.name);
    this.depth++;
    const parent = this.kept.at(-1);
    if (parent) {
      const element = { name, attributes: tag.attributes, children: [] };
      parent.children.push(element);
      this.kept.push(element);
    } else if (this.depth === 1) {
      if (name !== 'sparql') throw new ResultsFormatError(`SPARQL XML results: root element is <${name}>`);
    } else if (this.depth === 2) {
      this.openSection(name, tag);
    } else if (this.depth === 3 && this.section === 'results' && name === 'result') {
      this.kept.push({ name, attributes: tag.attributes, children: [] });
    }
  }

  private openSection(name: string, tag: SaxesTagPlain): void {
    this.section = name;
    if (name === 'head' || name === 'boolean') this.kept.push({ name, attributes: tag.attributes, children: [] });
    if (name === 'results') {
      this.answer();
      this.columnOf = new Map(this.variables.map((variable, index) => [variable, index]));
      this.handler.head(this.variables);
    }
  }

  private closeElement(): void {
    this.depth--;
    if (this.kept.length === 0) {
      if (this.depth === 1) this.section = undefined;
      return;
    }
    const element = this.kept.pop()!;
    if (this.kept.length === 0) this.closeKept(element);
  }

  private closeKept(element: XmlElement): void {
    switch (element.name) {
      case 'head':
        this.variables = childElements(element, 'variable').map((v) => requiredAttribute(v, 'name'));
        break;
      case 'boolean':
        this.answer();
        this.handler.boolean(xmlBoolean(textOf(element)));
        break;
      case 'result':
        this.handler.row(xmlRow(element, this.columnOf!));
        break;
    }
  }

  private text(text: string): void {
    this.kept.at(-1)?.children.push(text);
  }

  /** A document answers once, with <results> or <boolean>. */
  private answer(): void {
    if (this.answered) throw new ResultsFormatError('SPARQL XML results: more than one <results> or <boolean>');
    this.answered = true;
  }
}

/** saxes' message starts with the position ("3:14: undefined entity."), which we say in words. */
function xmlSyntaxError(error: Error, line: number, column: number): ResultsFormatError {
  const message = error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
  return new ResultsFormatError(`XML, line ${line}, column ${column}: ${message}`);
}

function xmlRow(result: XmlElement, columnOf: Map<string, number>): SolutionRow {
  const row: SolutionRow = new Array(columnOf.size).fill(undefined);
  for (const binding of childElements(result, 'binding')) {
    const name = requiredAttribute(binding, 'name');
    const column = columnOf.get(name);
    if (column === undefined) throw new ResultsFormatError(`SPARQL XML results: binding of undeclared ?${name}`);
    const termElement = binding.children.find(isElement);
    if (!termElement) throw new ResultsFormatError(`SPARQL XML results: empty binding of ?${name}`);
    row[column] = xmlTerm(termElement);
  }
  return row;
}

function xmlBoolean(text: string): boolean {
  const value = text.trim();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ResultsFormatError(`SPARQL XML results: ${JSON.stringify(value)} is not a boolean`);
}

function xmlTerm(element: XmlElement): Term {
  switch (element.name) {
    case 'uri':
      return namedNode(textOf(element).trim());
    case 'bnode':
      return blankNode(textOf(element).trim());
    case 'literal': {
      const { attributes } = element;
      return literalOf(textOf(element), attributes['xml:lang'], attributes['datatype'], attributes['its:dir']);
    }
    case 'triple': {
      const part = (name: string) => {
        const term = childElement(element, name)?.children.find(isElement);
        if (!term) throw new ResultsFormatError(`SPARQL XML results: <triple> without <${name}>`);
        return xmlTerm(term);
      };
      return tripleTermOf(part('subject'), part('predicate'), part('object'), 'XML');
    }
    default:
      throw new ResultsFormatError(`SPARQL XML results: unknown term element <${element.name}>`);
  }
}

function requiredAttribute(element: XmlElement, name: string): string {
  const value = element.attributes[name];
  if (value === undefined) throw new ResultsFormatError(`SPARQL XML results: <${element.name}> without ${name}=`);
  return value;
}

function isElement(node: XmlElement | string): node is XmlElement {
  return typeof node !== 'string';
}

function childElements(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c): c is XmlElement => isElement(c) && c.name === name);
}

function childElement(parent: XmlElement, name: string): XmlElement | undefined {
  return childElements(parent, name)[0];
}

function textOf(element: XmlElement): string {
  return element.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}
